import type { BuildOptions } from 'esbuild';
import { ROOT } from './services.ts';

// ESM output has no `require`; a CommonJS-style call left in bundled code (esbuild's `__require`
// shim) then finds this one instead of throwing "Dynamic require of ... is not supported".
const BANNER = [
  "import { createRequire as __mdpCreateRequire } from 'node:module';",
  'const require = __mdpCreateRequire(import.meta.url);',
].join('\n');

/** How every Node entry point of the project is bundled (services, and the tools in the images). */
export const NODE_BUNDLE_OPTIONS = {
  absWorkingDir: ROOT,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  bundle: true,
  sourcemap: true,
  // Class and function names survive bundling, so logged errors keep their `type`.
  keepNames: true,
  banner: { js: BANNER },
  logLevel: 'warning',
} satisfies BuildOptions;
