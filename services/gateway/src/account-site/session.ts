import type { AsyncClient } from '@mdp/grpc';
import type { auth } from '@mdp/proto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../authenticator.ts';

export const SESSION_COOKIE = 'mdp_session';
/** Cookies of the site are sent only to its own pages, never to the API. */
export const COOKIE_PATH = '/account';

/** A browser's signed-in subscriber, as the auth service vouched for the session cookie. */
export interface SiteSession {
  sessionId: string;
  email: string;
  /** The account as the usage route's caller: the same caps a token of the account would carry. */
  caller: Principal;
}

declare module 'fastify' {
  interface FastifyRequest {
    siteSession?: SiteSession | null;
  }
}

export function isTls(req: FastifyRequest): boolean {
  return req.protocol === 'https';
}

export function setSessionCookie(reply: FastifyReply, token: string, expiresAtMs: number, now: number): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: isTls(reply.request),
    maxAge: Math.max(0, Math.floor((expiresAtMs - now) / 1000)),
  });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: isTls(reply.request),
  });
}

/** The request's session, or null when it has none or the auth service no longer honours it. */
export async function loadSession(
  client: AsyncClient<typeof auth.AuthServiceService>,
  req: FastifyRequest,
): Promise<SiteSession | null> {
  const token = req.cookies[SESSION_COOKIE];
  if (!token || token.length > 200) return null;
  const s = await client.getSession({ session_token: token });
  if (!s.valid) return null;
  return {
    sessionId: s.session_id,
    email: s.email,
    caller: {
      tokenId: '',
      accountId: s.account_id,
      plan: s.plan,
      dailyCap: s.daily_cap ?? null,
      monthlyCap: s.monthly_cap ?? null,
      expiresAtMs: null,
      burstPerMinute: s.burst_per_minute ?? null,
    },
  };
}
