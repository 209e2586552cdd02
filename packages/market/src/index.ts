export * from './isin.ts';
export * from './model.ts';
export * from './sim/dataset.ts';
export { Rng } from './sim/rng.ts';
export { SECTORS, type SectorDef } from './sim/taxonomy.ts';
