import { describe, expect, it } from 'vitest';
import { OfoQueue } from '../../../src/socket/tcp/ofo-queue.ts';
import { SackBlocks } from '../../../src/socket/tcp/sack-blocks.ts';

/** A payload whose byte i is (seq + i) & 0xff, so delivered bytes show which sequence numbers they came from. */
function payload(seq: number, len: number): Uint8Array {
  return Uint8Array.from({ length: len }, (_, i) => (seq + i) & 0xff);
}

function receiver(sackOk = true, dsack = true) {
  const sack = new SackBlocks(sackOk, () => dsack);
  const ofo = new OfoQueue(sack);
  /** The blocks the next ACK carries, D-SACK first, as [start, end] pairs. */
  const announced = () =>
    Array.from(
      { length: sack.blockCount },
      (_, i) => [sack.blockStart(i), sack.blockEnd(i)] as [number, number],
    );
  const segment = (seq: number, end: number, fin = false) => {
    sack.clearDsack();
    ofo.insert(seq >>> 0, payload(seq, (end - seq) >>> 0), fin);
  };
  const drain = (rcvNxt: number) => {
    const out: number[] = [];
    const next = ofo.drain(rcvNxt >>> 0, (data) => out.push(...data));
    sack.remove(next, ofo.empty);
    return { next, out };
  };
  return { sack, ofo, announced, segment, drain };
}

describe('out-of-order queue and SACK blocks (tcp_data_queue_ofo, tcp_sack_new_ofo_skb), rcv_nxt 1000', () => {
  it('ladder: holes, coalescing, a duplicate, then the hole fills', () => {
    const r = receiver();
    r.segment(1100, 1200);
    expect(r.ofo.ranges()).toEqual([[1100, 1200]]);
    expect(r.announced()).toEqual([[1100, 1200]]);

    r.segment(1300, 1400);
    expect(r.ofo.ranges()).toEqual([
      [1100, 1200],
      [1300, 1400],
    ]);
    expect(r.announced()).toEqual([
      [1300, 1400],
      [1100, 1200],
    ]);

    // Fills the gap between them: coalesced into [1100, 1200); the blocks merge into one.
    r.segment(1200, 1300);
    expect(r.ofo.ranges()).toEqual([
      [1100, 1300],
      [1300, 1400],
    ]);
    expect(r.announced()).toEqual([[1100, 1400]]);

    // Wholly queued already: dropped, reported as D-SACK ahead of the SACK block.
    r.segment(1150, 1250);
    expect(r.ofo.ranges()).toEqual([
      [1100, 1300],
      [1300, 1400],
    ]);
    expect(r.announced()).toEqual([
      [1150, 1250],
      [1100, 1400],
    ]);
    r.sack.dsackSent();
    expect(r.announced()).toEqual([[1100, 1400]]);

    // Nothing reachable from rcv_nxt 1000 yet.
    expect(r.drain(1000)).toEqual({ next: 1000, out: [] });

    // [1000, 1100) arrived in order: the queue drains to 1400, in order, and the blocks go.
    const { next, out } = r.drain(1100);
    expect(next).toBe(1400);
    expect(out).toEqual([...payload(1100, 300)]);
    expect(r.ofo.empty).toBe(true);
    expect(r.announced()).toEqual([]);
  });

  it('a segment overlapping the start of a queued one is D-SACKed for the overlap and queued after it', () => {
    const r = receiver();
    r.segment(1100, 1200);
    r.segment(1150, 1250);
    expect(r.ofo.ranges()).toEqual([
      [1100, 1200],
      [1150, 1250],
    ]);
    expect(r.announced()).toEqual([
      [1150, 1200],
      [1100, 1250],
    ]);
    const { next, out } = r.drain(1100);
    expect(next).toBe(1250);
    expect(out).toEqual([...payload(1100, 150)]);
  });

  it('a segment from the same start that covers queued ones replaces them (merge_right)', () => {
    const r = receiver();
    r.segment(1100, 1200);
    r.segment(1300, 1400);
    r.segment(1500, 1600);
    r.segment(1100, 1450);
    expect(r.ofo.ranges()).toEqual([
      [1100, 1450],
      [1500, 1600],
    ]);
    // D-SACK: [1100, 1200) replaced; [1300, 1400), dropped whole, does not touch it (tcp_sack_extend) and is not added.
    expect(r.announced()).toEqual([
      [1100, 1200],
      [1100, 1450],
      [1500, 1600],
    ]);
  });

  it('merge_right stops at a segment the new one only partly covers, D-SACKing the overlap', () => {
    const r = receiver();
    r.segment(1300, 1400);
    r.segment(1500, 1600);
    r.segment(1250, 1550);
    expect(r.ofo.ranges()).toEqual([
      [1250, 1550],
      [1500, 1600],
    ]);
    expect(r.announced()).toEqual([
      [1300, 1400],
      [1250, 1600],
    ]);
    // tcp_ofo_queue D-SACKs only what starts below the rcv_nxt it began with: [1500, 1600) was reported already.
    r.sack.clearDsack();
    const { next, out } = r.drain(1250);
    expect(next).toBe(1600);
    expect(out).toEqual([...payload(1250, 350)]);
    expect(r.announced()).toEqual([]);
  });

  it('four blocks at most, the newest first; the oldest falls off', () => {
    const r = receiver();
    for (const seq of [1100, 1300, 1500, 1700, 1900]) r.segment(seq, seq + 100);
    expect(r.announced()).toEqual([
      [1900, 2000],
      [1700, 1800],
      [1500, 1600],
      [1300, 1400],
    ]);
    expect(r.ofo.length).toBe(5);
    // Extending the third block moves it to the front.
    r.segment(1600, 1650);
    expect(r.announced()).toEqual([
      [1500, 1650],
      [1900, 2000],
      [1700, 1800],
      [1300, 1400],
    ]);
  });

  it('tcp_sack_remove: blocks rcv_nxt covers are eaten while others stay', () => {
    const r = receiver();
    r.segment(1100, 1200);
    r.segment(1300, 1400);
    const { next } = r.drain(1100);
    expect(next).toBe(1200);
    expect(r.announced()).toEqual([[1300, 1400]]);
  });

  it('a queued FIN ends the drain and purges the queue (tcp_fin)', () => {
    const r = receiver();
    r.segment(1100, 1200, true);
    expect(r.ofo.ranges()).toEqual([[1100, 1201]]);
    const { next, out } = r.drain(1100);
    expect(next).toBe(1201);
    expect(out).toEqual([...payload(1100, 100)]);
    expect(r.ofo.drainedFin).toBe(true);
  });

  it('wraps around 2^32', () => {
    const r = receiver();
    r.segment(0xffff_ff80, 0x0000_0040);
    r.segment(0x0000_0080, 0x0000_0100);
    expect(r.announced()).toEqual([
      [0x80, 0x100],
      [0xffff_ff80, 0x40],
    ]);
    r.segment(0x0000_0040, 0x0000_0080);
    expect(r.announced()).toEqual([[0xffff_ff80, 0x100]]);
    const { next, out } = r.drain(0xffff_ff80);
    expect(next).toBe(0x100);
    expect(out.length).toBe(0x180);
  });

  it('without SACK the queue still holds data and no block is announced; tcp_dsack 0 drops D-SACKs', () => {
    const noSack = receiver(false);
    noSack.segment(1100, 1200);
    noSack.segment(1100, 1200);
    expect(noSack.ofo.ranges()).toEqual([[1100, 1200]]);
    expect(noSack.announced()).toEqual([]);
    const noDsack = receiver(true, false);
    noDsack.segment(1100, 1200);
    noDsack.segment(1100, 1200);
    expect(noDsack.announced()).toEqual([[1100, 1200]]);
  });
});

// Observed on Linux 6.18: a raw-socket peer on a veth sent 100-byte segments (numbered by offset / 100,
// segment 0 first, in order) to a listener and read the ACKs; the blocks are relative to the peer's ISN + 1.
describe('SACK blocks as Linux 6.18 sent them', () => {
  /** Receives `order` (segment numbers), returning each ACK's [ack, blocks] as the kernel printed them. */
  function replay(order: number[]) {
    const r = receiver();
    let rcvNxt = 100; // segment 0 arrived in order
    const acks: [number, [number, number][]][] = [];
    for (const n of order) {
      const seq = n * 100;
      r.sack.clearDsack();
      if (seq === rcvNxt) {
        rcvNxt += 100;
        rcvNxt = r.drain(rcvNxt).next;
      } else if (seq < rcvNxt) r.sack.dsackSet(seq, seq + 100);
      else r.ofo.insert(seq, payload(seq, 100), false);
      acks.push([rcvNxt, r.announced().slice(0, 3)]);
      r.sack.dsackSent();
    }
    return acks;
  }

  it('one hole, eight segments beyond it, a duplicate, then the hole', () => {
    expect(replay([2, 3, 4, 5, 6, 7, 8, 9, 3, 1])).toEqual([
      [100, [[200, 300]]],
      [100, [[200, 400]]],
      [100, [[200, 500]]],
      [100, [[200, 600]]],
      [100, [[200, 700]]],
      [100, [[200, 800]]],
      [100, [[200, 900]]],
      [100, [[200, 1000]]],
      [
        100,
        [
          [300, 400],
          [200, 1000],
        ],
      ],
      [1000, []],
    ]);
  });

  it('six holes: the four remembered blocks, three announced; the oldest are forgotten', () => {
    expect(replay([2, 4, 6, 8, 10, 12, 3, 1, 14])).toEqual([
      [100, [[200, 300]]],
      [
        100,
        [
          [400, 500],
          [200, 300],
        ],
      ],
      [
        100,
        [
          [600, 700],
          [400, 500],
          [200, 300],
        ],
      ],
      [
        100,
        [
          [800, 900],
          [600, 700],
          [400, 500],
        ],
      ],
      [
        100,
        [
          [1000, 1100],
          [800, 900],
          [600, 700],
        ],
      ],
      [
        100,
        [
          [1200, 1300],
          [1000, 1100],
          [800, 900],
        ],
      ],
      // [200, 300) and [400, 500) fell off the list, so [300, 400) is a new block; [600, 700) goes.
      [
        100,
        [
          [300, 400],
          [1200, 1300],
          [1000, 1100],
        ],
      ],
      [
        500,
        [
          [1200, 1300],
          [1000, 1100],
          [800, 900],
        ],
      ],
      [
        500,
        [
          [1400, 1500],
          [1200, 1300],
          [1000, 1100],
        ],
      ],
    ]);
  });
});

describe('out-of-order queue: what it charges the receive buffer (skb_set_owner_r in tcp_data_queue_ofo)', () => {
  it('ladder: a kept or coalesced segment is charged its truesize, a duplicate nothing, a covered one is freed, a drain frees what rcv_nxt passed', () => {
    const sack = new SackBlocks(true, () => true);
    const ofo = new OfoQueue(sack);
    const seg = (seq: number, end: number) => ofo.insert(seq, payload(seq, end - seq), false);
    expect(seg(1100, 1200)).toBe('queued');
    expect(ofo.truesize).toBe(100 + 832);
    expect(seg(1200, 1300)).toBe('coalesced');
    expect(ofo.truesize).toBe(200 + 2 * 832);
    expect(seg(1150, 1250)).toBe('dropped');
    expect(ofo.truesize).toBe(200 + 2 * 832);
    expect(seg(1500, 1600)).toBe('queued');
    // Same start and covering it: the queued segment is replaced, its charge freed.
    expect(seg(1500, 1700)).toBe('queued');
    expect(ofo.truesize).toBe(200 + 2 * 832 + 200 + 832);
    // rcv_nxt jumps past the first run (its bytes came in order meanwhile): freed, not delivered.
    const out: number[] = [];
    expect(ofo.drain(1400, (data) => out.push(...data))).toBe(1400);
    expect(out).toEqual([]);
    expect(ofo.drainFreed).toBe(200 + 2 * 832);
    expect(ofo.truesize).toBe(200 + 832);
    expect(ofo.drain(1500, (data) => out.push(...data))).toBe(1700);
    expect(out).toHaveLength(200);
    expect([ofo.drainFreed, ofo.truesize]).toEqual([0, 0]);
  });
});
