import { createLogger } from '@mdp/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateServer, startPrivateNats } from '../../../test/private-infra.ts';
import { connectNats, DATA_CHANGED, startDataChangeAnnouncer, subscribeJson } from '../src/index.ts';

const logger = createLogger('data-changes-test', 'silent');
// A NATS server of its own: data.changed.<service> is one subject for every stack on the machine's
// NATS, and another test's filings service announcing its ingest was counted here.
let nats: PrivateServer;
let NATS_URL: string;
beforeAll(async () => {
  nats = await startPrivateNats();
  NATS_URL = nats.url;
}, 60_000);
afterAll(async () => {
  await nats?.cleanup();
});

describe('data-change announcements', () => {
  it('announce each change the probe sees, once, and nothing while it stays the same', async () => {
    const nc = await connectNats({ url: NATS_URL, name: 'listener', logger });
    const seen: unknown[] = [];
    subscribeJson(nc, `${DATA_CHANGED}.filings`, (e) => seen.push(e), logger);
    await nc.flush();
    let version = 1;
    const announcer = startDataChangeAnnouncer({
      url: NATS_URL,
      service: 'filings',
      logger,
      probe: async () => version,
      intervalMs: 20,
    });
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(seen).toHaveLength(0);
      version = 2;
      for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ service: 'filings' });
    } finally {
      await announcer.close();
      await nc.drain();
    }
  });

  it('a service starts and announces nothing, without failing, when NATS is not there', async () => {
    const announcer = startDataChangeAnnouncer({ url: 'nats://127.0.0.1:1', service: 'equities', logger });
    announcer.announce();
    await announcer.close();
  });
});
