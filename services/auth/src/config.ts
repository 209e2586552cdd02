import { natsConfig } from '@mdp/config';
import { DEV_TAG_KEYS, TAG_KEYS_PATTERN } from '@mdp/tokens';
import { Type } from '@sinclair/typebox';

/** Variables of the auth service and its admin tool, besides the common and database ones. */
export const authConfig = {
  TOKEN_HASH_SECRET: Type.String({
    minLength: 16,
    default: 'dev-only-token-hash-secret',
    description: 'Key of the HMAC under which tokens are stored; changing it invalidates every token',
  }),
  TOKEN_TAG_KEYS: Type.String({
    default: DEV_TAG_KEYS,
    pattern: TAG_KEYS_PATTERN,
    description:
      'Keys tagging API tokens, <id>:<key>[,<id>:<key>…]: the first tags new tokens; the gateways hold the same list',
  }),
  ...natsConfig,
};
