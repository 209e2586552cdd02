// Writes the OpenAPI document generated from the route catalogue to services/gateway/openapi.json, the
// committed copy that readers and client generators use. With --check, fails when the copy has drifted.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildOpenApi } from '../src/openapi.ts';

const file = new URL('../openapi.json', import.meta.url);
const generated = `${JSON.stringify(buildOpenApi(), null, 2)}\n`;

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {}
  if (committed !== generated) {
    console.error(
      'services/gateway/openapi.json is out of date with the route catalogue: run `make openapi` and commit it.',
    );
    process.exit(1);
  }
  console.log('openapi.json matches the route catalogue');
} else {
  writeFileSync(file, generated);
  console.log(`wrote ${file.pathname}`);
}
