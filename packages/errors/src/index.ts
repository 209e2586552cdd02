export {
  ApiError,
  type ErrorBody,
  type ErrorDetails,
  type ErrorHeaders,
  errorBody,
  SERVICE_UNAVAILABLE_RETRY_S,
} from './api-error.ts';
export { ERROR_CODES, ERROR_STATUS, type ErrorCode, SAFE_5XX_MESSAGES } from './codes.ts';
