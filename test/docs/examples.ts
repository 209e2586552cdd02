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

/** A fenced code block of a guide: its info string's first word, the line number of its first line, its lines. */
interface CodeBlock {
  lang: string;
  line: number;
  lines: string[];
  /** False for a fence never closed, which runs to the end of the guide (as Markdown reads it). */
  closed: boolean;
}

/** Every fenced code block of a guide, in order. */
function codeBlocks(guide: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  let block: CodeBlock | null = null;
  readFileSync(guide, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const fence = /^\s*```(\w*)/.exec(text);
      if (!fence) block?.lines.push(text);
      else if (block) {
        out.push({ ...block, closed: true });
        block = null;
      } else block = { lang: fence[1]!, line: i + 2, lines: [], closed: false };
    });
  if (block) out.push(block);
  return out;
}

/** The lines of `blocks` that `command` matches, each with its line number in the guide. */
function commandLines(blocks: CodeBlock[], command: RegExp): { line: number; match: RegExpExecArray }[] {
  return blocks.flatMap((b) =>
    b.lines.flatMap((text, j) => {
      const match = command.exec(text);
      return match ? [{ line: b.line + j, match }] : [];
    }),
  );
}

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
  return commandLines(codeBlocks(guide), /^\s*(?:\$\s+)?(curl\s.*?)(?:\s+#\s*(.*))?$/).map(
    ({ line, match }) => {
      const status = /^(\d{3})\b/.exec(match[2] ?? '');
      return { guide, line, command: match[1]!, expectedStatus: status ? Number(status[1]) : 200 };
    },
  );
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
  return commandLines(codeBlocks(guide), /^\s*(?:\$\s+)?(npx mdp\s.*?)(?:\s+#.*)?$/).map(
    ({ line, match }) => ({
      guide,
      line,
      command: match[1]!,
    }),
  );
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
  // A ```python block never closed is cut off: no program.
  return codeBlocks(guide).flatMap((b): PythonExample[] =>
    b.lang === 'python'
      ? b.closed
        ? [{ guide, line: b.line, source: b.lines.join('\n'), kind: 'program' }]
        : []
      : commandLines([b], /^\s*(?:\$\s+)?(python3 -m mdp_client\s.*?)(?:\s+#.*)?$/).map(
          ({ line, match }) => ({
            guide,
            line,
            source: match[1]!,
            kind: 'command',
          }),
        ),
  );
}
