import { ApiError } from '@mdp/errors';
import type { Clock } from '@mdp/nse-calendar';
import { context, type Span, trace } from '@mdp/telemetry';
import type { Interface } from '@mdp/usage';
import type { TObject } from '@sinclair/typebox';
import type { FastifyError } from 'fastify';
import type { RouteDef, RouteInput, Upstreams } from './catalogue/index.ts';
import type { DocumentCache } from './document-cache.ts';
import { type AnswerBody, type AnswerDocument, answerDocument, dataText, envelope } from './envelope.ts';
import type { Metering } from './metering/metering.ts';
import { quotaHeaders } from './rate-limit-headers.ts';
import { toApiError } from './upstreams.ts';

/** Any error reaching a front door, as one of the SPEC's codes. Framework 4xx errors are the client's. */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const status = (err as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError('invalid_request', 'the request could not be read');
  }
  return ApiError.internal(err);
}

/** A validated call's input, with the verified caller (null on the unauthenticated route). */
type Input = RouteInput<TObject, TObject>;

interface CallContext {
  /** The admission's id: unique per metered call. */
  requestId: string;
  /** Which front door the call came through, for usage by interface. */
  via: Interface;
  /** The call's span, so the data call, admission and settlement join its trace. */
  span: Span | undefined;
}

interface RouteOutcome {
  /** The SPEC 2.1 envelope, serialised. */
  body: AnswerBody;
  /** The rate-limit headers of a metered 200, or of a free one that states usage (`usedOf`). */
  headers: Record<string, string>;
}

export type RouteCall = (route: RouteDef, input: Input, ctx: CallContext) => Promise<RouteOutcome>;

export interface RouteCallDeps {
  upstreams: Upstreams;
  metering: Metering;
  /** Absent: every data request asks its service. */
  documents?: DocumentCache;
  clock: Clock;
}

/**
 * The one path from a validated call to its document, whatever the front door (REST, MCP): a metered
 * route is admitted before any work, then charged (a 200) or refunded (anything else) exactly once; a
 * free route is just answered.
 * Throws what the caller should be told (an `ApiError`, or anything `asApiError` turns into one).
 */
export function routeCaller(deps: RouteCallDeps): RouteCall {
  const { upstreams, metering, documents, clock } = deps;
  return async (route, input, ctx) => {
    if (!route.metered) {
      // Usage and its history while charges cannot be acknowledged: the same fast 503 as admission.
      if (route.upstream === 'ledger') {
        if (!input.caller || !(await metering.readable(input.caller))) throw ApiError.serviceUnavailable();
        input = { ...input, leaseCharges: metering.leaseCharges(input.caller.accountId) };
      }
      const found = documentFor(route, upstreams, input, ctx.span, documents);
      const doc = found instanceof Promise ? await found : found;
      const now = clock();
      const usedOf = route.usedOf;
      return {
        body: envelope(doc, route.operationId, now),
        headers: usedOf && input.caller ? quotaHeaders(input.caller, usedOf(dataText(doc)), now) : {},
      };
    }
    const admission = await metering.admit(ctx.requestId, input.caller!, ctx.via, ctx.span);
    let body: AnswerBody;
    try {
      const found = documentFor(route, upstreams, input, ctx.span, documents);
      body = envelope(found instanceof Promise ? await found : found, route.operationId, clock());
    } catch (err) {
      // Before the error goes out: usage read after it must not count it.
      await metering.refund(admission, route.operationId, asApiError(err).status);
      throw err;
    }
    // Not charged durably: the 200 is not sent (its charge is being voided).
    if (!(await metering.charge(admission, route.operationId)))
      throw ApiError.serviceUnavailable(new Error('charge not acknowledged by JetStream'));
    return { body, headers: admission.headers };
  };
}

/**
 * The route's document: from the cache when the route's data is cacheable, else from its service. A
 * cached one comes as it is, not in a promise: most metered requests are answered from the cache.
 */
function documentFor(
  route: RouteDef,
  upstreams: Upstreams,
  input: Input,
  span: Span | undefined,
  documents: DocumentCache | undefined,
): AnswerDocument | Promise<AnswerDocument> {
  const upstream = route.upstream;
  if (!documents || !upstream || upstream === 'ledger') return loadDocument(route, upstreams, input, span);
  const key = documents.key(route.operationId, input.params, input.query);
  return (
    documents.hit(key) ?? documents.load(key, upstream, () => loadDocument(route, upstreams, input, span))
  );
}

function loadDocument(route: RouteDef, upstreams: Upstreams, input: Input, span: Span | undefined) {
  return callOwner(route, upstreams, input, span).then(answerDocument);
}

async function callOwner(route: RouteDef, upstreams: Upstreams, input: Input, span: Span | undefined) {
  const dispatch = route.dispatch;
  if (!dispatch) throw ApiError.internal(new Error(`route ${route.operationId} has no owner`));
  const ctx = span ? trace.setSpan(context.active(), span) : context.active();
  try {
    return await context.with(ctx, () => dispatch(upstreams, input));
  } catch (err) {
    throw toApiError(err, route.upstream);
  }
}
