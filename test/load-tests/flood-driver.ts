// One process sending as many requests with forged tokens as it can (autocannon, `connections` at
// once, a new token each request) for `seconds`, then printing one JSON line: how many were sent, their
// statuses, and how many answers a flood must never get (load-tests/lib/flood.js). Run by
// test/auth-flood.int.test.ts as a child, so the flood's own CPU is not the test process's.
//
//   node --import tsx test/load-tests/flood-driver.ts <url> <tagged|legacy|checksum|mixed> <connections> <seconds>
import autocannon from 'autocannon';
import { floodAnswerIsExpected, floodToken } from '../../load-tests/lib/flood.js';

const [url, kind, connections, seconds] = process.argv.slice(2);
if (!url || !kind || !connections || !seconds) {
  process.stderr.write('usage: flood-driver.ts <url> <kind> <connections> <seconds>\n');
  process.exit(2);
}
floodToken(kind as never);

const statuses: Record<string, number> = {};
let unexpected = 0;
let sent = 0;
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  requests: [
    {
      method: 'GET',
      setupRequest: (req) => ({
        ...req,
        headers: { ...req.headers, authorization: `Bearer ${floodToken(kind as never, sent++)}` },
      }),
      onResponse: (status, body, _context, headers) => {
        statuses[status] = (statuses[status] ?? 0) + 1;
        let code: string | undefined;
        try {
          code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
        } catch {}
        const retryAfter = Number((headers as Record<string, string> | undefined)?.['retry-after']) >= 1;
        if (!floodAnswerIsExpected(status, code, retryAfter)) unexpected++;
      },
    },
  ],
});
process.stdout.write(
  `${JSON.stringify({ requests: result.requests.total, errors: result.errors, statuses, unexpected, seconds: Number(seconds) })}\n`,
);
