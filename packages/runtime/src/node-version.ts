// The Node line the platform runs on, written once: the repository's package.json `engines.node`, which
// npm reads, scripts/node.sh reads (to pick or fetch the Node every make target runs on) and this module
// reads (bundled into dist/ by esbuild, so an image needs no package.json at run time).
import rootPackage from '../../../package.json' with { type: 'json' };

/** The supported Node versions, as package.json states them: `>=24.11.0 <25`. */
export const SUPPORTED_NODE: string = rootPackage.engines.node;

const RANGE = /^>=(\d+)\.(\d+)\.(\d+) <(\d+)$/;
const VERSION = /^v?(\d+)\.(\d+)\.(\d+)$/;

/**
 * Why Node `version` (`24.21.0` or `v24.21.0`, as `process.versions.node` or `node --version` say it) is
 * outside `range`, or undefined when it is inside. The range has the one form scripts/node.sh also reads,
 * `>=MAJOR.MINOR.PATCH <NEXT_MAJOR`; anything else is a mistake in package.json and throws.
 */
export function unsupportedNode(version: string, range: string = SUPPORTED_NODE): string | undefined {
  const r = RANGE.exec(range);
  if (!r) throw new Error(`package.json engines.node is '${range}'; the form read is '>=24.11.0 <25'`);
  const [min, below] = [r.slice(1, 4).map(Number), Number(r[4])];
  const v = VERSION.exec(version)?.slice(1, 4).map(Number);
  const shown = version.startsWith('v') ? version : `v${version}`;
  if (!v) return `Node ${shown} is not a version this platform can read (supported: Node ${range})`;
  let atLeastMin = true;
  for (let i = 0; i < 3; i++) {
    if (v[i]! !== min[i]!) {
      atLeastMin = v[i]! > min[i]!;
      break;
    }
  }
  if (atLeastMin && v[0]! < below) return undefined;
  return `Node ${shown} is not supported (supported: Node ${range})`;
}

/**
 * Refuses to run on an unsupported Node: one line on stderr naming the running version and the supported
 * range, then exit code 78 (EX_CONFIG), before any configuration is read. Every service (`bootstrap`) and
 * every service's tool (`runServiceCli`) starts with it.
 */
export function assertSupportedNode(name: string, version: string = process.versions.node): void {
  const why = unsupportedNode(version);
  if (why === undefined) return;
  process.stderr.write(
    `${name}: refusing to start: ${why}; make run and make test run on a supported one (scripts/node.sh)\n`,
  );
  process.exit(78);
}
