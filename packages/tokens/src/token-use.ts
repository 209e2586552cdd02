/**
 * Most token uses one `RecordTokenUse` call may carry: the auth service refuses a larger call, and the
 * gateway reports its tokens' uses in calls of at most this many.
 */
export const MAX_TOKEN_USES_PER_CALL = 10_000;
