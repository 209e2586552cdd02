import { Metadata, status } from '@grpc/grpc-js';

/** Trailing-metadata key naming the public parameter an INVALID_ARGUMENT is about. */
export const PARAM_METADATA_KEY = 'mdp-param';

/**
 * A failure a handler means to send: a gRPC status plus, for INVALID_ARGUMENT, the parameter at fault.
 * Anything else a handler throws is an unexpected failure and goes out as INTERNAL without its message.
 */
export class RpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  static notFound(message: string): RpcError {
    return new RpcError(status.NOT_FOUND, message);
  }

  static invalidArgument(param: string, message: string): RpcError {
    return new RpcError(status.INVALID_ARGUMENT, message, param);
  }

  toServiceError() {
    const metadata = new Metadata();
    if (this.param) metadata.set(PARAM_METADATA_KEY, this.param);
    return { code: this.code, details: this.message, metadata };
  }
}

export { status };
