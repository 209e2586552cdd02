export * from './dates.ts';
export * from './holidays.ts';
export * from './ist.ts';
export * from './sessions.ts';
export * from './trading-days.ts';
