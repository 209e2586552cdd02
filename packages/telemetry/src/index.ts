export { createLogger, type Logger, REDACTED_PATHS, withLogFields } from './logger.ts';
export * from './metric-cells.ts';
export * from './metrics.ts';
export { type OpsServer, startOpsServer } from './ops-server.ts';
export * from './tracing.ts';
