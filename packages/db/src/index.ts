export { type Listener, listen } from './listen.ts';
export { createPool, dropSchema, migrate, migrateDown, migratedPool, type Pool } from './pool.ts';
export { assertSchemaName } from './schema-name.ts';
export { type KeptSession, keepSession } from './session.ts';
export { holdSessionLock, type SessionLock } from './session-lock.ts';
export { type IsolationLevel, withTransaction } from './transaction.ts';
