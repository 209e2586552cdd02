import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, PATIENT_DEADLINES, STACK_SHUTDOWN_MS, type Stack, startStack } from './stack.ts';

const exec = promisify(execFile);
const REALDATA = new URL('../../shared/realdata/filings_text/', import.meta.url).pathname;
let stack: Stack;
let token: string;

beforeAll(async () => {
  // How soon an ingest is served is the question, not the deadlines: a first call to services just
  // started beside the suite may outwait production's 300 ms.
  stack = await startStack(PATIENT_DEADLINES);
  token = (await stack.admin('demo-token', '--plan', 'pro')).split('\n').at(-1)!;
}, 300_000);
afterAll(async () => {
  await stack?.shutdown();
}, STACK_SHUTDOWN_MS);

async function ingest(file: string, period: string, date: string) {
  const schema = stack.schemas.find((s) => s.endsWith('_filings_reader'))!;
  await exec(
    process.execPath,
    [
      '--import',
      'tsx',
      'services/filings-reader/src/cli.ts',
      'ingest',
      'ACME',
      'concall',
      period,
      date,
      `${REALDATA}${file}`,
    ],
    { env: { ...process.env, DATABASE_URL, DB_SCHEMA: schema } },
  );
}

const documents = async () => {
  const res = await fetch(`${stack.baseUrl}/v1/stocks/ACME/documents`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown[] }).data.length;
};

describe('data changes reach the gateway cache', () => {
  it('an ingest is served through the gateway within seconds, not after the cache TTL', async () => {
    const files = ['ACC_Q1FY25_board_outcome_results_2024-07-29.md', 'LT_Q1FY25_press_release_2024-07-24.md'];
    await ingest(files[0]!, 'Q1FY25', '2024-07-25');
    expect(await documents()).toBe(1);
    expect(await documents()).toBe(1); // now kept by the gateway (DATA_CACHE_TTL_MS is 30 s)
    await ingest(files[1]!, 'Q2FY25', '2024-10-25');
    const started = Date.now();
    let count = 1;
    while (count === 1 && Date.now() - started < 15_000) {
      await new Promise((r) => setTimeout(r, 100));
      count = await documents();
    }
    expect(count).toBe(2);
  }, 60_000);
});
