export { Metadata, status } from '@grpc/grpc-js';
export { CHANNEL_OPTIONS, type ClientOptions, createClient, type TypedClient } from './client.ts';
export { jsonDocument, notFoundForEveryMethod } from './documents.ts';
export { OUTLIER_POLICY, type OutlierPolicy, type ReplicaMetrics, replicaMetrics } from './replicas.ts';
export { PARAM_METADATA_KEY, RpcError } from './rpc-error.ts';
export { GrpcServer, type GrpcServerOptions, UNARY_MAX_CONNECTION_AGE_MS } from './server.ts';
export type * from './types.ts';
