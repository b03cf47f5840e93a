import { describe, expect, it } from 'vitest';
import { Rack } from '../../../src/socket/tcp/rack.ts';
import {
  AckState,
  FLAG_DATA_SACKED,
  FLAG_DSACKING_ACK,
  RETRANS,
  SACKED_ACKED,
  Scoreboard,
} from '../../../src/socket/tcp/scoreboard.ts';

/** Five segments of 1000 bytes from 1000, sent 100 µs apart from 1000 µs. */
function board() {
  const sb = new Scoreboard(new Rack());
  sb.mss = 1000;
  sb.maxWindow = 65535;
  sb.sndUna = 1000;
  for (let i = 0; i < 5; i++) sb.sent(1000 + 1000 * i, 2000 + 1000 * i, 1000 + 100 * i);
  return sb;
}

const tags = (sb: Scoreboard) => sb.queue.map((segment) => segment.sacked);

describe('SACK tagging (tcp_sacktag_write_queue, tcp_sacktag_one)', () => {
  it('tags segments wholly inside the blocks, counts sacked_out and in flight', () => {
    const sb = board();
    const state = new AckState();
    state.reset(sb.sndNxt);
    const flag = sb.sacktag([3000, 4000, 5000, 6000], 2, 1000, 1000, 50_000, state);
    expect(flag & FLAG_DATA_SACKED).toBe(FLAG_DATA_SACKED);
    expect(tags(sb)).toEqual([0, 0, SACKED_ACKED, 0, SACKED_ACKED]);
    expect([sb.sackedOut, sb.inFlight, sb.highestSackSeq()]).toEqual([2, 3, 6000]);
    expect(sb.tsorted.map((segment) => segment.seq)).toEqual([1000, 2000, 4000]);
    // [4000, 5000) was in a hole below the highest SACK and never retransmitted: reordering evidence.
    state.reset(sb.sndNxt);
    sb.sacktag([3000, 6000], 1, 1000, 1000, 50_100, state);
    expect(sb.reordSeen).toBe(1);
  });

  it('ignores blocks beyond snd_nxt, reversed, or at or below snd_una', () => {
    const sb = board();
    const state = new AckState();
    state.reset(sb.sndNxt);
    sb.sacktag([5000, 7000, 4000, 3000, 1000, 2000], 3, 1000, 1000, 50_000, state);
    expect(sb.sackedOut).toBe(0);
  });

  it('D-SACK below the ACK for a retransmitted segment: counted against undo_retrans (tcp_check_dsack)', () => {
    const sb = board();
    const head = sb.queue[0]!;
    sb.initUndo();
    sb.retransmitted(head, 2000, 2);
    expect(head.sacked & RETRANS).toBe(RETRANS);
    expect([sb.undoMarker, sb.undoRetrans, sb.retransOut, sb.totalRetrans]).toEqual([1000, 1, 1, 1]);
    // The ACK moved to 2000 earlier; now a D-SACK for [1000, 2000) arrives below it.
    sb.sndUna = 2000;
    const state = new AckState();
    state.reset(sb.sndNxt);
    const flag = sb.sacktag([1000, 2000], 1, 2000, 2000, 60_000, state);
    expect(flag & FLAG_DSACKING_ACK).toBe(FLAG_DSACKING_ACK);
    expect([sb.undoRetrans, sb.dsackDups, state.sackDelivered]).toEqual([0, 1, 1]);
  });

  it('a D-SACK of more duplicates than retransmissions is dubious and ignored (tcp_dsack_seen)', () => {
    const sb = board();
    sb.sndUna = 2000;
    const state = new AckState();
    state.reset(sb.sndNxt);
    const flag = sb.sacktag([1000, 2000], 1, 2000, 2000, 60_000, state);
    expect(flag & FLAG_DSACKING_ACK).toBe(0);
  });

  it('a first block inside the second is a D-SACK of out-of-order data', () => {
    const sb = board();
    sb.initUndo();
    const third = sb.queue[2]!;
    sb.retransmitted(third, 2000, 2);
    const state = new AckState();
    state.reset(sb.sndNxt);
    const flag = sb.sacktag([3000, 4000, 3000, 5000], 2, 1000, 1000, 60_000, state);
    expect(flag & FLAG_DSACKING_ACK).toBe(FLAG_DSACKING_ACK);
    // The D-SACKed retransmission is no longer in flight twice: S without R.
    expect(third.sacked & (SACKED_ACKED | 0x02)).toBe(SACKED_ACKED);
    expect([sb.retransOut, sb.undoRetrans]).toEqual([0, 0]);
  });

  it('tcp_clean_rtx_queue: a cumulative ACK frees segments and samples the RTT of the first', () => {
    const sb = board();
    sb.sndUna = 3000;
    const state = new AckState();
    state.reset(sb.sndNxt);
    sb.cleanRtxQueue(1000, 51_000, 0, state);
    expect([sb.packetsOut, state.pktsAcked, state.seqRttUs, state.caRttUs, sb.delivered]).toEqual([
      3, 2, 50_000, 49_900, 2,
    ]);
    expect(sb.minRttUs).toBe(49_900);
  });
});
