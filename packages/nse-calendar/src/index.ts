export * from './calendar.ts';
export * from './dates.ts';
export * from './files/index.ts';
export * from './in-force.ts';
export * from './ist.ts';
export * from './seed.ts';
export * from './sessions.ts';
export * from './trading-days.ts';
