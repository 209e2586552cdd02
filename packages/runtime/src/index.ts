export {
  bootstrap,
  exitOnStartupError,
  type Lifecycle,
  type Runtime,
  serveUntilSignal,
} from './bootstrap.ts';
export { isEntryPoint, runServiceCli, type ServiceCliSpec, UsageError } from './cli.ts';
export {
  type BuiltService,
  type GrpcServiceRuntime,
  type GrpcServiceSpec,
  runGrpcService,
} from './grpc-service.ts';
export { assertSupportedNode, SUPPORTED_NODE, unsupportedNode } from './node-version.ts';
