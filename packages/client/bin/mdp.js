#!/usr/bin/env node
// `mdp`, the typed client's command line. The published package runs its compiled dist/cli.js (built
// by `prepack`). In this repository nothing has compiled the client when a newcomer types `npx mdp`
// after `make run` (npm links a workspace's bins at install, before any build, and leaves out one whose
// file is missing), so here the TypeScript source beside this file runs through tsx, the workspace's
// own runner: the command always runs the code as checked out, never a stale dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli.js');
}
