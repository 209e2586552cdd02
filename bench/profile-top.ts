// Reads V8 CPU profiles (node --cpu-prof, e.g. from BENCH_PROFILE_DIR) and prints where each process
// spent its samples: by package or project folder, the top functions by self time, and what held its
// event loop for STRETCH_MS or more at a time (bench/profile-stretches.ts).
//   npx tsx bench/profile-top.ts <file.cpuprofile>…
import { readFileSync } from 'node:fs';
import { busyStretches, type ProfileNode, parseCpuProfile, stretchesByWhat } from './profile-stretches.ts';

/** The shortest busy stretch listed: about what a request notices at the 99th percentile. */
const STRETCH_MS = 4;

/** node_modules/<pkg>, a project folder (services/gateway/src), or node's own internals. */
function owner(url: string, functionName: string): string {
  if (!url) return functionName || '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  const own = /\/((?:services|packages)\/[^/]+)\//.exec(url);
  return own ? own[1]! : url;
}

for (const file of process.argv.slice(2)) {
  let profile: ReturnType<typeof parseCpuProfile>;
  try {
    profile = parseCpuProfile(readFileSync(file, 'utf8'), file);
  } catch (err) {
    console.error(`profile-top: ${(err as Error).message}`);
    process.exit(2);
  }
  // Shares are of the time the process was busy: idle samples are left out.
  const busy = (n: ProfileNode) => n.callFrame.functionName !== '(idle)';
  const total = profile.nodes.filter(busy).reduce((sum, n) => sum + (n.hitCount ?? 0), 0);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    if (hits === 0 || !busy(n)) continue;
    const { functionName, url, lineNumber } = n.callFrame;
    const who = owner(url, functionName);
    byOwner.set(who, (byOwner.get(who) ?? 0) + hits);
    const key = `${functionName || '(anonymous)'}  ${url.replace(/^.*\/(node_modules|services|packages)\//, '$1/')}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + hits);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  console.log(
    `\n${file}: ${total} samples\n by owner:\n${top(byOwner, 15)}\n top functions (self):\n${top(byFunction, 25)}`,
  );
  const held = busyStretches(profile, STRETCH_MS);
  console.log(` busy stretches of ${STRETCH_MS} ms or more: ${held.length}, by what held most of each`);
  for (const h of stretchesByWhat(held).slice(0, 12))
    console.log(
      `  ${String(h.count).padStart(5)}  longest ${h.longestMs.toFixed(1).padStart(7)} ms  ${h.what}`,
    );
}
