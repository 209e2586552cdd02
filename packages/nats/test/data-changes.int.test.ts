import { createLogger } from '@mdp/telemetry';
import { describe, expect, it } from 'vitest';
import { connectNats, DATA_CHANGED, startDataChangeAnnouncer, subscribeJson } from '../src/index.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://localhost:4222';
const logger = createLogger('data-changes-test', 'silent');

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
