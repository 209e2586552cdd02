export * from './burst-window.ts';
export * from './decide.ts';
export * from './lease.ts';
export * from './wire.ts';
