import type { V2MediaInfo, V2TorrentInfo } from '../mapping';

/** The frozen payload of a V2 download plan. @internal */
export interface DownloadPayload {
  type: 'download';
  mediaEntityId: string;
  title: string;
  kind: 'movie' | 'tv';
  releaseId: string;
  releaseName: string;
  site: string;
  sizeBytes: number;
  resolution: string;
  hash: string | null;
  media_in: V2MediaInfo;
  torrent_in: V2TorrentInfo;
}

/** The frozen payload of a V2 organize plan (the `ManualTransferItem` it sends). @internal */
export interface OrganizePayload {
  type: 'organize';
  downloadId: string;
  mediaEntityId: string;
  title: string;
  mode: 'hardlink' | 'copy' | 'move';
  targetPath: string;
  files: Array<{ from: string; to: string }>;
  transfer: Record<string, unknown>;
}

/** What an organize plan shows as the target when the host picks its library directory. @internal */
export const HOST_LIBRARY = '(the host library directory for this media type)';

/** MoviePilot transfer type of an SDK organize mode. @internal */
export const TRANSFER_MODE = { hardlink: 'link', copy: 'copy', move: 'move' } as const;
