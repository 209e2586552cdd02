/**
 * The site's own assets, served from /account/assets/ with a content hash in their names so they can be
 * cached for a year. Kept as strings so the bundled gateway needs no files beside it.
 */
import { createHash } from 'node:crypto';

const SITE_CSS = `
:root { color-scheme: light; --ink: #1a1a1a; --muted: #4d4d4d; --line: #c8c8c8; --accent: #0b57d0;
  --bad: #a50e0e; --good: #0d652d; --bg: #ffffff; --panel: #f4f6f8; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px 8px; z-index: 1; }
header.site { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: center; padding: 12px 16px; border-bottom: 1px solid var(--line); }
header.site .brand { font-weight: 700; margin-right: auto; color: var(--ink); text-decoration: none; }
header.site nav { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
header.site form { display: inline; margin: 0; }
main { max-width: 960px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.6rem; margin: 8px 0 16px; }
h2 { font-size: 1.2rem; margin: 28px 0 8px; }
form.card, section.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 16px; max-width: 480px; }
section.card { max-width: none; margin-bottom: 16px; }
label { display: block; font-weight: 600; margin-top: 12px; }
.hint { color: var(--muted); font-size: 0.9rem; margin: 2px 0 0; }
input[type=email], input[type=password], input[type=text], input[type=date] { width: 100%; font: inherit; padding: 8px; border: 1px solid #767676; border-radius: 4px; background: #fff; color: var(--ink); }
input[aria-invalid=true] { border-color: var(--bad); border-width: 2px; }
.field-error { color: var(--bad); font-weight: 600; margin: 4px 0 0; }
.notice { border-left: 4px solid var(--accent); background: #e8f0fe; padding: 8px 12px; margin: 0 0 16px; }
.notice.bad { border-color: var(--bad); background: #fce8e6; }
.notice.good { border-color: var(--good); background: #e6f4ea; }
/* The hidden attribute wins over any display a rule below gives: the Copy button stays out of sight (and out of reach)
   until its script has made it work. */
[hidden] { display: none !important; }
button, .button { font: inherit; font-weight: 600; padding: 8px 16px; margin-top: 16px; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); margin-top: 0; padding: 4px 10px; }
header.site button { margin-top: 0; padding: 4px 10px; }
/* The containing block of what it holds, so nothing positioned inside (a visually hidden header) can
   reach past it and widen the page. */
.table-wrap { overflow-x: auto; position: relative; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
/* A table of records (the tokens) on a narrow screen: one card a row, each cell labelled, nothing to
   scroll sideways to. */
@media (max-width: 640px) {
  table.stack thead { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip-path: inset(50%); }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
  table.stack tr { border-bottom: 1px solid var(--line); padding: 8px 0; }
  table.stack td { display: grid; grid-template-columns: 7.5em minmax(0, 1fr); gap: 8px; border: 0; padding: 2px 0; overflow-wrap: anywhere; }
  table.stack td::before { content: attr(data-label); color: var(--muted); }
  table.stack td.action { display: block; padding-top: 6px; }
  table.stack td.action::before { content: none; }
}
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, .token { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.token-box { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.token-box input { flex: 1 1 320px; min-width: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.token-box button { margin-top: 0; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; }
.stat { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
.stat dt { color: var(--muted); font-size: 0.9rem; }
.stat dd { margin: 0 0 6px; font-size: 1.1rem; font-weight: 600; }
figure.chart { margin: 8px 0 20px; }
/* Labels are drawn at their CSS size at every width: only the bars' own box is scaled (charts.ts). */
figure.chart svg.chart { display: block; width: 100%; height: 180px; }
figure.chart .bar { fill: var(--accent); }
figure.chart .axis { stroke: var(--muted); }
figure.chart text { font-size: 12px; fill: var(--muted); }
pre.example { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 8px 12px; margin: 8px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
figcaption { color: var(--muted); font-size: 0.9rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; border: 0; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
header.site nav span { overflow-wrap: anywhere; }
`;

/**
 * Progressive enhancement only: without it the token is still shown, selected, in a read-only field. A
 * clipboard write that has not settled in 2 s (a permission prompt left open) is given up: the field is
 * selected and the person told how to copy it.
 */
const COPY_JS = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const field = document.getElementById(button.dataset.copy);
    const status = document.getElementById(button.dataset.copy + '-status');
    try {
      await Promise.race([
        navigator.clipboard.writeText(field.value),
        new Promise((_, reject) => setTimeout(() => reject(new Error('no answer')), 2000)),
      ]);
      status.textContent = 'Copied to the clipboard.';
    } catch {
      field.select();
      status.textContent = 'Press Ctrl+C (or Cmd+C) to copy.';
    }
  });
}
`;

/** The site's icon (a bar chart on the accent colour), linked from every page and from /docs. */
const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b57d0"/><path d="M8 25V17M14 25V10M20 25V14M26 25V7" stroke="#fff" stroke-width="4" stroke-linecap="round"/></svg>
`;

export interface Asset {
  path: string;
  type: string;
  body: string;
}

function asset(name: string, ext: string, type: string, body: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return { path: `/account/assets/${name}.${hash}.${ext}`, type, body };
}

export const ASSETS = {
  css: asset('site', 'css', 'text/css; charset=utf-8', SITE_CSS),
  copyJs: asset('copy', 'js', 'text/javascript; charset=utf-8', COPY_JS),
  favicon: asset('icon', 'svg', 'image/svg+xml', FAVICON_SVG),
};
