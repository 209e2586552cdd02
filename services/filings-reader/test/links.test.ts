import { describe, expect, it } from 'vitest';
import { filePath, LinkSigner, parseFilePath } from '../src/links.ts';

describe('LinkSigner', () => {
  const at = Date.parse('2026-01-01T00:00:00Z');
  const signer = new LinkSigner('unit-test-key-0123456789', 'https://files.example.com/', 3600, () => at);

  it('signs path and expiry; the link lives at least the TTL and is stable within a bucket', () => {
    const u = new URL(signer.url(7, 'pdf'));
    expect(u.origin + u.pathname).toBe('https://files.example.com/files/7.pdf');
    const exp = Number(u.searchParams.get('exp'));
    expect(exp * 1000 - at).toBeGreaterThanOrEqual(3600_000);
    expect(signer.url(7, 'pdf')).toBe(u.toString());
    expect(signer.verify('/files/7.pdf', u.searchParams.get('exp'), u.searchParams.get('sig'))).toBe('ok');
    expect(signer.verify('/files/8.pdf', u.searchParams.get('exp'), u.searchParams.get('sig'))).toBe(
      'bad_signature',
    );
    expect(signer.verify('/files/7.md', u.searchParams.get('exp'), u.searchParams.get('sig'))).toBe(
      'bad_signature',
    );
    expect(signer.verify('/files/7.pdf', String(exp + 1), u.searchParams.get('sig'))).toBe('bad_signature');
    const other = new LinkSigner('another-key-0123456789', 'https://files.example.com', 3600, () => at);
    expect(other.verify('/files/7.pdf', u.searchParams.get('exp'), u.searchParams.get('sig'))).toBe(
      'bad_signature',
    );
    const later = new LinkSigner(
      'unit-test-key-0123456789',
      'https://files.example.com',
      3600,
      () => exp * 1000,
    );
    expect(later.verify('/files/7.pdf', u.searchParams.get('exp'), u.searchParams.get('sig'))).toBe(
      'expired',
    );
  });

  it("says how long a link has left by the signer's clock, never below 0", () => {
    const exp = signer.expiry();
    expect(signer.secondsLeft(exp)).toBe(exp - at / 1000);
    const after = new LinkSigner('unit-test-key-0123456789', 'http://x', 3600, () => (exp + 5) * 1000);
    expect(after.secondsLeft(exp)).toBe(0);
  });

  it('refuses short keys', () => {
    expect(() => new LinkSigner('short', 'http://x', 60)).toThrow(/at least 16/);
  });

  it('maps the three file paths both ways', () => {
    for (const kind of ['pdf', 'md', 'summary'] as const)
      expect(parseFilePath(filePath(12, kind))).toEqual({ docId: 12, kind });
    expect(parseFilePath('/files/12.exe')).toBeUndefined();
    expect(parseFilePath('/v1/files/12.pdf')).toBeUndefined();
  });
});
