import type { Metadata } from '@grpc/grpc-js';

/** One unary method as ts-proto describes it in a `...Service` definition. */
export interface UnaryMethodDefinition<Req, Res> {
  path: string;
  requestStream: false;
  responseStream: false;
  requestSerialize(value: Req): Buffer;
  requestDeserialize(value: Buffer): Req;
  responseSerialize(value: Res): Buffer;
  responseDeserialize(value: Buffer): Res;
}

// biome-ignore lint/suspicious/noExplicitAny: a definition map of heterogeneous methods
export type ServiceDefinitionOf = Record<string, UnaryMethodDefinition<any, any>>;

export type RequestOf<M> = M extends UnaryMethodDefinition<infer Req, unknown> ? Req : never;
export type ResponseOf<M> = M extends UnaryMethodDefinition<unknown, infer Res> ? Res : never;

/** What the caller of a handler knows besides the request. */
export interface CallContext {
  metadata: Metadata;
  /** Aborted when the client cancels or its deadline passes. */
  signal: AbortSignal;
}

/** A service implemented as async functions: return the response, throw an `RpcError` to fail. */
export type AsyncServiceImpl<D extends ServiceDefinitionOf> = {
  [K in keyof D]: (request: RequestOf<D[K]>, ctx: CallContext) => Promise<ResponseOf<D[K]>>;
};

/** The same service seen from a caller: one promise-returning function per method. */
export type AsyncClient<D extends ServiceDefinitionOf> = {
  [K in keyof D]: (request: RequestOf<D[K]>, opts?: { deadlineMs?: number }) => Promise<ResponseOf<D[K]>>;
};
