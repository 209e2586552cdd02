/** Types of flood.js for the Node tests (k6 reads the JavaScript directly). */
export function crc32(text: string): number;
export function forgedLegacyToken(): string;
export function forgedTaggedToken(keyId?: string): string;
export function wrongChecksumToken(): string;
export function floodToken(kind: 'tagged' | 'legacy' | 'checksum' | 'mixed', i?: number): string;
export function floodAnswerIsExpected(
  status: number,
  code: string | undefined,
  hasRetryAfter: boolean,
): boolean;
