import { Writable } from 'node:stream';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger, withLogFields } from './logger.ts';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    'test',
    'info',
    new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  return { logger, lines };
}

describe('log fields from the context', () => {
  it('every line written inside the context carries its fields, across awaits', async () => {
    const { logger, lines } = capture();
    await context.with(withLogFields(ROOT_CONTEXT, { reqId: 'r-1', correlationId: 'c-1' }), async () => {
      logger.info('first');
      await new Promise((r) => setTimeout(r, 1));
      logger.warn({ code: 'x' }, 'second');
    });
    logger.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'first', reqId: 'r-1', correlationId: 'c-1' });
    expect(lines[1]).toMatchObject({ msg: 'second', reqId: 'r-1', code: 'x' });
    expect(lines[2]).not.toHaveProperty('reqId');
  });

  it("a line's own fields win over the context's, and tokens stay redacted", () => {
    const { logger, lines } = capture();
    context.with(withLogFields(ROOT_CONTEXT, { reqId: 'from-context' }), () => {
      logger.info({ reqId: 'given', token: 'mdp_secret' }, 'line');
    });
    expect(lines[0]).toMatchObject({ reqId: 'given', token: '[redacted]' });
  });
});
