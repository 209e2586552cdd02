export { ApiError, type ErrorBody, type ErrorDetails, type ErrorHeaders, errorBody } from './api-error.ts';
export { ERROR_CODES, ERROR_STATUS, type ErrorCode, SAFE_5XX_MESSAGES } from './codes.ts';
