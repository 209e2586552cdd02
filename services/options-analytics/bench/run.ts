// The options service's bench: IV solves per second of the solver on one core, then the latency of the
// chain route (and the other two) over gRPC. `npx tsx services/options-analytics/bench/run.ts`
import { benchRoutes } from './chain-route.ts';
import { benchChainAnalytics, benchSolver } from './iv-solver.ts';

console.log('Black-76 implied volatility on one core (1,000,000 options a batch)\n');
for (const line of benchSolver()) console.log(line);
console.log(`\n${benchChainAnalytics()}`);
console.log('\noptions-analytics over gRPC on loopback, the service in its own process\n');
for (const line of await benchRoutes()) console.log(line);
