// `mdp`: the client on the command line. The token comes from MDP_TOKEN, the address from MDP_BASE_URL
// (default http://localhost:8080). Exit codes: 0 done, 1 the API refused or failed, 2 a usage error.
import { parseArgs } from 'node:util';
import { MdpClient } from './client.ts';
import { MdpError } from './errors.ts';
import type { components } from './generated/openapi.ts';
import { pricePages } from './helpers.ts';

const USAGE = `usage: mdp <command> [options]

  quote <symbol>                       latest quote (JSON)
  price <symbol> [--days N] [--csv]    daily bars of the last N calendar days (default 365; more than
                                       2,000 follows the pages), oldest first; --csv for date,open,high,low,close,volume
  usage                                this token's plan and usage today and this month (free)

Environment: MDP_TOKEN (required), MDP_BASE_URL (default http://localhost:8080).`;

class UsageError extends Error {}

type PriceBar = components['schemas']['PriceBar'];

const DAY_MS = 86_400_000;

/** Bars of the `days` calendar days up to the last session, oldest first, over as many pages as needed. */
async function lastDays(client: MdpClient, symbol: string, days: number) {
  const pages: PriceBar[][] = [];
  let start: string | undefined;
  for await (const page of pricePages(client, { symbol, days: Math.min(days, 2000) })) {
    const window = page.meta.window as { from: string; to: string };
    start ??= new Date(Date.parse(window.to) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
    // Daily pages hold daily bars (weekly ones are asked for by `interval=weekly`, never here).
    pages.unshift(page.data as PriceBar[]);
    if (window.from <= start) break;
  }
  return pages.flat().filter((bar) => start === undefined || bar.date >= start);
}

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  const parse = () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      options: { days: { type: 'string' }, csv: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  try {
    parsed = parse();
    if (parsed.values.help) {
      out(USAGE);
      return 0;
    }
    const [command, symbol, ...extra] = parsed.positionals;
    if (!command) throw new UsageError('no command given');
    if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
    if (!env.MDP_TOKEN) throw new UsageError('set MDP_TOKEN to your API token');
    const client = new MdpClient({
      token: env.MDP_TOKEN,
      ...(env.MDP_BASE_URL ? { baseUrl: env.MDP_BASE_URL } : {}),
    });
    const needSymbol = () => {
      if (!symbol) throw new UsageError(`${command} needs a symbol`);
      return symbol;
    };
    switch (command) {
      case 'quote':
        out(JSON.stringify((await client.getStockQuote({ symbol: needSymbol() })).data, null, 2));
        return 0;
      case 'usage':
        out(JSON.stringify((await client.getMyUsage()).data, null, 2));
        return 0;
      case 'price': {
        const days = parsed.values.days ?? '365';
        if (!/^[1-9]\d{0,5}$/.test(days))
          throw new UsageError(`--days must be a whole number of at least 1, not "${days}"`);
        const wanted = await lastDays(client, needSymbol(), Number(days));
        if (parsed.values.csv) {
          out('date,open,high,low,close,volume');
          for (const b of wanted) out(`${b.date},${b.open},${b.high},${b.low},${b.close},${b.volume}`);
        } else out(JSON.stringify(wanted, null, 2));
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      process.stderr.write(`mdp: ${(err as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof MdpError) {
      const param = err.param ? ` (${err.param})` : '';
      process.stderr.write(
        `mdp: ${err.code}${param}: ${err.message}${err.requestId ? ` [request ${err.requestId}]` : ''}\n`,
      );
      return 1;
    }
    throw err;
  }
}
