import type PDFDocument from 'pdfkit';

/**
 * Table-driven text metrics for pdfkit's standard (AFM) fonts, giving exactly the numbers and glyph codes
 * pdfkit computes, several times faster. pdfkit measures and encodes every word and every line by
 * glyph-name strings (`kernPairs['A\0V']`, rebuilt per call); for the default dataset's 25,000 pages
 * that was most of the time its load took. Here each UTF-16 code unit is looked up once per process,
 * through pdfkit's own AFM methods, and kept as a number; kerning is a Map keyed by two glyph numbers.
 *
 * It replaces `encode` and `widthOfString` on one document's font object only, and only when that
 * object has the shape of pdfkit 0.17's StandardFont; otherwise pdfkit's own code runs (slower, same
 * bytes). pdfkit also parses the font's AFM file again for every document; the parse of a file's text
 * is kept and shared (the parsed tables are only read). test/font-metrics.test.ts renders documents
 * both ways and compares the bytes.
 */

/** What this uses of pdfkit's AFMFont (js/pdfkit.js: AFMFont). */
interface AfmFont {
  attributes: Record<string, unknown>;
  glyphWidths: Record<string, number>;
  kernPairs: Record<string, number>;
  encodeText(text: string): string[];
  characterToGlyph(code: number): string;
}

/** What this replaces of pdfkit's StandardFont. */
interface StandardFontLike {
  font: AfmFont;
  encode(text: string, features?: unknown): [string[], GlyphPosition[]];
  widthOfString(text: string, size: number): number;
}

interface GlyphPosition {
  xAdvance: number;
  yAdvance: number;
  xOffset: number;
  yOffset: number;
  advanceWidth: number;
}

// pdfkit's standard fonts use WinAnsiEncoding: at most 256 glyph names and .notdef.
const MAX_GLYPHS = 512;
/** Words measured, kept across pages and documents (the generated text repeats its words). */
const MAX_KEPT_WIDTHS = 200_000;

/** Per-font tables, shared by every document of the process using that font (the AFM file is constant). */
class Metrics {
  /** Code unit -> glyph number + 1 (0: not seen yet). */
  private readonly glyphOf = new Uint16Array(65_536);
  // Filled to full length: a sparse array written at a code like ’ (8217) would turn into a slow dictionary.
  private readonly hexOf = new Array<string>(65_536).fill('');
  private readonly widths: number[] = [];
  private readonly names: string[] = [];
  private readonly kern = new Map<number, number>();
  /**
   * The position of glyph g followed by glyph n (n = -1: the last glyph) at index g * (MAX_GLYPHS + 1) + n + 1,
   * made once and shared by every line: pdfkit only reads the positions `encode` returns (its justified
   * text copies the one it changes), and there are few distinct pairs but millions of glyphs.
   */
  private readonly positions = new Array<GlyphPosition | undefined>(MAX_GLYPHS * (MAX_GLYPHS + 1)).fill(
    undefined,
  );
  /** Unscaled width of each word measured. */
  private readonly wordWidths = new Map<string, number>();

  constructor(private readonly afm: AfmFont) {}

  private glyph(code: number): number {
    const known = this.glyphOf[code]!;
    if (known !== 0) return known - 1;
    const name = this.afm.characterToGlyph(code);
    let id = this.names.indexOf(name);
    if (id < 0) {
      id = this.names.length;
      if (id >= MAX_GLYPHS) throw new Error(`more than ${MAX_GLYPHS} glyphs in one standard font`);
      this.names.push(name);
      this.widths.push(this.afm.glyphWidths[name] || 0);
      for (let other = 0; other < id; other++) {
        const a = this.afm.kernPairs[`${name}\0${this.names[other]}`];
        if (a) this.kern.set(id * 65_536 + other, a);
        const b = this.afm.kernPairs[`${this.names[other]}\0${name}`];
        if (b) this.kern.set(other * 65_536 + id, b);
      }
      const self = this.afm.kernPairs[`${name}\0${name}`];
      if (self) this.kern.set(id * 65_536 + id, self);
    }
    this.glyphOf[code] = id + 1;
    this.hexOf[code] = this.afm.encodeText(String.fromCharCode(code))[0]!;
    return id;
  }

  /** pdfkit's advancesForGlyphs: the glyph's width plus the kerning with the next glyph. */
  private position(g: number, next: number): GlyphPosition {
    const key = g * (MAX_GLYPHS + 1) + next + 1;
    let pos = this.positions[key];
    if (!pos) {
      const advanceWidth = this.widths[g]!;
      const xAdvance = advanceWidth + (next < 0 ? 0 : (this.kern.get(g * 65_536 + next) ?? 0));
      pos = Object.freeze({ xAdvance, yAdvance: 0, xOffset: 0, yOffset: 0, advanceWidth });
      this.positions[key] = pos;
    }
    return pos;
  }

  width(text: string, size: number): number {
    let width = this.wordWidths.get(text);
    if (width === undefined) {
      width = 0;
      let g = text.length > 0 ? this.glyph(text.charCodeAt(0)) : -1;
      for (let i = 0; i < text.length; i++) {
        const next = i + 1 < text.length ? this.glyph(text.charCodeAt(i + 1)) : -1;
        width += this.position(g, next).xAdvance;
        g = next;
      }
      if (this.wordWidths.size >= MAX_KEPT_WIDTHS) this.wordWidths.clear();
      this.wordWidths.set(text, width);
    }
    return width * (size / 1000);
  }

  encode(text: string): [string[], GlyphPosition[]] {
    const encoded: string[] = new Array(text.length);
    const positions: GlyphPosition[] = new Array(text.length);
    let g = text.length > 0 ? this.glyph(text.charCodeAt(0)) : -1;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const next = i + 1 < text.length ? this.glyph(text.charCodeAt(i + 1)) : -1;
      encoded[i] = this.hexOf[code]!;
      positions[i] = this.position(g, next);
      g = next;
    }
    return [encoded, positions];
  }
}

type AfmTables = Pick<AfmFont, 'attributes' | 'glyphWidths' | 'kernPairs'>;
const PARSES_KEPT = Symbol('mdp: AFM parses kept');

/** Makes AFMFont's `parse` keep each file's tables and hand them to the next font parsing that file. */
function keepAfmParses(afm: AfmFont): void {
  const proto = Object.getPrototypeOf(afm) as {
    parse?: (this: AfmTables, contents: string) => void;
    [PARSES_KEPT]?: true;
  };
  if (typeof proto.parse !== 'function' || proto[PARSES_KEPT]) return;
  const parse = proto.parse;
  const kept = new Map<string, AfmTables>();
  proto.parse = function (contents: string) {
    const tables = kept.get(contents);
    if (!tables) {
      parse.call(this, contents);
      kept.set(contents, {
        attributes: this.attributes,
        glyphWidths: this.glyphWidths,
        kernPairs: this.kernPairs,
      });
      return;
    }
    this.attributes = tables.attributes;
    this.glyphWidths = tables.glyphWidths;
    this.kernPairs = tables.kernPairs;
  };
  proto[PARSES_KEPT] = true;
}

const byAfm = new WeakMap<AfmFont, Metrics>();
/** One AFM parse per font name and process; pdfkit parses the file again for every document. */
const byName = new Map<string, Metrics>();

function isStandardFont(font: unknown): font is StandardFontLike & { name: string } {
  const f = font as Partial<StandardFontLike> & { name?: unknown };
  return (
    typeof f?.name === 'string' &&
    typeof f.encode === 'function' &&
    typeof f.widthOfString === 'function' &&
    typeof f.font?.characterToGlyph === 'function' &&
    typeof f.font.encodeText === 'function' &&
    typeof f.font.glyphWidths === 'object' &&
    typeof f.font.kernPairs === 'object'
  );
}

/** Gives the document's current font the table-driven metrics (call after `doc.font(name)`). */
export function useFastMetrics(doc: PDFKit.PDFDocument | InstanceType<typeof PDFDocument>): void {
  const font = (doc as unknown as { _font?: unknown })._font;
  if (!isStandardFont(font)) return;
  keepAfmParses(font.font);
  let m = byName.get(font.name) ?? byAfm.get(font.font);
  if (!m) {
    m = new Metrics(font.font);
    byName.set(font.name, m);
    byAfm.set(font.font, m);
  }
  const metrics = m;
  font.encode = (text) => metrics.encode(`${text}`);
  font.widthOfString = (text, size) => metrics.width(`${text}`, size);
}
