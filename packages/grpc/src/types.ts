import type { Metadata, ServerDuplexStream } from '@grpc/grpc-js';

/** One method as ts-proto describes it in a `...Service` definition. */
export interface MethodDefinition<Req, Res> {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestSerialize(value: Req): Buffer;
  requestDeserialize(value: Buffer): Req;
  responseSerialize(value: Res): Buffer;
  responseDeserialize(value: Buffer): Res;
}

export interface UnaryMethodDefinition<Req, Res> extends MethodDefinition<Req, Res> {
  requestStream: false;
  responseStream: false;
}

// biome-ignore lint/suspicious/noExplicitAny: a definition map of heterogeneous methods
export type ServiceDefinitionOf = Record<string, MethodDefinition<any, any>>;

export type RequestOf<M> = M extends MethodDefinition<infer Req, unknown> ? Req : never;
export type ResponseOf<M> = M extends MethodDefinition<unknown, infer Res> ? Res : never;
type IsStreaming<M> = M extends { requestStream: true }
  ? true
  : M extends { responseStream: true }
    ? true
    : false;

/** What the caller of a handler knows besides the request. */
export interface CallContext {
  metadata: Metadata;
  /** Aborted when the client cancels or its deadline passes. */
  signal: AbortSignal;
  /** The client connection's address (ip:port): a new port is a new connection. */
  peer: string;
}

/**
 * A service implemented as async functions: return the response, throw an `RpcError` to fail. A
 * bidirectional streaming method is implemented as grpc-js does it, on the duplex stream.
 */
export type AsyncServiceImpl<D extends ServiceDefinitionOf> = {
  [K in keyof D]: IsStreaming<D[K]> extends true
    ? (call: ServerDuplexStream<RequestOf<D[K]>, ResponseOf<D[K]>>) => void
    : (request: RequestOf<D[K]>, ctx: CallContext) => Promise<ResponseOf<D[K]>>;
};

/** The service's unary methods seen from a caller: one promise-returning function each. */
export type AsyncClient<D extends ServiceDefinitionOf> = {
  [K in keyof D as IsStreaming<D[K]> extends true ? never : K]: (
    request: RequestOf<D[K]>,
    opts?: { deadlineMs?: number },
  ) => Promise<ResponseOf<D[K]>>;
};
