import { type AsyncServiceImpl, RpcError, status } from '@mdp/grpc';
import { auth } from '@mdp/proto';
import { Counter, type Registry } from '@mdp/telemetry';
import { type AccountStore, InvalidInput, type SignInResult, type SignUpResult } from './accounts.ts';
import { AdminError } from './store.ts';

type AccountRpcs = Omit<AsyncServiceImpl<typeof auth.AuthServiceService>, 'verifyToken'>;

const O = auth.SignInOutcome;
const OUTCOMES: Record<SignInResult['outcome'], auth.SignInOutcome> = {
  ok: O.SIGN_IN_OUTCOME_OK,
  wrong_credentials: O.SIGN_IN_OUTCOME_WRONG_CREDENTIALS,
  rate_limited: O.SIGN_IN_OUTCOME_RATE_LIMITED,
  invalid_input: O.SIGN_IN_OUTCOME_INVALID_INPUT,
  email_taken: O.SIGN_IN_OUTCOME_EMAIL_TAKEN,
  invite_invalid: O.SIGN_IN_OUTCOME_INVITE_INVALID,
  suspended: O.SIGN_IN_OUTCOME_SUSPENDED,
};

/**
 * A sign-up's answer: OK without a session whether or not the address was new (`SignUpResult`), so that
 * the answer never tells who has an account; the site then asks the subscriber to sign in.
 */
function toSignUpResponse(r: SignUpResult): auth.SignInResponse {
  if (r.outcome === 'accepted')
    return {
      outcome: O.SIGN_IN_OUTCOME_OK,
      session: undefined,
      retry_after_seconds: 0,
      field: '',
      message: '',
    };
  return toSignInResponse(r);
}

/** The outcome `auth_site_outcomes_total` counts a sign-up under (operators see what the answer hides). */
const signUpOutcome = (r: SignUpResult) =>
  r.outcome === 'accepted' ? (r.created ? 'ok' : 'email_taken') : r.outcome;

function toSignInResponse(r: SignInResult): auth.SignInResponse {
  return {
    outcome: OUTCOMES[r.outcome],
    session:
      r.outcome === 'ok'
        ? {
            session_token: r.session.token,
            account_id: r.session.accountId,
            expires_at_ms: r.session.expiresAtMs,
          }
        : undefined,
    retry_after_seconds: r.outcome === 'rate_limited' ? r.retryAfterSeconds : 0,
    field: r.outcome === 'invalid_input' ? r.field : '',
    message: r.outcome === 'invalid_input' ? r.message : '',
  };
}

/** A store refusal as the gRPC status the contract names; anything else stays an internal error. */
function asRpcError(err: unknown): unknown {
  if (err instanceof InvalidInput) return RpcError.invalidArgument(err.field, err.message);
  if (!(err instanceof AdminError)) return err;
  if (err.reason === 'not_found') return RpcError.notFound(err.message);
  if (err.reason === 'conflict') return new RpcError(status.FAILED_PRECONDITION, err.message);
  return new RpcError(status.INVALID_ARGUMENT, err.message);
}

async function mapped<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw asRpcError(err);
  }
}

const ms = (d: Date | null) => d?.getTime();

/**
 * The account web site's RPCs: transport only, mapping requests to the store and its results to the
 * contract. Nothing here logs: requests carry passwords, session tokens and invite codes.
 */
export function accountHandlers(accounts: AccountStore, registry: Registry): AccountRpcs {
  const name = 'auth_site_outcomes_total';
  const outcomes =
    (registry.getSingleMetric(name) as Counter<'rpc' | 'outcome'> | undefined) ??
    new Counter({
      name,
      help: 'Sign-ups, sign-ins and invite acceptances of the account site, by outcome',
      labelNames: ['rpc', 'outcome'] as const,
      registers: [registry],
    });
  const counted = async (rpc: string, work: Promise<SignInResult>) => {
    const result = await work;
    outcomes.inc({ rpc, outcome: result.outcome });
    return toSignInResponse(result);
  };

  return {
    signUp: async (req) => {
      const result = await accounts.signUp({
        email: req.email,
        password: req.password,
        clientAddress: req.client_address,
      });
      outcomes.inc({ rpc: 'sign_up', outcome: signUpOutcome(result) });
      return toSignUpResponse(result);
    },
    signIn: (req) =>
      counted(
        'sign_in',
        accounts.signIn({ email: req.email, password: req.password, clientAddress: req.client_address }),
      ),
    acceptInvite: (req) =>
      counted(
        'accept_invite',
        accounts.acceptInvite({
          code: req.invite_code,
          password: req.password,
          clientAddress: req.client_address,
        }),
      ),
    getSession: async ({ session_token }) => {
      const s = await accounts.getSession(session_token);
      if (!s) return { valid: false, session_id: '', account_id: '', email: '', plan: '' };
      return {
        valid: true,
        session_id: s.sessionId,
        account_id: s.accountId,
        email: s.email,
        plan: s.plan,
        daily_cap: s.dailyCap ?? undefined,
        monthly_cap: s.monthlyCap ?? undefined,
        burst_per_minute: s.burstPerMinute ?? undefined,
      };
    },
    signOut: async ({ session_token, everywhere }) => {
      await accounts.signOut(session_token, everywhere);
      return {};
    },
    createToken: async ({ account_id, name, expires_at_ms }) => {
      const issued = await mapped(accounts.createToken(account_id, { name, expiresAtMs: expires_at_ms }));
      return { token_id: issued.id, token: issued.token, display_prefix: issued.displayPrefix };
    },
    listTokens: async ({ account_id }) => ({
      tokens: (await mapped(accounts.listTokens(account_id))).map((t) => ({
        token_id: t.id,
        name: t.name,
        display_prefix: t.display_prefix,
        created_at_ms: t.created_at.getTime(),
        last_used_at_ms: ms(t.last_used_at),
        expires_at_ms: ms(t.expires_at),
        revoked_at_ms: ms(t.revoked_at),
      })),
    }),
    revokeToken: async ({ account_id, token_id }) => {
      await mapped(accounts.revokeToken(account_id, token_id));
      return {};
    },
    recordTokenUse: async ({ uses }) => {
      await mapped(
        accounts.recordTokenUse(uses.map((u) => ({ tokenId: u.token_id, usedAtMs: u.used_at_ms }))),
      );
      return {};
    },
  };
}
