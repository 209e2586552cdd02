export * from './dates.ts';
export * from './holidays.ts';
export * from './sessions.ts';
export * from './trading-days.ts';
