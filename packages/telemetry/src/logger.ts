import { context, trace } from '@opentelemetry/api';
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

/** Structured JSON lines on stdout, one logger per process, tagged with the service name. */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // Every line written inside a span carries its trace id, so one request can be followed across services.
    mixin() {
      const span = trace.getSpan(context.active());
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
