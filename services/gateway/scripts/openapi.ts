// Writes the OpenAPI document generated from the route catalogue to services/gateway/openapi.json, the
// committed copy that readers and client generators use. With --check, fails when the copy has drifted.
import { writeOrCheck } from '../../../scripts/lib/generated-files.ts';
import { buildOpenApi } from '../src/openapi.ts';

const folder = new URL('../', import.meta.url);
const generated = `${JSON.stringify(buildOpenApi(), null, 2)}\n`;

writeOrCheck(folder, [['openapi.json', generated]], {
  stale: () =>
    'services/gateway/openapi.json is out of date with the route catalogue: run `make openapi` and commit it.',
  current: 'openapi.json matches the route catalogue',
  wrote: `wrote ${new URL('openapi.json', folder).pathname}`,
});
