import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import { type ApiError, SERVICE_UNAVAILABLE_RETRY_S } from '@mdp/errors';
import { type AsyncClient, PARAM_METADATA_KEY, status } from '@mdp/grpc';
import { type Clock, DAY_MS, istDateStart } from '@mdp/nse-calendar';
import { auth } from '@mdp/proto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../authenticator.ts';
import type { Upstreams } from '../catalogue/index.ts';
import { asApiError } from '../route-call.ts';
import { ASSETS } from './assets.ts';
import type { SignedIn } from './layout.ts';
import {
  errorPage,
  type FormErrors,
  invitePage,
  signedUpPage,
  signInPage,
  signUpPage,
  tokenCreatedPage,
  tokensPage,
} from './pages.ts';
import {
  COOKIE_PATH,
  clearSessionCookie,
  isTls,
  loadSession,
  SESSION_COOKIE,
  type SiteSession,
  setSessionCookie,
} from './session.ts';
import { type UsageDocument, type UsageHistory, usagePage } from './usage-page.ts';

export interface AccountSiteOptions {
  auth: AsyncClient<typeof auth.AuthServiceService>;
  upstreams: Upstreams;
  /** `/v1/me/usage`'s document for an account, through the route catalogue's one path. */
  usageOf(caller: Principal, requestId: string): Promise<UsageDocument>;
  /** Keys the CSRF tokens; every gateway replica must share it. */
  csrfKey: string;
  clock: Clock;
}

const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SITE_PREFIX = '/account';

/** Notices a redirect may ask for, by key: a query string never puts its own words on a page. */
const DONE: Record<string, string> = {
  revoked: 'The token is revoked; every gateway refuses it within a second.',
  'already-revoked': 'That token was already revoked.',
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out on every device.',
};

type Body = Record<string, unknown> | undefined;
const text = (body: Body, name: string, max = 1_000): string => {
  const v = body?.[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
};

/**
 * The gateway's request metrics (`http_requests_total{route,...}`) name the site's routes by these, as the
 * API's by their operation ids; `code` says why a form or page was refused (`SiteCode`).
 */
const SITE_ROUTES = {
  home: 'site_home',
  asset: 'site_asset',
  signIn: 'site_sign_in',
  signUp: 'site_sign_up',
  invite: 'site_invite',
  signOut: 'site_sign_out',
  tokens: 'site_tokens',
  revoke: 'site_token_revoke',
  usage: 'site_usage',
  notFound: 'site_not_found',
} as const;

/** The `code` label of a site answer that is not what was asked for (successes have none, as the API's). */
type SiteCode =
  | 'wrong_credentials'
  | 'rate_limited'
  | 'invalid_input'
  | 'invite_invalid'
  | 'suspended'
  | 'email_taken'
  | 'service_unavailable'
  | 'csrf_invalid'
  | 'invalid_request'
  | 'sign_in_required'
  | 'not_found'
  | 'page_not_found';

/** The field an auth refusal names (`name`, `expires_at_ms`) as the form calls it. */
const FORM_FIELD: Record<string, keyof FormErrors> = {
  email: 'email',
  password: 'password',
  name: 'name',
  expires_at_ms: 'expires',
};

/**
 * The account web site under /account (SPEC 5.2): sign-up, sign-in, tokens and usage, server-rendered
 * HTML that works without JavaScript. Accounts, passwords and sessions belong to the auth service; this
 * plugin only renders and forwards. Every form carries a CSRF token bound to the session (or to "signed
 * out" before sign-in); cookies are HttpOnly, SameSite=Lax, Secure over TLS and scoped to /account.
 */
export async function registerAccountSite(app: FastifyInstance, o: AccountSiteOptions): Promise<void> {
  const { clock } = o;
  await app.register(
    async (site) => {
      await site.register(cookie);
      await site.register(formbody, { bodyLimit: 16 * 1024 });
      await site.register(csrf, {
        sessionPlugin: '@fastify/cookie',
        cookieKey: 'mdp_csrf',
        cookieOpts: { path: COOKIE_PATH, httpOnly: true, sameSite: 'strict' },
        getUserInfo: (req: FastifyRequest) => userInfo(req.siteSession),
        csrfOpts: { hmacKey: o.csrfKey },
      });

      site.addHook('onRequest', async (req, reply) => {
        reply
          .header('content-security-policy', PAGE_CSP)
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'same-origin')
          .header('cache-control', 'no-store');
        if (req.url.startsWith(`${SITE_PREFIX}/assets/`)) return;
        req.siteSession = await loadSession(o.auth, req);
      });

      site.setErrorHandler((err, req, reply) => {
        // A gRPC error's code is a number (14 when auth is down); fastify's are strings.
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('FST_CSRF')) {
          req.log.info({ code }, 'account site: form refused (CSRF)');
          req.errorCode = 'csrf_invalid' satisfies SiteCode;
          return sendPage(
            reply.code(403),
            errorPage(
              403,
              'This form has expired or was not sent from this site. Go back, reload the page and try again.',
            ),
          );
        }
        const apiError: ApiError = asApiError(err);
        if (apiError.status >= 500) req.log.warn({ err }, 'account site: request failed');
        const message = apiError.status >= 500 ? UNAVAILABLE : 'The request could not be read.';
        req.errorCode = (
          apiError.status >= 500 ? 'service_unavailable' : 'invalid_request'
        ) satisfies SiteCode;
        return sendPage(reply.code(apiError.status >= 500 ? 503 : 400), errorPage(apiError.status, message));
      });

      const signedIn = async (req: FastifyRequest, reply: FastifyReply): Promise<SignedIn | undefined> => {
        const s = req.siteSession;
        if (!s) {
          req.errorCode = 'sign_in_required' satisfies SiteCode;
          void reply.redirect('/account/sign-in', 303);
          return undefined;
        }
        return { email: s.email, csrf: await csrfFor(reply, s) };
      };

      // Every page answers HEAD as it answers GET (headers, no body); forms are POST only.
      const page = (operationId: string) => ({ config: { operationId }, exposeHeadRoute: true });
      const form = (operationId: string) => ({ config: { operationId }, preHandler: site.csrfProtection });

      site.get('/', page(SITE_ROUTES.home), async (req, reply) =>
        reply.redirect(req.siteSession ? '/account/usage' : '/account/sign-in', 303),
      );

      for (const a of Object.values(ASSETS)) {
        site.get(a.path.slice(SITE_PREFIX.length), page(SITE_ROUTES.asset), async (_req, reply) =>
          reply.header('cache-control', 'public, max-age=31536000, immutable').type(a.type).send(a.body),
        );
      }

      site.get('/sign-in', page(SITE_ROUTES.signIn), async (req, reply) => {
        if (req.siteSession) return reply.redirect('/account/usage', 303);
        const done = DONE[(req.query as Record<string, string>).done ?? ''];
        return sendPage(
          reply,
          signInPage({ csrf: await csrfFor(reply, null), ...(done ? { info: done } : {}) }),
        );
      });

      site.get('/sign-up', page(SITE_ROUTES.signUp), async (req, reply) => {
        if (req.siteSession) return reply.redirect('/account/usage', 303);
        return sendPage(reply, signUpPage({ csrf: await csrfFor(reply, null) }));
      });

      // Sign-in ends in a session, or the form again with the refusal said next to its field.
      site.post('/sign-in', form(SITE_ROUTES.signIn), async (req, reply) => {
        const body = req.body as Body;
        const email = text(body, 'email', 320);
        const r = await o.auth.signIn({
          email,
          password: text(body, 'password', 1024),
          client_address: req.ip,
        });
        if (r.outcome === auth.SignInOutcome.SIGN_IN_OUTCOME_OK) return startSession(reply, r.session!);
        return refused(req, reply, r, (csrf, errors) => signInPage({ csrf, email, errors }));
      });

      // Sign-up never signs in: its answer to an acceptable form is the same whether the address was
      // new (the account is made) or had an account already (nothing changes), and says to sign in. Only
      // what depends on the form alone (a field at fault) or on the client (its rate limit) differs.
      site.post('/sign-up', form(SITE_ROUTES.signUp), async (req, reply) => {
        const body = req.body as Body;
        const email = text(body, 'email', 320);
        const r = await o.auth.signUp({
          email,
          password: text(body, 'password', 1024),
          client_address: req.ip,
        });
        if (r.outcome === auth.SignInOutcome.SIGN_IN_OUTCOME_OK)
          return sendPage(reply, signedUpPage({ csrf: await csrfFor(reply, null), email: email.trim() }));
        return refused(req, reply, r, (csrf, errors) => signUpPage({ csrf, email, errors }));
      });

      site.get('/invite/:code', page(SITE_ROUTES.invite), async (req, reply) => {
        const code = String((req.params as { code: string }).code).slice(0, 200);
        return sendPage(reply, invitePage({ csrf: await csrfFor(reply, null), code }));
      });

      site.post('/invite/:code', form(SITE_ROUTES.invite), async (req, reply) => {
        const code = String((req.params as { code: string }).code).slice(0, 200);
        const r = await o.auth.acceptInvite({
          invite_code: code,
          password: text(req.body as Body, 'password', 1024),
          client_address: req.ip,
        });
        if (r.outcome === auth.SignInOutcome.SIGN_IN_OUTCOME_OK) return startSession(reply, r.session!);
        return refused(req, reply, r, (csrf, errors) => invitePage({ csrf, code, errors }));
      });

      site.post('/sign-out', form(SITE_ROUTES.signOut), async (req, reply) => {
        const everywhere = text(req.body as Body, 'everywhere') === '1';
        const token = req.cookies[SESSION_COOKIE];
        if (token && req.siteSession) await o.auth.signOut({ session_token: token, everywhere });
        clearSessionCookie(reply);
        return reply.redirect(
          `/account/sign-in?done=${everywhere ? 'signed-out-everywhere' : 'signed-out'}`,
          303,
        );
      });

      site.get('/tokens', page(SITE_ROUTES.tokens), async (req, reply) => {
        const user = await signedIn(req, reply);
        if (!user) return reply;
        const { tokens } = await o.auth.listTokens({ account_id: req.siteSession!.caller.accountId });
        const done = DONE[(req.query as Record<string, string>).done ?? ''];
        return sendPage(reply, tokensPage({ user, tokens, now: clock(), ...(done ? { info: done } : {}) }));
      });

      site.post('/tokens', form(SITE_ROUTES.tokens), async (req, reply) => {
        const user = await signedIn(req, reply);
        if (!user) return reply;
        const accountId = req.siteSession!.caller.accountId;
        const body = req.body as Body;
        const name = text(body, 'name', 1_000).trim();
        const expires = text(body, 'expires', 20).trim();
        const errors: FormErrors = {};
        if (expires && !DATE.test(expires))
          errors.expires = 'Give the date as YYYY-MM-DD, or leave it empty.';
        // The token stops at the end of the chosen IST day.
        const expiresAtMs = expires && !errors.expires ? istDateStart(expires) + DAY_MS : undefined;
        if (expiresAtMs !== undefined && Number.isNaN(expiresAtMs)) errors.expires = 'That is not a date.';
        if (!errors.expires) {
          try {
            const created = await o.auth.createToken({
              account_id: accountId,
              name,
              ...(expiresAtMs !== undefined ? { expires_at_ms: expiresAtMs } : {}),
            });
            return sendPage(
              reply,
              tokenCreatedPage({
                user,
                name,
                token: created.token,
                ...(expiresAtMs !== undefined ? { expiresAtMs } : {}),
                origin: `${req.protocol}://${req.host}`,
              }),
            );
          } catch (err) {
            const refused = fieldRefusal(err);
            if (!refused) throw err;
            Object.assign(errors, refused);
          }
        }
        const { tokens } = await o.auth.listTokens({ account_id: accountId });
        req.errorCode = 'invalid_input' satisfies SiteCode;
        return sendPage(reply.code(400), tokensPage({ user, tokens, now: clock(), errors, name, expires }));
      });

      site.post('/tokens/:id/revoke', form(SITE_ROUTES.revoke), async (req, reply) => {
        const user = await signedIn(req, reply);
        if (!user) return reply;
        const tokenId = (req.params as { id: string }).id;
        const notYours = () => {
          req.errorCode = 'not_found' satisfies SiteCode;
          return sendPage(reply.code(404), errorPage(404, 'There is no such token in your account.', user));
        };
        if (!UUID.test(tokenId)) return notYours();
        try {
          await o.auth.revokeToken({ account_id: req.siteSession!.caller.accountId, token_id: tokenId });
        } catch (err) {
          const grpcCode = (err as { code?: number }).code;
          if (grpcCode === status.NOT_FOUND) return notYours();
          if (grpcCode === status.FAILED_PRECONDITION)
            return reply.redirect('/account/tokens?done=already-revoked', 303);
          throw err;
        }
        return reply.redirect('/account/tokens?done=revoked', 303);
      });

      site.get('/usage', page(SITE_ROUTES.usage), async (req, reply) => {
        const user = await signedIn(req, reply);
        if (!user) return reply;
        const caller = req.siteSession!.caller;
        const [usage, historyDoc] = await Promise.all([
          o.usageOf(caller, req.id),
          o.upstreams.ledger(caller.accountId).getUsageHistory({ account_id: caller.accountId }),
        ]);
        const history = JSON.parse(historyDoc.data_json.toString()) as UsageHistory;
        return sendPage(reply, usagePage({ user, usage, history, burstPerMinute: caller.burstPerMinute }));
      });

      // Unlike the site's routes, its 404 passed the API's CORS hook: same-origin pages carry none.
      // Counted as the site's own 404s (not the API's route_not_found).
      site.setNotFoundHandler({ config: { operationId: SITE_ROUTES.notFound } } as never, (req, reply) => {
        req.errorCode = 'page_not_found' satisfies SiteCode;
        return sendPage(
          reply
            .code(404)
            .removeHeader('access-control-allow-origin')
            .removeHeader('access-control-expose-headers'),
          errorPage(404, `There is no page ${req.url.split('?')[0]}.`),
        );
      });

      function startSession(reply: FastifyReply, grant: auth.SessionGrant): FastifyReply {
        setSessionCookie(reply, grant.session_token, grant.expires_at_ms, clock());
        return reply.redirect('/account/usage', 303);
      }

      /** A refused sign-in, sign-up or invite: its form again, with the refusal said and counted. */
      async function refused(
        req: FastifyRequest,
        reply: FastifyReply,
        r: auth.SignInResponse,
        render: (csrf: string, errors: FormErrors) => string,
      ): Promise<FastifyReply> {
        const { code, kind, errors } = refusal(r);
        req.errorCode = kind;
        return sendPage(reply.code(code), render(await csrfFor(reply, null), errors), r);
      }
    },
    { prefix: SITE_PREFIX },
  );
}

function userInfo(s: SiteSession | null | undefined): string {
  return s ? `session:${s.sessionId}` : 'signed-out';
}

async function csrfFor(reply: FastifyReply, s: SiteSession | null): Promise<string> {
  return reply.generateCsrf({ userInfo: userInfo(s), secure: isTls(reply.request) } as never);
}

/** What a page says when a service behind it cannot answer: when to try again, as its Retry-After says. */
const UNAVAILABLE = `The account service is unavailable just now. Try again in ${SERVICE_UNAVAILABLE_RETRY_S} seconds.`;

function sendPage(reply: FastifyReply, body: string, refused?: auth.SignInResponse): FastifyReply {
  if (refused?.outcome === auth.SignInOutcome.SIGN_IN_OUTCOME_RATE_LIMITED)
    reply.header('retry-after', String(refused.retry_after_seconds));
  // As every 503 of the platform: when to ask again.
  else if (reply.statusCode === 503) reply.header('retry-after', String(SERVICE_UNAVAILABLE_RETRY_S));
  return reply.type('text/html; charset=utf-8').send(body);
}

/**
 * A refused sign-in, sign-up or invite as an HTTP status, the metrics' code and the words next to the
 * field at fault.
 */
function refusal(r: auth.SignInResponse): { code: number; kind: SiteCode; errors: FormErrors } {
  const O = auth.SignInOutcome;
  switch (r.outcome) {
    case O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS:
      return {
        code: 401,
        kind: 'wrong_credentials',
        errors: { password: 'The e-mail address or the password is wrong.' },
      };
    case O.SIGN_IN_OUTCOME_RATE_LIMITED: {
      const minutes = Math.max(1, Math.ceil(r.retry_after_seconds / 60));
      return {
        code: 429,
        kind: 'rate_limited',
        errors: { form: `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` },
      };
    }
    case O.SIGN_IN_OUTCOME_INVALID_INPUT:
      return { code: 400, kind: 'invalid_input', errors: { [FORM_FIELD[r.field] ?? 'form']: r.message } };
    case O.SIGN_IN_OUTCOME_INVITE_INVALID:
      return {
        code: 404,
        kind: 'invite_invalid',
        errors: {
          form: 'This invitation is not valid: it has expired or was used already. Ask for a new one.',
        },
      };
    case O.SIGN_IN_OUTCOME_SUSPENDED:
      return {
        code: 403,
        kind: 'suspended',
        errors: { form: 'This account is suspended. Contact support.' },
      };
    case O.SIGN_IN_OUTCOME_EMAIL_TAKEN:
      // Only an invitation says it (sign-up never tells whether an address has an account): the
      // operator invited an address another account already signs in with.
      return {
        code: 409,
        kind: 'email_taken',
        errors: {
          form: 'Another account already signs in with the e-mail address of this invitation. Ask the operator who invited you.',
        },
      };
    default:
      return {
        code: 503,
        kind: 'service_unavailable',
        errors: { form: UNAVAILABLE },
      };
  }
}

/** An INVALID_ARGUMENT from the auth service, as the words next to the form field it names. */
function fieldRefusal(err: unknown): FormErrors | undefined {
  const e = err as { code?: number; details?: string; metadata?: { get(k: string): unknown[] } };
  if (e.code !== status.INVALID_ARGUMENT) return undefined;
  const param = e.metadata?.get(PARAM_METADATA_KEY)[0];
  return {
    [FORM_FIELD[typeof param === 'string' ? param : ''] ?? 'form']: e.details || 'That is not acceptable.',
  };
}
