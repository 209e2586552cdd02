import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { CPU_LOG, cpuSeconds } from './file-cpu-log.ts';

// Setup file of the int and platform projects: appends what each test file cost in CPU (the worker's
// and that of the processes the file started and waited for) to .local/test-cpu.jsonl.

const ROOT = dirname(dirname(CPU_LOG));
const now = () => cpuSeconds(readFileSync('/proc/self/stat', 'utf8'));
let start: { self: number; children: number; at: number } | undefined;

beforeAll(() => {
  start = { ...now(), at: Date.now() };
});

// Registered before the file's own hooks, so it runs after them: a stack the file stops is counted.
afterAll(() => {
  const file = expect.getState().testPath;
  if (!start || !file) return;
  const end = now();
  mkdirSync(dirname(CPU_LOG), { recursive: true });
  const round = (s: number) => Math.round(s * 100) / 100;
  appendFileSync(
    CPU_LOG,
    `${JSON.stringify({
      file: relative(ROOT, file),
      self: round(end.self - start.self),
      children: round(end.children - start.children),
      wall: round((Date.now() - start.at) / 1000),
    })}\n`,
  );
});
