#!/usr/bin/env node
import { main } from './command-line.ts';

process.exitCode = await main(process.argv.slice(2), process.env, (line) =>
  process.stdout.write(`${line}\n`),
);
