import type { Socket } from 'node:net';
import {
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetails,
  type ErrorHeaders,
  SAFE_5XX_MESSAGES,
  SERVICE_UNAVAILABLE_RETRY_S,
} from '@mdp/errors';
import type { AsyncClient } from '@mdp/grpc';
import type { Clock } from '@mdp/nse-calendar';
import type { auth } from '@mdp/proto';
import {
  type Attributes,
  type CounterCell,
  context,
  extractTraceContext,
  type HistogramCell,
  httpServerMetrics,
  type Logger,
  type Registry,
  type Span,
  SpanStatusCode,
  startRequestSpan,
  type Tracer,
  trace,
  withLogFields,
} from '@mdp/telemetry';
import { newRequestId } from '@mdp/usage';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { registerDocs } from './account-site/docs.ts';
import { registerAccountSite } from './account-site/plugin.ts';
import type { UsageDocument } from './account-site/usage-page.ts';
import { trustedProxies } from './auth-throttle.ts';
import type { Authenticator } from './authenticator.ts';
import { OPENAPI_OPERATION_ID, USAGE_OPERATION_ID } from './catalogue/account.ts';
import { catalogue, type Upstreams } from './catalogue/index.ts';
import { compressAnswer, compressesRoute, constantAnswer } from './compression.ts';
import type { DocumentCache } from './document-cache.ts';
import { bodyText } from './envelope.ts';
import { fastifyPath, knownPathMatcher, undecodablePathParam } from './known-paths.ts';
import { isMcpPath, mcpPreflight, registerMcp } from './mcp/endpoint.ts';
import { toolsFromCatalogue } from './mcp/tools.ts';
import type { Metering } from './metering/metering.ts';
import { buildOpenApi } from './openapi.ts';
import { parseQueryString } from './query-string.ts';
import { RATE_LIMIT_HEADER_NAMES } from './rate-limit-headers.ts';
import { asApiError, routeCaller } from './route-call.ts';
import { compileValidator } from './validation.ts';

export interface GatewayDeps {
  logger: Logger;
  tracer: Tracer;
  registry: Registry;
  upstreams: Upstreams;
  authenticator: Authenticator;
  /** The auth service, for the account web site's sign-in, sessions and tokens. */
  authClient: AsyncClient<typeof auth.AuthServiceService>;
  /** Keys the account site's CSRF tokens; every replica must share it. */
  siteCsrfKey: string;
  /** Proxies in front of the gateway whose X-Forwarded-For/-Proto are believed (0: none). */
  trustProxyHops?: number;
  /**
   * Where such a proxy must be (CIDRs or addresses, comma-separated; default loopback): a hop from
   * anywhere else is the client, whatever X-Forwarded-For it sends.
   */
  trustedProxyCidrs?: string;
  metering: Metering;
  /** Absent: every data request asks its service. */
  documents?: DocumentCache;
  clock: Clock;
}

const ALLOWED_METHODS = 'GET, OPTIONS';

/**
 * CORS for the API (any origin, no credentials): what every answer to a request with `Origin` past the
 * request hook carries, and a preflight's answer to a path of the catalogue. Constants, written as they
 * are (the API's policy does not vary by request or route), where @fastify/cors copied its options and
 * joined the exposed names for every request.
 */
const CORS_ORIGIN = '*';
const CORS_EXPOSED = [...RATE_LIMIT_HEADER_NAMES, 'Request-Id', 'X-Request-Id'].join(', ');
const CORS_PREFLIGHT_METHODS = 'GET, OPTIONS';
const CORS_PREFLIGHT_HEADERS = 'Authorization, Content-Type, X-Request-Id';
const CORS_MAX_AGE = '600';

/** The account web site and the API reference: pages for people, with their own methods and headers. */
function isSitePath(url: string): boolean {
  return (
    url === '/account' ||
    url.startsWith('/account/') ||
    url.startsWith('/account?') ||
    url === '/docs' ||
    url.startsWith('/docs/') ||
    url.startsWith('/docs?')
  );
}
/**
 * A client's own X-Request-Id is echoed and logged when it is of this shape, as a correlation id only:
 * the request's key everywhere in the platform is the id the gateway makes (`newRequestId`).
 */
const CORRELATION_ID = /^[A-Za-z0-9._-]{8,64}$/;

declare module 'fastify' {
  interface FastifyRequest {
    span?: Span;
    errorCode?: string;
    /** The client's X-Request-Id when well formed: logged beside the platform's id. */
    correlationId?: string;
    /** Its route's config, read once by the request hook (fastify's `routeOptions` builds an object a read). */
    routeConfig?: FastifyContextConfig;
  }
  interface FastifyContextConfig {
    operationId?: string;
    /** false: no CORS headers (the account site and the API reference: same-origin pages). */
    cors?: false;
    /** Set on every route whose answers may be compressed (not on a 404 handler's). */
    compress?: true;
    /**
     * false: the request does not run inside its span's context; its handler hands the span to what it
     * calls (the API's routes: entering a context cost about 4 µs a request), or calls nothing.
     */
    requestContext?: false;
    /** The route's metric cells of a GET answered 200, made on its first. */
    [OK_CELLS]?: { requests: CounterCell; duration: HistogramCell };
  }
}
const OK_CELLS = Symbol('ok cells');

/** What every log line about a request carries: the platform's id, and the client's when it gave one. */
function logFields(req: FastifyRequest): Record<string, string> {
  return req.correlationId ? { reqId: req.id, correlationId: req.correlationId } : { reqId: req.id };
}

/** A line logged about the request by the gateway's own hooks: outside its context, its trace ids given. */
function requestLogFields(req: FastifyRequest): Record<string, string> {
  const fields = logFields(req);
  if (req.routeConfig?.requestContext === false && req.span) {
    const { traceId, spanId } = req.span.spanContext();
    fields.trace_id = traceId;
    fields.span_id = spanId;
  }
  return fields;
}

/** What an error answer is made of: an `ApiError`, or a refusal of the gateway's own (`refusal`). */
interface ErrorAnswer {
  code: ErrorCode;
  status: number;
  message: string;
  details?: ErrorDetails | undefined;
  headers: ErrorHeaders;
}

/**
 * The gateway's own refusals (no route, wrong method, draining) are answered, never thrown: an
 * `ApiError` captured a stack trace for each.
 */
const refusal = (code: ErrorCode, message: string, headers: ErrorHeaders = {}): ErrorAnswer => ({
  code,
  status: ERROR_STATUS[code],
  message,
  headers,
});
const routeNotFound = (url: string) => {
  const q = url.indexOf('?');
  return refusal('route_not_found', `no route ${q < 0 ? url : url.slice(0, q)}`);
};
/** As `ApiError.serviceUnavailable()`. */
const DRAINING = refusal('service_unavailable', SAFE_5XX_MESSAGES.service_unavailable, {
  'Retry-After': SERVICE_UNAVAILABLE_RETRY_S,
});

/** `{"error":{"code":"<code>","message":` per code, made once: the SPEC 2.6 envelope's fixed part. */
const ERROR_OPENINGS = new Map<string, string>();
/** The SPEC 2.6 envelope (`errorBody`'s, byte for byte), serialised around its one variable part. */
function errorJson(err: ErrorAnswer): string {
  let opening = ERROR_OPENINGS.get(err.code);
  if (opening === undefined) {
    opening = `{"error":{"code":${JSON.stringify(err.code)},"message":`;
    ERROR_OPENINGS.set(err.code, opening);
  }
  const details =
    err.details && Object.keys(err.details).length > 0 ? `,"details":${JSON.stringify(err.details)}` : '';
  return `${opening}${JSON.stringify(err.message)}${details}}}`;
}

function sendError(reply: FastifyReply, err: ErrorAnswer): FastifyReply {
  reply.request.errorCode = err.code;
  return reply
    .code(err.status)
    .headers(err.headers)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(errorJson(err));
}

const UNREADABLE = errorJson(refusal('invalid_request', 'the request could not be read'));
const UNREADABLE_REQUEST = `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(UNREADABLE)}\r\nConnection: close\r\n\r\n${UNREADABLE}`;

/** A malformed request caught by Node's HTTP parser (oversized headers, timeouts) still gets an envelope. */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  socket.end(UNREADABLE_REQUEST);
}

/**
 * The logger fastify is given: the process's own, whose child is itself. fastify asks for a child logger
 * for every request, and a pino child serialises and redacts its bindings as it is made; a
 * `childLoggerFactory` of ours would avoid that but fastify then checks the logger it returns on every
 * request, so its own factory asks this `child`, which makes nothing. A request's ids reach its log lines
 * from its context (withLogFields below), or are given explicitly.
 */
function requestLogger(logger: Logger): FastifyBaseLogger {
  const own = Object.create(logger) as FastifyBaseLogger;
  own.child = () => own;
  return own;
}

/**
 * The public API process. Builds routes from the catalogue; every response, success or failure, is one
 * of the SPEC's envelopes. Returned unstarted: tests use `inject`, `server.ts` listens.
 */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { logger, tracer, upstreams, authenticator, metering, documents, clock } = deps;
  const metrics = httpServerMetrics(deps.registry);
  const isKnownPath = knownPathMatcher(catalogue);
  const undecodableParam = undecodablePathParam(catalogue);
  const call = routeCaller({ upstreams, metering, clock, ...(documents ? { documents } : {}) });
  let closing = false;

  const app = Fastify({
    loggerInstance: requestLogger(logger),
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    return503OnClosing: false,
    bodyLimit: 16 * 1024,
    requestTimeout: 30_000,
    keepAliveTimeout: 75_000,
    // Node's parser refuses more than 16 KB of request line and headers, so no path parameter that
    // arrives is longer than this: every one reaches its route's validation (400 naming it), none the
    // router's own refusal.
    routerOptions: { querystringParser: parseQueryString, maxParamLength: 16_384 },
    // Nothing a client sends becomes a request's id: it keys admission, settlement and the event log.
    genReqId: newRequestId,
    frameworkErrors: (err, req, reply) => {
      const param = err.code === 'FST_ERR_BAD_URL' ? undecodableParam(req.url) : undefined;
      sendError(
        reply,
        param === undefined
          ? refusal('invalid_request', 'the request URL could not be read')
          : {
              ...refusal('invalid_request', `${param} is not valid percent-encoding`),
              details: { param },
            },
      );
    },
    clientErrorHandler,
    // The n nearest hops (an ingress, a load balancer) are believed about the client's address and
    // scheme, each only when it is where a proxy is: otherwise anyone reaching the gateway directly could
    // pick the address the failed-authentication throttle and the sign-in limits count against.
    trustProxy: trustedProxies(deps.trustProxyHops ?? 0, deps.trustedProxyCidrs ?? '127.0.0.0/8,::1/128'),
  });

  // The request's own fields, declared so that fastify makes every request with them: added one by one
  // by the hooks, each request object would change shape four times on its way through.
  for (const field of ['routeConfig', 'correlationId', 'span', 'errorCode'] as const)
    app.decorateRequest(field, undefined);

  // One hook a stage, for every answer, each doing only what the answer needs: request ids and the span
  // (all), CORS (the API's answers), the request's context (what calls or logs on), compression (the
  // routes' answers that are large enough), the drain's Connection: close (only while draining), metrics.
  app.addHook('onRequest', (req, reply, done) => {
    // fastify builds `routeOptions` afresh for every read: read once, kept for the later stages.
    const { url: routeUrl, config } = req.routeOptions;
    req.routeConfig = config;
    const given = req.headers['x-request-id'];
    const correlationId = typeof given === 'string' && CORRELATION_ID.test(given) ? given : undefined;
    req.correlationId = correlationId;
    reply.header('request-id', req.id).header('x-request-id', correlationId ?? req.id);
    const method = req.method;
    const span = startRequestSpan(
      tracer,
      `${method} ${routeUrl ?? 'unmatched'}`,
      extractTraceContext(req.headers),
      req.id,
    );
    // Attributes only for a span something will read (an exporter is configured).
    if (span.isRecording()) {
      const attributes: Attributes = { 'http.request.method': method, 'mdp.request_id': req.id };
      if (correlationId) attributes['mdp.correlation_id'] = correlationId;
      span.setAttributes(attributes);
    }
    req.span = span;
    if (closing) return void sendError(reply, DRAINING);
    const url = req.url;
    // GET goes on to its route (or the 404), which says whether it takes CORS headers and a context.
    if (method !== 'GET') {
      const mcp = isMcpPath(url);
      if (mcp && method === 'OPTIONS') return mcpPreflight(reply);
      const site = isSitePath(url);
      if (site && method === 'OPTIONS') return void sendError(reply, routeNotFound(url));
      if (!mcp && !site) {
        if (!isKnownPath(url)) return void sendError(reply, routeNotFound(url));
        reply.header('allow', ALLOWED_METHODS);
        if (method !== 'OPTIONS')
          return void sendError(reply, refusal('method_not_allowed', `${method} is not allowed; use GET`));
        // A preflight to a path of the catalogue: answered here (no route of its own runs).
        return void reply
          .code(204)
          .header('access-control-allow-origin', CORS_ORIGIN)
          .header('access-control-expose-headers', CORS_EXPOSED)
          .header('access-control-allow-methods', CORS_PREFLIGHT_METHODS)
          .header('access-control-allow-headers', CORS_PREFLIGHT_HEADERS)
          .header('access-control-max-age', CORS_MAX_AGE)
          .header('content-length', '0')
          .send();
      }
    }
    // CORS headers on a CORS request only: a browser sends `Origin` with every cross-origin request, and
    // nothing else reads them (most metered traffic is a subscriber's server-side code). The one shared-
    // cacheable answer, the OpenAPI document, says it varies by Origin.
    if (config.cors !== false && req.headers.origin !== undefined)
      reply
        .header('access-control-allow-origin', CORS_ORIGIN)
        .header('access-control-expose-headers', CORS_EXPOSED);
    // The rest of the request runs inside its span, so token verification, admission and settlement
    // (not only the data call) carry its trace id to auth, the ledger and the settlement event, and its
    // log lines its ids.
    if (config.requestContext === false) return done();
    context.with(withLogFields(trace.setSpan(context.active(), span), logFields(req)), done);
  });

  // The account site and the reference are same-origin only: their routes take no CORS headers, the
  // site's 404 page drops them, and the hook above refuses a preflight to them. Every route's answers may
  // be compressed but the account site's pages (compression.ts); a 404 handler's never are.
  app.addHook('onRoute', (route) => {
    const url = route.url ?? '';
    route.config = {
      ...route.config,
      ...(isSitePath(url) ? { cors: false as const } : {}),
      ...(compressesRoute(url) ? { compress: true as const } : {}),
    };
  });
  // Where a preflight is routed (as @fastify/cors routed it): the request hook answers every one it
  // allows, so this handler is reached by none.
  app.options('*', (_req, reply) => {
    reply.callNotFound();
  });

  app.addHook('onResponse', (req, reply, done) => {
    const config = req.routeConfig ?? req.routeOptions.config;
    const route = config.operationId ?? 'unmatched';
    const status = reply.statusCode;
    const elapsed = reply.elapsedTime;
    if (logger.isLevelEnabled('debug')) {
      logger.debug(
        {
          trace_id: req.span?.spanContext().traceId,
          ...requestLogFields(req),
          route,
          status,
          code: req.errorCode,
          ms: Math.round(elapsed * 10) / 10,
        },
        'request',
      );
    }
    // Most answers are a route's 200 to a GET: its cells are found once.
    if (status === 200 && req.errorCode === undefined && req.method === 'GET') {
      let ok = config[OK_CELLS];
      if (ok === undefined) {
        ok = {
          requests: metrics.requests.cell(route, 'GET', 200, ''),
          duration: metrics.duration.cell(route, 'GET', 200),
        };
        config[OK_CELLS] = ok;
      }
      ok.requests.inc();
      ok.duration.observe(elapsed / 1000);
    } else {
      metrics.requests.cell(route, req.method, status, req.errorCode ?? '').inc();
      metrics.duration.cell(route, req.method, status).observe(elapsed / 1000);
    }
    if (req.span?.isRecording()) {
      req.span.setAttribute('http.response.status_code', status);
      if (status >= 500) req.span.setStatus({ code: SpanStatusCode.ERROR });
      req.span.end();
    }
    done();
  });

  app.setErrorHandler((err, req, reply) => {
    const apiError = asApiError(err);
    if (apiError.status === 500)
      logger.error({ ...requestLogFields(req), err: apiError.cause ?? err }, 'request failed');
    else if (apiError.status > 500) {
      // A dependency is down or slow: one line per request, the cause's message without its stack.
      const cause = apiError.cause instanceof Error ? apiError.cause.message : undefined;
      logger.warn(
        { ...requestLogFields(req), code: apiError.code, cause },
        'request failed: dependency unavailable',
      );
    }
    sendError(reply, apiError);
  });

  app.setNotFoundHandler((req, reply) => {
    sendError(reply, routeNotFound(req.url));
  });

  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    // While draining, every response ends its keep-alive connection, so the server can finish closing.
    if (closing) reply.header('connection', 'close');
    if ((req.routeConfig ?? req.routeOptions.config).compress !== true) return done(null, payload);
    let answer: unknown;
    try {
      answer = compressAnswer(req, reply, payload);
    } catch (err) {
      return done(err as Error);
    }
    done(null, answer);
  });

  const validators = new Map(catalogue.map((route) => [route, compileValidator(route)]));

  registerMcp(app, {
    tools: toolsFromCatalogue(catalogue),
    validators,
    call,
    authenticator,
    tracer,
    registry: deps.registry,
  });

  const usageRoute = catalogue.find((r) => r.operationId === USAGE_OPERATION_ID)!;
  await registerAccountSite(app, {
    auth: deps.authClient,
    upstreams,
    csrfKey: deps.siteCsrfKey,
    clock,
    usageOf: async (caller, requestId) => {
      const { body } = await call(
        usageRoute,
        { params: {}, query: {}, caller },
        { requestId, via: 'rest', span: undefined },
      );
      return (JSON.parse(bodyText(body)) as { data: UsageDocument }).data;
    },
  });
  registerDocs(app);

  // The client's address for the failed-authentication throttle: with no proxy believed it is the
  // socket's peer (what fastify's `ip` computes from X-Forwarded-For and the trust test on every read),
  // known once a connection.
  const clientAddress =
    (deps.trustProxyHops ?? 0) === 0
      ? (req: FastifyRequest) => req.socket.remoteAddress
      : (req: FastifyRequest) => req.ip;
  // The OpenAPI document is the same bytes for every request: serialised at start, and compressed once
  // for each coding a client asks for (compression.ts).
  const openApiJson = constantAnswer(Buffer.from(JSON.stringify(buildOpenApi())));

  for (const route of catalogue) {
    const validate = validators.get(route)!;
    const path = fastifyPath(route.path);
    if (route.operationId === OPENAPI_OPERATION_ID) {
      // Free, no token, no call: outside any request context. Its parameters are still validated
      // (an unknown one is a 400).
      app.get(
        path,
        { config: { operationId: route.operationId, requestContext: false } },
        async (req, reply) => {
          validate(req.params as Record<string, unknown>, req.query as never);
          return reply
            .header('cache-control', 'public, max-age=300')
            .header('vary', 'Origin')
            .type('application/json; charset=utf-8')
            .send(openApiJson);
        },
      );
      continue;
    }
    const authenticated = route.authenticated;
    // Outside the request's context: the span goes by hand to each hop (auth, the ledger, the data
    // service, the settlement event), which joins its trace.
    const config = { operationId: route.operationId, requestContext: false as const };
    app.get(path, { config }, async (req, reply) => {
      const span = req.span;
      // Who is asking comes before what they ask: a request without a valid token learns nothing else.
      const caller = authenticated
        ? (authenticator.cachedCaller(req.headers.authorization) ??
          (await authenticator.authenticate(req.headers.authorization, clientAddress(req), span)))
        : null;
      const { params, query } = validate(req.params as Record<string, unknown>, req.query as never);
      const { body, headers } = await call(
        route,
        { params, query, caller },
        { requestId: req.id, via: 'rest', span },
      );
      return reply
        .headers(headers)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(body);
    });
  }

  return app;
}
