import { randomFillSync } from 'node:crypto';

/** Random bytes drawn a pool at a time (a draw per id through WebCrypto cost 2.2 µs an id). */
const POOL_BYTES = 4096;
/** Random bytes an id takes: 74 of their 80 bits are used. */
const ID_RANDOM_BYTES = 10;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** The id being written: its dashes and version digit stay; the time is written once a millisecond. */
const text = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');
let writtenMs = -1;

function writeTime(ms: number): void {
  // 48 bits of Unix milliseconds as 12 hex digits, 8-4: the top 16 bits, then the low 32 (above 2^32,
  // so not with 32-bit operators).
  const high = Math.floor(ms / 2 ** 32);
  const low = ms - high * 2 ** 32;
  for (let i = 0; i < 4; i++) text[3 - i] = HEX[(high >>> (4 * i)) & 15]!;
  for (let i = 0; i < 4; i++) text[7 - i] = HEX[(low >>> (16 + 4 * i)) & 15]!;
  for (let i = 0; i < 4; i++) text[12 - i] = HEX[(low >>> (4 * i)) & 15]!;
  writtenMs = ms;
}

/**
 * A request's key in the ledger (its admission, hold, settlement events and their JetStream message
 * ids, and the event log's unique key together with the account): a UUIDv7 (RFC 9562) as lowercase
 * text, 48 bits of Unix milliseconds then 74 random bits, so the log's unique index grows at its right
 * edge instead of on random pages. Made by the gateway for every request, never taken from a client:
 * nobody can guess one, reuse one or make two requests share one. Ids of one millisecond are in no
 * particular order among themselves (RFC 9562 makes that order optional; nothing here reads it).
 * Written into one buffer and read out as one flat string: the uuid package's v7 built its text from
 * twenty pieces and lowercased it again, about 4,000 instructions an id against a tenth of that here
 * (contributors.md, "Instructions by function").
 */
export function newRequestId(): string {
  const now = Date.now();
  if (now !== writtenMs) writeTime(now);
  if (offset + ID_RANDOM_BYTES > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const o = offset;
  offset += ID_RANDOM_BYTES;
  // 7xxx: the version, then 12 random bits.
  text[15] = HEX[pool[o]! >> 4]!;
  text[16] = HEX[pool[o]! & 15]!;
  text[17] = HEX[pool[o + 1]! >> 4]!;
  // The variant (binary 10) and 2 random bits, then 12 more.
  text[19] = HEX[8 | (pool[o + 1]! & 3)]!;
  text[20] = HEX[pool[o + 2]! >> 4]!;
  text[21] = HEX[pool[o + 2]! & 15]!;
  text[22] = HEX[pool[o + 3]! >> 4]!;
  // 48 random bits.
  for (let i = 0; i < 6; i++) {
    const b = pool[o + 4 + i]!;
    text[24 + 2 * i] = HEX[b >> 4]!;
    text[25 + 2 * i] = HEX[b & 15]!;
  }
  return text.toString('latin1', 0, 36);
}
