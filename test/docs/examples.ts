import { readdirSync, readFileSync } from 'node:fs';

/** The README (the front door) and the pages it leads to, one per reader (docs/*.md). */
export const DOC_PAGES = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** The guides whose examples a new user types as written. */
export const GUIDES = [...DOC_PAGES, 'load-tests/README.md', 'charts/README.md', 'deploy/README.md'];

export interface CurlExample {
  guide: string;
  line: number;
  /** The command as written, its trailing comment removed. */
  command: string;
  /** The status the guide says it answers (`# 401 …` after the command), else 200. */
  expectedStatus: number;
}

/** Every one-line `curl` command inside a fenced code block of a guide. */
export function curlExamples(guide: string): CurlExample[] {
  const out: CurlExample[] = [];
  let fenced = false;
  readFileSync(guide, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*```/.test(text)) {
        fenced = !fenced;
        return;
      }
      const m = fenced ? /^\s*(?:\$\s+)?(curl\s.*?)(?:\s+#\s*(.*))?$/.exec(text) : null;
      if (!m) return;
      const status = /^(\d{3})\b/.exec(m[2] ?? '');
      out.push({ guide, line: i + 1, command: m[1]!, expectedStatus: status ? Number(status[1]) : 200 });
    });
  return out;
}

/** A line of a guide that runs the typed client's command line (`npx mdp …`), as written. */
export interface MdpExample {
  guide: string;
  line: number;
  /** The command as written, its trailing comment removed. */
  command: string;
}

/** Every `npx mdp` line inside a fenced code block of a guide. */
export function mdpExamples(guide: string): MdpExample[] {
  const out: MdpExample[] = [];
  let fenced = false;
  readFileSync(guide, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (/^\s*```/.test(text)) {
        fenced = !fenced;
        return;
      }
      const m = fenced ? /^\s*(?:\$\s+)?(npx mdp\s.*?)(?:\s+#.*)?$/.exec(text) : null;
      if (m) out.push({ guide, line: i + 1, command: m[1]! });
    });
  return out;
}

/** A Python example of a guide: a fenced ```python block, or a `python3 -m mdp_client` line. */
export interface PythonExample {
  guide: string;
  line: number;
  /** The program (a block) or the command as written, its trailing comment removed (a line). */
  source: string;
  kind: 'program' | 'command';
}

/** Every ```python block and every `python3 -m mdp_client` line inside a fenced block of a guide. */
export function pythonExamples(guide: string): PythonExample[] {
  const out: PythonExample[] = [];
  let fence: string | null = null;
  let block: { line: number; lines: string[] } | null = null;
  readFileSync(guide, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const open = /^\s*```(\w*)/.exec(text);
      if (open) {
        if (fence === null) {
          fence = open[1] ?? '';
          if (fence === 'python') block = { line: i + 2, lines: [] };
        } else {
          if (block) out.push({ guide, line: block.line, source: block.lines.join('\n'), kind: 'program' });
          fence = null;
          block = null;
        }
        return;
      }
      if (block) {
        block.lines.push(text);
        return;
      }
      const m = fence !== null ? /^\s*(?:\$\s+)?(python3 -m mdp_client\s.*?)(?:\s+#.*)?$/.exec(text) : null;
      if (m) out.push({ guide, line: i + 1, source: m[1]!, kind: 'command' });
    });
  return out;
}
