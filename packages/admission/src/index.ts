export * from './burst-window.ts';
export * from './decide.ts';
