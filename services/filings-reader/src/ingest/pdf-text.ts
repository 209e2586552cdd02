/** Why a PDF cannot be ingested; the message is meant for the operator running the ingest. */
export class DocumentRejected extends Error {
  constructor(
    readonly reason: 'empty' | 'corrupt' | 'encrypted' | 'no_text' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'DocumentRejected';
  }
}

interface TextItemLike {
  str: string;
  hasEOL: boolean;
  transform: number[];
}

/** Tidies one page: NUL and control characters out, runs of blanks collapsed, blank lines limited to one. */
export function tidyPageText(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/g, '')
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
      // A marker look-alike inside the text would break page addressing.
      .replace(/<!--/g, '<! --')
  );
}

function pageTextFromItems(items: TextItemLike[]): string {
  let out = '';
  let lastY: number | undefined;
  for (const it of items) {
    const y = it.transform[5];
    // pdfjs does not always flag the end of a line; a change of baseline is one too.
    if (lastY !== undefined && y !== undefined && Math.abs(y - lastY) > 2 && !out.endsWith('\n')) out += '\n';
    out += it.str;
    if (it.hasEOL && !out.endsWith('\n')) out += '\n';
    if (y !== undefined) lastY = y;
  }
  return tidyPageText(out);
}

/**
 * Text of every page of a PDF, in page order. Refuses, with a reason, what cannot be read: not a PDF,
 * a damaged file, one that needs a password, or one with no text layer at all (scans; no OCR here).
 */
export async function extractPdfPages(bytes: Uint8Array): Promise<string[]> {
  if (bytes.length === 0) throw new DocumentRejected('empty', 'the file is empty (0 bytes)');
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (!head.includes('%PDF-')) throw new DocumentRejected('corrupt', 'not a PDF: no %PDF- header');
  // Loaded here, not at the top: pdfjs' legacy build replaces Array.prototype.push (and more) with
  // core-js polyfills for the whole process, which made every push of the default dataset's generator
  // slower; only a process that really reads a PDF pays for it.
  const { getDocument, PasswordResponses } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdfjs takes ownership of (detaches) the buffer it is given; keep the caller's bytes intact.
  const data = new Uint8Array(bytes);
  const task = getDocument({
    data,
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
    stopAtErrors: true,
  });
  task.onPassword = (_update: unknown, reason: number) => {
    const why = reason === PasswordResponses.INCORRECT_PASSWORD ? 'incorrect password' : 'password required';
    void task.destroy();
    passwordError = new DocumentRejected('encrypted', `the PDF is encrypted (${why}); decrypt it first`);
  };
  let passwordError: DocumentRejected | undefined;
  let doc: Awaited<typeof task.promise>;
  try {
    doc = await task.promise;
  } catch (err) {
    if (passwordError) throw passwordError;
    const name = (err as Error).name;
    if (name === 'PasswordException')
      throw new DocumentRejected('encrypted', 'the PDF is encrypted (password required); decrypt it first');
    throw new DocumentRejected(
      'corrupt',
      `the PDF is damaged and cannot be parsed: ${(err as Error).message}`,
    );
  }
  try {
    if (doc.numPages === 0) throw new DocumentRejected('empty', 'the PDF has no pages');
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      let text: string;
      try {
        const page = await doc.getPage(n);
        const content = await page.getTextContent();
        text = pageTextFromItems(content.items.filter((i) => 'str' in i) as unknown as TextItemLike[]);
        page.cleanup();
      } catch (err) {
        if (err instanceof DocumentRejected) throw err;
        throw new DocumentRejected(
          'corrupt',
          `page ${n} of the PDF cannot be read: ${(err as Error).message}`,
        );
      }
      pages.push(text);
    }
    if (pages.every((p) => p.length === 0))
      throw new DocumentRejected(
        'no_text',
        'the PDF has no text layer (scanned images?); OCR is not supported',
      );
    return pages;
  } finally {
    await doc.destroy();
  }
}
