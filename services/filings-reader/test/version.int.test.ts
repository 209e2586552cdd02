/**
 * The documents' version, which the service's change probe reads once a second to tell the gateways
 * their cached filings are stale: it moves with every change to the documents, whoever makes it, and
 * only then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilingsStore } from '../src/store.ts';
import { freshSchema } from './helpers.ts';

let env: Awaited<ReturnType<typeof freshSchema>>;
let store: FilingsStore;

beforeAll(async () => {
  env = await freshSchema('fr_version');
  store = new FilingsStore(env.pool);
});
afterAll(async () => {
  await env.drop();
});

const filing = (symbol: string, text: string) => ({
  symbol,
  docType: 'concall',
  period: 'Q2FY26',
  date: '2025-11-05',
  content: { markdown: ['### Page 1', text, '### Page 2', 'Questions and answers'].join('\n') },
});

describe('the documents version (the change probe)', () => {
  it('moves when a filing is ingested, not when the same one is ingested again', async () => {
    const before = await store.version();
    const first = await store.ingest(filing('ALPHA', 'Revenue up 12%'));
    expect(first.created).toBe(true);
    const afterOne = await store.version();
    expect(afterOne).not.toBe(before);

    expect((await store.ingest(filing('ALPHA', 'Revenue up 12%'))).created).toBe(false);
    expect(await store.version()).toBe(afterOne);

    await store.ingest(filing('BETA', 'Margins held'));
    expect(await store.version()).not.toBe(afterOne);
  });

  it('moves when documents are changed or removed by hand', async () => {
    const { docId } = await store.ingest(filing('GAMMA', 'Order book at a high'));
    const before = await store.version();
    await env.pool.query("UPDATE documents SET title = 'Q2 call' WHERE doc_id = $1", [docId]);
    const updated = await store.version();
    expect(updated).not.toBe(before);
    await env.pool.query('DELETE FROM documents WHERE doc_id = $1', [docId]);
    const deleted = await store.version();
    expect(deleted).not.toBe(updated);
    await env.pool.query('TRUNCATE documents');
    expect(await store.version()).not.toBe(deleted);
  });

  it('does not move when nothing changed', async () => {
    const before = await store.version();
    await env.pool.query("UPDATE documents SET title = title WHERE symbol = 'NOSUCH'");
    expect(await store.version()).toBe(before);
  });
});
