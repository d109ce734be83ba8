export * from './text-units';
export * from './tool-result-store';
