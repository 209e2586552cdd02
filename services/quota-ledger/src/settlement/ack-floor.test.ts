import { describe, expect, it } from 'vitest';
import { AckFloor } from './ack-floor.ts';

describe('AckFloor', () => {
  it('moves over what was recorded here, one batch one acknowledgement', () => {
    const floor = new AckFloor(100);
    expect(floor.recorded([101, 102, 103])).toBe(103);
    expect(floor.recorded([104])).toBe(104);
    // Sequences at or below the floor (a re-delivery) move nothing.
    expect(floor.recorded([99, 104])).toBeNull();
    expect(floor.waiting).toBe(0);
  });

  it('never acknowledges past a predecessor delivery not recorded here', () => {
    // A killed predecessor had 101 and 102 delivered and unacknowledged; this process gets 103 on.
    const floor = new AckFloor(100);
    expect(floor.recorded([103, 104, 105])).toBeNull();
    expect(floor.waiting).toBe(3);
    // 101 comes back (ack wait): the floor moves to it, not past the hole at 102.
    expect(floor.recorded([101])).toBe(101);
    expect(floor.recorded([106])).toBeNull();
    expect(floor.recorded([102])).toBe(106);
    expect(floor.waiting).toBe(0);
  });

  it('leaves holes that are no delivery behind when told so', () => {
    const floor = new AckFloor(0);
    // The stream's messages below 1,000 left it before this consumer took them.
    expect(floor.recorded([1_000, 1_001])).toBeNull();
    expect(floor.skipHoles()).toBe(1_001);
    expect(floor.recorded([1_002])).toBe(1_002);
    expect(floor.skipHoles()).toBeNull();
  });

  it('says where a batch would take it before the batch is recorded, moving nothing', () => {
    const floor = new AckFloor(10);
    expect(floor.recorded([13])).toBeNull();
    // 11 and 12 fill the hole below the 13 recorded already.
    expect(floor.after([12, 11])).toBe(13);
    expect(floor.after([12])).toBe(10);
    expect(floor.through).toBe(10);
    expect(floor.waiting).toBe(1);
    // Where recording the batch then takes it.
    expect(floor.recorded([11, 12])).toBe(13);
  });
});
