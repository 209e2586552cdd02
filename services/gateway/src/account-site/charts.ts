import { type Html, html } from './html.ts';

export interface Bar {
  /** Shown under the bar when `tick` is set, and in the bar's tooltip and the data table always. */
  label: string;
  value: number;
  tick?: boolean;
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 20;
const TOP = 14;

/**
 * A bar chart as inline SVG: no script, no external asset, readable by a screen reader (a title, one
 * tooltip per bar and the same figures as a table). Bars scale to the largest value; all zero draws a
 * flat baseline rather than dividing by zero.
 */
export function barChart(id: string, title: string, bars: Bar[], unit = 'units'): Html {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const slot = WIDTH / Math.max(1, bars.length);
  const plot = HEIGHT - AXIS - TOP;
  const rects = bars.map((b, i) => {
    const h = Math.round((b.value / max) * plot);
    const x = Math.round(i * slot + slot * 0.1);
    const w = Math.max(1, Math.round(slot * 0.8));
    return html`<rect class="bar" x="${x}" y="${TOP + plot - h}" width="${w}" height="${Math.max(h, 1)}"><title>${b.label}: ${b.value} ${unit}</title></rect>${
      b.tick
        ? html`<text class="tick" x="${Math.round(i * slot + slot / 2)}" y="${HEIGHT - 5}" text-anchor="middle">${b.label}</text>`
        : ''
    }`;
  });
  return html`<figure class="chart">
  <svg id="${id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title">
    <title id="${id}-title">${title} (largest ${max} ${unit})</title>
    <text class="scale" x="0" y="10">${max}</text>
    <line class="axis" x1="0" y1="${TOP + plot}" x2="${WIDTH}" y2="${TOP + plot}"></line>
    ${rects}
  </svg>
  <figcaption>${title}</figcaption>
  <details><summary>Figures as a table</summary>
    <table><thead><tr><th scope="col">Period</th><th scope="col">${unit}</th></tr></thead>
    <tbody>${bars.map((b) => html`<tr><td>${b.label}</td><td class="num">${b.value}</td></tr>`)}</tbody></table>
  </details>
</figure>`;
}
