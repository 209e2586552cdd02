import { Type } from '@sinclair/typebox';

/** Development default only: any deployment sets its own LINK_SIGNING_KEY (links signed with this are forgeable). */
const DEV_LINK_SIGNING_KEY = 'dev-only-filings-link-signing-key';

export const filingsConfig = {
  FILES_HOST: Type.String({ default: '0.0.0.0' }),
  FILES_PORT: Type.Integer({ default: 8090, minimum: 0, maximum: 65535 }),
  /** Base of the public links handed out in responses; default http://localhost:<FILES_PORT>. */
  PUBLIC_FILES_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  LINK_SIGNING_KEY: Type.String({ default: DEV_LINK_SIGNING_KEY, minLength: 16 }),
  LINK_TTL_SECONDS: Type.Integer({ default: 3600, minimum: 60, maximum: 7 * 86_400 }),
};
