import { describe, expect, it } from 'vitest';
import { Reno } from '../../../src/socket/tcp/congestion/reno.ts';
import { CwndState } from '../../../src/socket/tcp/congestion/types.ts';
import { chooseLossProbe, lossProbeTimeout, Rack } from '../../../src/socket/tcp/rack.ts';
import { AckInput, LossRecovery } from '../../../src/socket/tcp/recovery.ts';
import { FLAG_WIN_UPDATE, LOST, Scoreboard } from '../../../src/socket/tcp/scoreboard.ts';

// A sender with MSS 1000 and ten segments out: segment i is [1000 + 1000i, 2000 + 1000i), sent at
// 1000 + 100i µs. The path's RTT is 49 ms. Segment 1, [2000, 3000), is lost.

function sender(options: { sackOk?: boolean } = {}) {
  const rack = new Rack();
  const sb = new Scoreboard(rack);
  sb.mss = 1000;
  sb.maxWindow = 65535;
  sb.sndUna = 1000;
  sb.sndNxt = 1000;
  sb.sackOk = options.sackOk ?? true;
  const tp = new CwndState();
  const host = {
    srttUs: 0,
    sackOk: options.sackOk ?? true,
    rttSample(us: number) {
      host.srttUs = host.srttUs === 0 ? us : Math.floor((7 * host.srttUs + us) / 8);
    },
  };
  const rec = new LossRecovery(tp, new Reno(), sb, rack, host);
  for (let i = 0; i < 10; i++) sb.sent(1000 + 1000 * i, 2000 + 1000 * i, 1000 + 100 * i);
  const input = new AckInput();
  /** One ACK: cumulative `ack`, SACK blocks, at `nowUs`. */
  const ack = (
    nowUs: number,
    ackSeq: number,
    blocks: [number, number][] = [],
    extra: { tsEcrMs?: number } = {},
  ) => {
    input.ack = ackSeq;
    input.flag = ackSeq !== sb.sndUna ? FLAG_WIN_UPDATE : 0;
    input.sackEdges = blocks.flat();
    input.sackCount = blocks.length;
    input.nowUs = nowUs;
    input.tsEcrMs = extra.tsEcrMs ?? 0;
    input.cwndLimited = true;
    return rec.onAck(input);
  };
  /** What the socket sends after an ACK: lost segments first (tcp_xmit_retransmit_queue), then new data. */
  const transmit = (nowUs: number) => {
    const sent: string[] = [];
    for (let segment = rec.nextRetransmit(); segment !== undefined; segment = rec.nextRetransmit()) {
      rec.retransmitted(segment, nowUs, Math.floor(nowUs / 1000));
      sent.push(`rtx ${segment.seq}`);
    }
    let fresh = 0;
    while (sb.inFlight < tp.cwnd) {
      sb.sent(sb.sndNxt, sb.sndNxt + 1000, nowUs);
      sent.push(`new ${sb.sndNxt - 1000}`);
      fresh++;
    }
    rec.newDataSent(fresh);
    return sent;
  };
  const counters = () => ({
    state: tp.caState,
    cwnd: tp.cwnd,
    ssthresh: tp.ssthresh,
    packetsOut: sb.packetsOut,
    sackedOut: sb.sackedOut,
    lostOut: sb.lostOut,
    retransOut: sb.retransOut,
    inFlight: sb.inFlight,
  });
  return { rack, sb, tp, rec, host, ack, transmit, counters };
}

const INF = 0x7fffffff;

describe('RACK-TLP fast recovery with PRR (tcp_fastretrans_alert, tcp_rack_detect_loss, tcp_cwnd_reduction)', () => {
  it('ladder: three SACKs mark the hole lost (reo_wnd 0 at the dupthresh), PRR paces the retransmission and new data', () => {
    const s = sender();
    s.tp.cwnd = 10;

    // ACK 2000 at 50 ms: RTT 49 ms, slow start to 11.
    let out = s.ack(50_000, 2000);
    expect(out.setXmitTimer).toBe(true);
    expect(s.counters()).toMatchObject({ state: 'Open', cwnd: 11, packetsOut: 9, inFlight: 9 });
    expect(s.sb.minRttUs).toBe(49_000);
    expect(s.transmit(50_000)).toEqual(['new 11000', 'new 12000']);
    // The socket's window is the test's concern; keep to the ten segments of the ladder.
    s.sb.queue.splice(9);
    s.sb.tsorted.splice(s.sb.tsorted.length - 2);
    s.sb.packetsOut = 9;
    s.sb.sndNxt = 11000;

    // SACK [3000, 4000) at 50.2 ms: reo_wnd = min_rtt/4 = 12250 µs; segment 1 has 12150 µs left.
    out = s.ack(50_200, 2000, [[3000, 4000]]);
    expect(out.reoTimeout).toBe(15); // usecs_to_jiffies(12150) + TCP_TIMEOUT_MIN
    expect(out.setXmitTimer).toBe(false);
    expect(s.counters()).toMatchObject({ state: 'Disorder', cwnd: 11, sackedOut: 1, inFlight: 8 });

    // SACK [3000, 5000): still within the window (12050 µs left).
    out = s.ack(50_300, 2000, [[3000, 5000]]);
    expect(out.reoTimeout).toBe(15);
    expect(s.counters()).toMatchObject({ state: 'Disorder', sackedOut: 2, lostOut: 0 });

    // SACK [3000, 6000): sacked_out reaches reordering (3) with no reordering seen: reo_wnd 0, lost.
    out = s.ack(50_400, 2000, [[3000, 6000]]);
    expect(out.rexmit).toBe('lost');
    expect(out.reoTimeout).toBe(0);
    // Recovery: ssthresh = 11 / 2; PRR: in flight 5, delta 0, one segment for the fast retransmit.
    expect(s.counters()).toMatchObject({
      state: 'Recovery',
      cwnd: 6,
      ssthresh: 5,
      sackedOut: 3,
      lostOut: 1,
      inFlight: 5,
    });
    expect(s.sb.undoMarker).toBe(2000);
    expect(s.sb.highSeq).toBe(11000);
    expect(s.transmit(50_400)).toEqual(['rtx 2000']);
    expect(s.rec.prrOut).toBe(1);
    expect(s.sb.find(2000)!.sacked & LOST).toBe(LOST);

    // SACK [3000, 7000): prr_delivered 2, prr_out 1, delta 0: cwnd = in flight, nothing to send.
    s.ack(50_500, 2000, [[3000, 7000]]);
    expect(s.counters()).toMatchObject({ cwnd: 5, inFlight: 5, retransOut: 1 });
    expect(s.transmit(50_500)).toEqual([]);

    // Each further SACK: in flight 4, delta 1, so one new segment per ACK.
    const ladder: [number, string[]][] = [];
    for (const [now, end] of [
      [50_600, 8000],
      [50_700, 9000],
      [50_800, 10000],
      [50_900, 11000],
    ] as const) {
      s.ack(now, 2000, [[3000, end]]);
      ladder.push([s.tp.cwnd, s.transmit(now)]);
    }
    expect(ladder).toEqual([
      [5, ['new 11000']],
      [5, ['new 12000']],
      [5, ['new 13000']],
      [5, ['new 14000']],
    ]);
    expect(s.rec.prrOut).toBe(5);

    // The retransmission arrives: ACK 11000 ends recovery at high_seq; cwnd = ssthresh; one
    // segment delivered, credited in congestion avoidance.
    out = s.ack(99_400, 11000);
    expect(out.rexmit).toBe('none');
    expect(out.delivered).toBe(1);
    expect(s.counters()).toMatchObject({
      state: 'Open',
      cwnd: 5,
      ssthresh: 5,
      packetsOut: 4,
      sackedOut: 0,
      lostOut: 0,
      retransOut: 0,
      inFlight: 4,
    });
    expect(s.tp.cwndCnt).toBe(1);
  });

  it('undo on D-SACK: the retransmission was a duplicate, so the reduction is undone (tcp_try_undo_recovery)', () => {
    const s = sender();
    s.tp.cwnd = 10;
    s.ack(50_000, 2000);
    s.ack(50_200, 2000, [[3000, 4000]]);
    s.ack(50_300, 2000, [[3000, 5000]]);
    s.ack(50_400, 2000, [[3000, 6000]]);
    expect(s.transmit(50_400)).toEqual(['rtx 2000']);
    for (const [now, end] of [
      [50_500, 7000],
      [50_600, 8000],
      [50_700, 9000],
      [50_800, 10000],
      [50_900, 11000],
    ] as const)
      s.ack(now, 2000, [[3000, end]]);
    expect(s.sb.undoRetrans).toBe(1);
    // The original was only late: the receiver D-SACKs the retransmitted [2000, 3000).
    const out = s.ack(99_400, 11000, [[2000, 3000]]);
    expect(out.flag & 0x800).toBe(0x800); // FLAG_DSACKING_ACK
    expect(s.sb.undoRetrans).toBe(0);
    // Undone: cwnd back to prior_cwnd (11), ssthresh to prior_ssthresh; then slow start for
    // the two delivered (the D-SACKed duplicate and the segment itself).
    expect(s.counters()).toMatchObject({ state: 'Open', cwnd: 13, ssthresh: INF });
    expect(s.sb.undoMarker).toBe(0);
  });

  it('the timestamps undo: an echo older than the first retransmission proves the original arrived', () => {
    const s = sender();
    s.tp.cwnd = 10;
    s.ack(50_000, 2000, [], { tsEcrMs: 1 });
    s.ack(50_200, 2000, [[3000, 4000]], { tsEcrMs: 1 });
    s.ack(50_300, 2000, [[3000, 5000]], { tsEcrMs: 1 });
    s.ack(50_400, 2000, [[3000, 6000]], { tsEcrMs: 1 });
    s.transmit(50_400);
    expect(s.sb.retransStampMs).toBe(50);
    // A partial ACK to 4000 echoing TSval 1 (the original's): tcp_try_undo_partial sees a delayed
    // packet, so reordering (fack 6000 - 2000 = 4 segments); the retransmission is ACKed (retrans_out
    // 0), so the reduction is undone: Disorder with SACKed data still above.
    const out = s.ack(60_000, 4000, [[4000, 6000]], { tsEcrMs: 1 });
    expect(out.rexmit).toBe('none');
    expect(s.sb.reordSeen).toBe(1);
    expect(s.sb.reordering).toBe(4);
    expect(s.sb.undoMarker).toBe(0);
    // cwnd back to prior_cwnd 11, ssthresh to prior_ssthresh; reordering 4 > 3 lets the delivered
    // segment grow it in slow start.
    expect(s.counters()).toMatchObject({ state: 'Disorder', cwnd: 12, ssthresh: INF, lostOut: 0 });
  });
});

describe('RTO and F-RTO (tcp_enter_loss, tcp_process_loss)', () => {
  it('everything outstanding is lost, cwnd = in flight + 1; a timestamp echo of the original undoes it', () => {
    const s = sender();
    s.tp.cwnd = 10;
    s.rec.enterLoss(1_300_000, true);
    expect(s.counters()).toMatchObject({ state: 'Loss', cwnd: 1, ssthresh: 5, lostOut: 10, inFlight: 0 });
    expect(s.rec.frto).toBe(true);
    expect(s.sb.highSeq).toBe(11000);
    expect(s.transmit(1_300_000)).toEqual(['rtx 1000']);
    s.rec.retransmits = 1;
    // ACK 2000 echoing the original's TSval (1 ms): spurious, undone to cwnd 10 then slow start.
    const out = s.ack(1_310_000, 2000, [], { tsEcrMs: 1 });
    expect(out.rexmit).toBe('none');
    expect(s.counters()).toMatchObject({ state: 'Open', cwnd: 11, ssthresh: INF, lostOut: 0 });
    expect(s.rec.retransmits).toBe(0);
  });

  it('without timestamps F-RTO step 2.b sends new data first (REXMIT_NEW)', () => {
    const s = sender();
    s.tp.cwnd = 10;
    s.rec.enterLoss(1_300_000, true);
    s.transmit(1_300_000);
    s.rec.retransmits = 1;
    const out = s.ack(1_310_000, 2000);
    expect(out.rexmit).toBe('new');
    expect(s.counters()).toMatchObject({ state: 'Loss', cwnd: 2, ssthresh: 5 });
  });

  it('RACK spares segments sent within the last RTT from the RTO marking', () => {
    const s = sender();
    s.ack(50_000, 2000); // rack.rtt 49 ms
    s.rec.enterLoss(50_500, true);
    // The head always; then those with rack.rtt - (now - sent) <= 0: sent at or before 1500 µs.
    const lost = s.sb.queue.filter((segment) => segment.sacked & LOST).map((segment) => segment.seq);
    expect(lost).toEqual([2000, 3000, 4000, 5000, 6000]);
  });
});

describe('tail loss probe (tcp_schedule_loss_probe, tcp_send_loss_probe, tcp_process_tlp_ack)', () => {
  const base = {
    caState: 'Open' as const,
    sackOk: true,
    rtoJiffies: 1000,
    advancingRto: true,
    rtoDeltaUs: 0,
  };

  it('PTO = 2 srtt + 2 ms, or + TCP_RTO_MIN with one packet out; 1 s without an RTT; never past the RTO', () => {
    expect(lossProbeTimeout({ ...base, packetsOut: 5, srttUs: 49_000 })).toBe(100);
    expect(lossProbeTimeout({ ...base, packetsOut: 1, srttUs: 49_000 })).toBe(298);
    expect(lossProbeTimeout({ ...base, packetsOut: 1, srttUs: 49_000, rtoJiffies: 250 })).toBe(250);
    expect(lossProbeTimeout({ ...base, packetsOut: 5, srttUs: 0 })).toBe(1000);
    expect(
      lossProbeTimeout({ ...base, packetsOut: 5, srttUs: 49_000, advancingRto: false, rtoDeltaUs: 40_500 }),
    ).toBe(41);
  });

  it('no probe without SACK, with nothing out, or outside Open and CWR', () => {
    expect(lossProbeTimeout({ ...base, packetsOut: 5, srttUs: 49_000, sackOk: false })).toBe(-1);
    expect(lossProbeTimeout({ ...base, packetsOut: 0, srttUs: 49_000 })).toBe(-1);
    expect(lossProbeTimeout({ ...base, packetsOut: 5, srttUs: 49_000, caState: 'Disorder' })).toBe(-1);
    expect(lossProbeTimeout({ ...base, packetsOut: 5, srttUs: 49_000, caState: 'CWR' })).toBe(100);
  });

  it('probes the last segment; its ACK beyond tlp_high_seq means a loss was repaired: cwnd reduced (CWR then Open)', () => {
    const s = sender();
    s.tp.cwnd = 10;
    s.ack(50_000, 2000);
    const probe = chooseLossProbe(s.sb, false);
    expect(probe).toMatchObject({ kind: 'retransmit', segment: { seq: 10000 } });
    if (probe.kind !== 'retransmit') return;
    s.rec.retransmitted(probe.segment, 150_000, 150);
    s.rec.probeSent(true);
    expect(s.sb.tlpHighSeq).toBe(11000);
    expect(chooseLossProbe(s.sb, true)).toEqual({ kind: 'none' });
    // One probe outstanding at most. New data follows; an ACK past tlp_high_seq ends the episode.
    s.sb.sent(11000, 12000, 150_100);
    s.ack(199_000, 12000);
    expect(s.sb.tlpHighSeq).toBe(0);
    // tcp_init_cwnd_reduction at cwnd 11 (ssthresh 5), tcp_end_cwnd_reduction in CWR (cwnd 5),
    // Open again; then tcp_cong_avoid for the 10 delivered: snd_cwnd_cnt 10 over w 5, cwnd 7.
    expect(s.counters()).toMatchObject({ state: 'Open', ssthresh: 5, cwnd: 7 });
    expect(s.tp.cwndCnt).toBe(0);
  });

  it('new data is the probe when the window takes it', () => {
    const s = sender();
    expect(chooseLossProbe(s.sb, true)).toEqual({ kind: 'new-data' });
  });
});

describe('RACK reordering window (tcp_rack_update_reo_wnd)', () => {
  it('a D-SACK after reordering was seen widens the window one step, persisting 16 recoveries', () => {
    const rack = new Rack();
    rack.dsackSeen = true;
    rack.updateReoWnd(5, 20);
    expect([rack.reoWndSteps, rack.reoWndPersist, rack.lastDelivered]).toEqual([2, 16, 20]);
    // Within the same round trip (prior_delivered before last_delivered) a D-SACK is disregarded.
    rack.dsackSeen = true;
    rack.updateReoWnd(10, 25);
    expect(rack.reoWndSteps).toBe(2);
    rack.reoWndPersist = 0;
    rack.updateReoWnd(30, 40);
    expect(rack.reoWndSteps).toBe(1);
  });
});

describe('a peer without SACK: NewReno on duplicate ACKs (tcp_add_reno_sack, tcp_newreno_mark_lost)', () => {
  it('three duplicate ACKs mark the head lost; a partial ACK marks the next head; the full ACK ends recovery', () => {
    const s = sender({ sackOk: false });
    s.tp.cwnd = 10;
    s.ack(50_000, 2000);
    expect(s.tp.cwnd).toBe(11);
    s.transmit(50_000);
    // Keep to the ten segments (the window is the socket's concern).
    s.sb.queue.splice(9);
    s.sb.tsorted.splice(s.sb.tsorted.length - 2);
    s.sb.packetsOut = 9;
    s.sb.sndNxt = 11000;
    // Duplicate ACKs: each counts one segment delivered out of order (sacked_out).
    s.ack(50_200, 2000);
    expect(s.counters()).toMatchObject({ state: 'Disorder', sackedOut: 1, lostOut: 0 });
    s.ack(50_300, 2000);
    expect(s.counters()).toMatchObject({ state: 'Disorder', sackedOut: 2, lostOut: 0 });
    const out = s.ack(50_400, 2000);
    // sacked_out reaches reordering (3): the head is lost, Recovery, ssthresh 11 / 2.
    expect(out.rexmit).toBe('lost');
    expect(s.counters()).toMatchObject({ state: 'Recovery', ssthresh: 5, sackedOut: 3, lostOut: 1 });
    expect(s.transmit(50_400)).toEqual(['rtx 2000']);
    // A partial ACK (to 4000: the retransmission and [3000, 4000)) marks the new head lost (NewReno).
    s.ack(99_400, 4000);
    expect(s.tp.caState).toBe('Recovery');
    expect(s.sb.find(4000)!.sacked & LOST).toBe(LOST);
    expect(s.transmit(99_400)).toEqual(['rtx 4000']);
    // The ACK of high_seq itself: NewReno holds Recovery until something above it is ACKed
    // (tcp_is_non_sack_preventing_reopen, RFC 6582), against false fast retransmits.
    s.ack(150_000, 11000);
    expect(s.counters()).toMatchObject({ state: 'Recovery', sackedOut: 0, lostOut: 0, retransOut: 0 });
    s.sb.sent(11000, 12000, 150_000);
    s.ack(200_000, 12000);
    expect(s.counters()).toMatchObject({ state: 'Open', cwnd: 5, ssthresh: 5, packetsOut: 0 });
  });
});
