import { validate, version } from 'uuid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newRequestId } from './request-id.ts';

/** The Unix milliseconds an id's first 48 bits say. */
const msOf = (id: string) => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('request ids', () => {
  afterEach(() => vi.useRealTimers());

  it('are lowercase UUIDv7 text, as the uuid package reads them', () => {
    for (let i = 0; i < 1_000; i++) {
      const id = newRequestId();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
    }
  });

  it('begin with the millisecond they were made in', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    for (const ms of [0, 1, 2 ** 32 - 1, 2 ** 32, 1_796_476_773_807, 2 ** 48 - 1]) {
      vi.setSystemTime(ms);
      const ids = [newRequestId(), newRequestId()];
      expect(ids.map(msOf)).toEqual([ms, ms]);
      expect(ids[0]).not.toBe(ids[1]);
    }
  });

  it('differ in every random digit, none fixed: 74 random bits an id', () => {
    const ids = Array.from({ length: 20_000 }, newRequestId);
    expect(new Set(ids).size).toBe(ids.length);
    const randomDigits = [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)];
    for (const at of randomDigits) expect(new Set(ids.map((id) => id[at])).size).toBe(16);
    // The variant digit: binary 10 then two random bits.
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(['8', '9', 'a', 'b']));
  });
});
