export * from './isin.ts';
export * from './model.ts';
export * from './sim/corporate/index.ts';
export * from './sim/dataset.ts';
export * from './sim/financials/index.ts';
export * from './sim/flows/index.ts';
export * from './sim/indices/index.ts';
export { Rng } from './sim/rng.ts';
export { SECTORS, type SectorDef } from './sim/taxonomy.ts';
