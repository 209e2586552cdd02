export {
  type CallOptions,
  type ClientOptions,
  type Data,
  MdpClient,
  type Meta,
  type Params,
  type Result,
  type RouteMethods,
} from './client.ts';
export { type ErrorCode, MdpError } from './errors.ts';
export type { components, operations, paths } from './generated/openapi.ts';
export { OPERATIONS, type OperationId } from './generated/operations.ts';
export { allPrices, pricePages, QUOTES_PER_CALL, quotes, quoteUnits } from './helpers.ts';
export { Pacer } from './pacer.ts';
export type { RateLimitState } from './rate-limit.ts';
export type { RetryOptions } from './retry.ts';
