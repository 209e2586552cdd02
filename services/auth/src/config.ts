import { natsConfig } from '@mdp/config';
import { Type } from '@sinclair/typebox';

/** Variables of the auth service and its admin tool, besides the common and database ones. */
export const authConfig = {
  TOKEN_HASH_SECRET: Type.String({
    minLength: 16,
    default: 'dev-only-token-hash-secret',
    description: 'Key of the HMAC under which tokens are stored; changing it invalidates every token',
  }),
  ...natsConfig,
};
