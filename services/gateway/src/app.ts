import type { Socket } from 'node:net';
import cors from '@fastify/cors';
import { ApiError, errorBody } from '@mdp/errors';
import type { AsyncClient } from '@mdp/grpc';
import type { Clock } from '@mdp/nse-calendar';
import type { auth } from '@mdp/proto';
import {
  type Attributes,
  context,
  extractTraceContext,
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
import { registerCompression } from './compression.ts';
import type { DocumentCache } from './document-cache.ts';
import { fastifyPath, knownPathMatcher } from './known-paths.ts';
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
const routeNotFound = (url: string) => new ApiError('route_not_found', `no route ${url.split('?')[0]}`);
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
  }
  interface FastifyContextConfig {
    operationId?: string;
    /** @fastify/cors's per-route override (its README's `config.cors`); false: no CORS headers. */
    cors?: false;
  }
}

/** What every log line about a request carries: the platform's id, and the client's when it gave one. */
function logFields(req: FastifyRequest): Record<string, string> {
  return req.correlationId ? { reqId: req.id, correlationId: req.correlationId } : { reqId: req.id };
}

function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.request.errorCode = err.code;
  return reply
    .code(err.status)
    .headers(err.headers)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(errorBody(err));
}

/** A malformed request caught by Node's HTTP parser (oversized headers, timeouts) still gets an envelope. */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(new ApiError('invalid_request', 'the request could not be read')));
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * The public API process. Builds routes from the catalogue; every response, success or failure, is one
 * of the SPEC's envelopes. Returned unstarted: tests use `inject`, `server.ts` listens.
 */
export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { logger, tracer, upstreams, authenticator, metering, documents, clock } = deps;
  const metrics = httpServerMetrics(deps.registry);
  const isKnownPath = knownPathMatcher(catalogue);
  const call = routeCaller({ upstreams, metering, clock, ...(documents ? { documents } : {}) });
  let closing = false;

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
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
    // No child logger per request (pino serialises and redacts a child's bindings when it is made): a
    // request's ids reach its log lines from its context (withLogFields below), or are given explicitly.
    childLoggerFactory: (logger) => logger,
    frameworkErrors: (_err, _req, reply) => {
      sendError(reply, new ApiError('invalid_request', 'the request URL could not be read'));
    },
    clientErrorHandler,
    // The n nearest hops (an ingress, a load balancer) are believed about the client's address and
    // scheme, each only when it is where a proxy is: otherwise anyone reaching the gateway directly could
    // pick the address the failed-authentication throttle and the sign-in limits count against.
    trustProxy: trustedProxies(deps.trustProxyHops ?? 0, deps.trustedProxyCidrs ?? '127.0.0.0/8,::1/128'),
  });

  app.addHook('onRequest', (req, reply, done) => {
    const given = req.headers['x-request-id'];
    const correlationId = typeof given === 'string' && CORRELATION_ID.test(given) ? given : undefined;
    req.correlationId = correlationId;
    reply.header('request-id', req.id).header('x-request-id', correlationId ?? req.id);
    const span = startRequestSpan(
      tracer,
      `${req.method} ${req.routeOptions.url ?? 'unmatched'}`,
      extractTraceContext(req.headers),
      req.id,
    );
    // Attributes only for a span something will read (an exporter is configured).
    if (span.isRecording()) {
      const attributes: Attributes = { 'http.request.method': req.method, 'mdp.request_id': req.id };
      if (correlationId) attributes['mdp.correlation_id'] = correlationId;
      span.setAttributes(attributes);
    }
    req.span = span;
    if (closing) return void sendError(reply, ApiError.serviceUnavailable(5));
    const mcp = isMcpPath(req.url);
    if (mcp && req.method === 'OPTIONS') return mcpPreflight(reply);
    // The rest of the request runs inside its span, so token verification, admission and settlement
    // (not only the data call) carry its trace id to auth, the ledger and the settlement event.
    const site = isSitePath(req.url);
    if (site && req.method === 'OPTIONS') {
      return void sendError(reply, routeNotFound(req.url));
    }
    if (req.method === 'GET' || mcp || site)
      return context.with(withLogFields(trace.setSpan(context.active(), span), logFields(req)), done);
    if (!isKnownPath(req.url)) {
      return void sendError(reply, routeNotFound(req.url));
    }
    reply.header('allow', ALLOWED_METHODS);
    if (req.method === 'OPTIONS') return done();
    sendError(reply, new ApiError('method_not_allowed', `${req.method} is not allowed; use GET`));
  });

  // Preflight is answered by the plugin for known paths (the hook above has refused the rest). The
  // options are static, normalised once (a delegator normalised them again for every request).
  // The account site and the reference are same-origin only: their routes opt out here, the site's 404
  // page drops the headers, and the hook above refuses a preflight to them.
  app.addHook('onRoute', (route) => {
    if (isSitePath(route.url)) route.config = { ...route.config, cors: false };
  });
  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    exposedHeaders: [...RATE_LIMIT_HEADER_NAMES, 'Request-Id', 'X-Request-Id'],
    maxAge: 600,
    strictPreflight: false,
  });
  // Before any route is added: each takes its compression from it.
  await registerCompression(app);

  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.config.operationId ?? 'unmatched';
    if (logger.isLevelEnabled('debug'))
      logger.debug(
        {
          ...logFields(req),
          route,
          status: reply.statusCode,
          code: req.errorCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          trace_id: req.span?.spanContext().traceId,
        },
        'request',
      );
    metrics.requests.cell(route, req.method, reply.statusCode, req.errorCode ?? '').inc();
    metrics.duration.cell(route, req.method, reply.statusCode).observe(reply.elapsedTime / 1000);
    if (req.span?.isRecording()) {
      req.span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) req.span.setStatus({ code: SpanStatusCode.ERROR });
      req.span.end();
    }
    done();
  });

  app.setErrorHandler((err, req, reply) => {
    const apiError = asApiError(err);
    if (apiError.status === 500)
      logger.error({ ...logFields(req), err: apiError.cause ?? err }, 'request failed');
    else if (apiError.status > 500) {
      // A dependency is down or slow: one line per request, the cause's message without its stack.
      const cause = apiError.cause instanceof Error ? apiError.cause.message : undefined;
      logger.warn(
        { ...logFields(req), code: apiError.code, cause },
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

  // While draining, every response ends its keep-alive connection, so the server can finish closing.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  const openApiJson = JSON.stringify(buildOpenApi());
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
      return (JSON.parse(body.toString('utf8')) as { data: UsageDocument }).data;
    },
  });
  registerDocs(app);

  for (const route of catalogue) {
    const validate = validators.get(route)!;
    app.get(fastifyPath(route.path), { config: { operationId: route.operationId } }, async (req, reply) => {
      // Who is asking comes before what they ask: a request without a valid token learns nothing else.
      const caller = route.authenticated
        ? await authenticator.authenticate(req.headers.authorization, req.ip)
        : null;
      const input = { ...validate(req.params as Record<string, unknown>, req.query as never), caller };
      if (route.operationId === OPENAPI_OPERATION_ID) {
        return reply
          .header('cache-control', 'public, max-age=300')
          .type('application/json; charset=utf-8')
          .send(openApiJson);
      }
      const { body, headers } = await call(route, input, { requestId: req.id, via: 'rest', span: req.span });
      return reply
        .headers(headers)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(body);
    });
  }

  return app;
}
