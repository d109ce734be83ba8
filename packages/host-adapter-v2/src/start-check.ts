/** The start-up check both adapters share (see the kit). */
export { startAfter } from '@media-agent/host-adapter-kit';
