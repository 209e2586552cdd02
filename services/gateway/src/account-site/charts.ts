import { type Html, html } from './html.ts';

export interface Bar {
  /** In the bar's tooltip and the data table. */
  label: string;
  value: number;
  /** Shown under the bar: a short form of the label (a date as "28 Nov", an hour as "14:00"). */
  tick?: string;
}

/** The bars' own coordinates: stretched to the chart's width, whatever the screen. */
const WIDTH = 600;
/** Pixels, as drawn (and as the stylesheet sizes the chart): the scale above, the plot, the ticks below. */
const HEIGHT = 180;
const TOP = 18;
const AXIS = 24;

/** A percentage of the chart's width, for SVG lengths. */
const pct = (x: number) => `${Math.round(x * 10_000) / 100}%`;

/**
 * A bar chart as inline SVG: no script, no external asset, readable by a screen reader (a title, one
 * tooltip per bar and the same figures as a table). Bars scale to the largest value; all zero draws a
 * flat baseline rather than dividing by zero.
 *
 * Only the bars are drawn in a stretched coordinate system (a nested SVG without its aspect ratio); the
 * scale, the axis and the tick labels are placed by percentages of the chart's width in the outer SVG,
 * which has no viewBox, so text keeps its CSS size on a phone as on a wide screen. The first tick is
 * aligned to its start and the last to its end, so neither is cut off at the chart's edge.
 */
export function barChart(id: string, title: string, bars: Bar[], unit = 'units'): Html {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const n = Math.max(1, bars.length);
  const slot = WIDTH / n;
  const plot = HEIGHT - AXIS - TOP;
  const rects = bars.map((b, i) => {
    const h = Math.round((b.value / max) * plot);
    const x = Math.round(i * slot + slot * 0.1);
    const w = Math.max(1, Math.round(slot * 0.8));
    return html`<rect class="bar" x="${x}" y="${plot - Math.max(h, 1)}" width="${w}" height="${Math.max(h, 1)}"><title>${b.label}: ${b.value} ${unit}</title></rect>`;
  });
  const ticks = bars.map((b, i) => {
    if (b.tick === undefined) return '';
    const [x, anchor] =
      i === bars.length - 1 ? ['100%', 'end'] : i === 0 ? ['0', 'start'] : [pct((i + 0.5) / n), 'middle'];
    return html`<text class="tick" x="${x}" y="${HEIGHT - 6}" text-anchor="${anchor}">${b.tick}</text>`;
  });
  return html`<figure class="chart">
  <svg id="${id}" class="chart" width="100%" height="${HEIGHT}" role="img" aria-labelledby="${id}-title">
    <title id="${id}-title">${title} (largest ${max} ${unit})</title>
    <text class="scale" x="0" y="13">${max}</text>
    <svg class="plot" x="0" y="${TOP}" width="100%" height="${plot}" viewBox="0 0 ${WIDTH} ${plot}" preserveAspectRatio="none">
      ${rects}
    </svg>
    <line class="axis" x1="0" y1="${TOP + plot}" x2="100%" y2="${TOP + plot}"></line>
    ${ticks}
  </svg>
  <figcaption>${title}</figcaption>
  <details><summary>Figures as a table</summary>
    <table><thead><tr><th scope="col">Period</th><th scope="col">${unit}</th></tr></thead>
    <tbody>${bars.map((b) => html`<tr><td>${b.label}</td><td class="num">${b.value}</td></tr>`)}</tbody></table>
  </details>
</figure>`;
}
