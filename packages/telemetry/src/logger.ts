import { type Context, context, createContextKey, trace } from '@opentelemetry/api';
import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

/**
 * Anything that could carry a bearer token. Tokens must never reach a log line, whatever object a
 * caller passes in; pino replaces these paths before serialising.
 */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
];

const LOG_FIELDS = createContextKey('mdp.log_fields');

/**
 * `ctx` with fields every log line written inside it carries (a request's ids): what a child logger per
 * request would add, without building one (a pino child serialises and redacts its bindings when made,
 * for every request, though most requests write no line).
 */
export function withLogFields(ctx: Context, fields: Readonly<Record<string, string>>): Context {
  return ctx.setValue(LOG_FIELDS, fields);
}

/** Structured JSON lines on stdout, one logger per process, tagged with the service name. */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Every line written inside a span carries its trace id, so one request can be followed across
    // services, and the fields of its context (fields the line itself gives win).
    mixin() {
      const active = context.active();
      const fields = active.getValue(LOG_FIELDS) as Record<string, string> | undefined;
      const span = trace.getSpan(active);
      if (!span) return fields ?? {};
      const { traceId, spanId } = span.spanContext();
      return { ...fields, trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
