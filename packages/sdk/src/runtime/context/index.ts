export * from './text-units';
export * from './tool-result-store';
export * from './tool-discovery';
export * from './compaction';
