export type { CreditRatingAction } from '../ratings.ts';
export { RATED_INSTRUMENTS } from '../ratings.ts';
export * from './deals.ts';
export * from './events.ts';
export * from './forecasts.ts';
export * from './model.ts';
export * from './news.ts';
export * from './shareholding.ts';
export { listedEquities, quarterEnds, sharesOn } from './universe.ts';
