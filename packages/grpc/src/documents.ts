import type { common } from '@mdp/proto';
import { RpcError } from './rpc-error.ts';
import type { AsyncServiceImpl, ServiceDefinitionOf } from './types.ts';

/** Serialises a response document once, in the service that owns the data. */
export function jsonDocument(data: unknown, meta?: Record<string, unknown>): common.Document {
  return {
    data_json: Buffer.from(JSON.stringify(data)),
    meta_json: meta ? Buffer.from(JSON.stringify(meta)) : Buffer.alloc(0),
  };
}

/** A service with no dataset loaded yet: every lookup is NOT_FOUND, for the given reason. */
export function notFoundForEveryMethod<D extends ServiceDefinitionOf>(
  definition: D,
  reason: string,
): AsyncServiceImpl<D> {
  const impl = {} as Record<string, () => Promise<never>>;
  for (const [method, def] of Object.entries(definition)) {
    if (!def.requestStream && !def.responseStream)
      impl[method] = () => Promise.reject(RpcError.notFound(reason));
  }
  return impl as AsyncServiceImpl<D>;
}
