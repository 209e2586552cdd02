import { createHmac, timingSafeEqual } from 'node:crypto';

export type FileKind = 'pdf' | 'md' | 'summary';

/** The path of each public file of a document; not under /v1, never a gateway route, never charged. */
export function filePath(docId: number, kind: FileKind): string {
  return kind === 'summary' ? `/files/${docId}/summary.json` : `/files/${docId}.${kind}`;
}

const PATH = /^\/files\/(\d{1,10})(?:\.(pdf|md)|\/(summary)\.json)$/;

export function parseFilePath(path: string): { docId: number; kind: FileKind } | undefined {
  const m = PATH.exec(path);
  if (!m) return undefined;
  return { docId: Number(m[1]), kind: (m[2] ?? m[3]) as FileKind };
}

/**
 * Signed, expiring links: HMAC-SHA256 over `path\nexp` with a server-side key. A link is unguessable without
 * the key and stops working at `exp` (Unix seconds). Expiry is rounded up to a whole `ttl` bucket so links
 * repeated within a bucket are identical (cacheable) and still live at least `ttl` seconds.
 */
export class LinkSigner {
  private readonly key: Buffer;

  constructor(
    key: string,
    private readonly baseUrl: string,
    private readonly ttlSeconds: number,
    private readonly now: () => number = () => Date.now(),
  ) {
    if (key.length < 16) throw new Error('LINK_SIGNING_KEY must be at least 16 characters');
    this.key = Buffer.from(key, 'utf8');
  }

  private mac(path: string, exp: number): string {
    return createHmac('sha256', this.key).update(`${path}\n${exp}`).digest('base64url');
  }

  expiry(): number {
    const nowS = Math.floor(this.now() / 1000);
    return (Math.floor(nowS / this.ttlSeconds) + 2) * this.ttlSeconds;
  }

  url(docId: number, kind: FileKind, exp = this.expiry()): string {
    const path = filePath(docId, kind);
    return `${this.baseUrl.replace(/\/$/, '')}${path}?exp=${exp}&sig=${this.mac(path, exp)}`;
  }

  links(
    docId: number,
    hasPdf: boolean,
  ): { pdf: string | null; markdown: string; summary: string; expires_at: string } {
    const exp = this.expiry();
    return {
      pdf: hasPdf ? this.url(docId, 'pdf', exp) : null,
      markdown: this.url(docId, 'md', exp),
      summary: this.url(docId, 'summary', exp),
      expires_at: new Date(exp * 1000).toISOString(),
    };
  }

  /** Whole seconds until a link expiring at `exp` (Unix seconds) stops working, by this signer's clock. */
  secondsLeft(exp: number): number {
    return Math.max(0, exp - Math.floor(this.now() / 1000));
  }

  /** 'ok', or why the link is refused. Constant-time comparison of the signature. */
  verify(path: string, exp: string | null, sig: string | null): 'ok' | 'expired' | 'bad_signature' {
    if (!exp || !sig || !/^\d{1,12}$/.test(exp)) return 'bad_signature';
    const expected = Buffer.from(this.mac(path, Number(exp)));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
    if (Number(exp) * 1000 <= this.now()) return 'expired';
    return 'ok';
  }
}
