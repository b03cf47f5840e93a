import { describe, expect, it } from 'vitest';
import { OfoQueue } from '../../../src/socket/tcp/ofo-queue.ts';
import { SackBlocks } from '../../../src/socket/tcp/sack-blocks.ts';
import { FLAG_WIN_UPDATE } from '../../../src/socket/tcp/scoreboard.ts';
import { SenderControl } from '../../../src/socket/tcp/sender-control.ts';

// The loss-recovery modules wired together through SenderControl, as TcpSocket would use them, over a path with a
// 10 ms one-way delay on a manual clock: a sender (scoreboard, RACK, recovery, CUBIC) and a receiver
// (out-of-order queue, SACK blocks) that ACKs every segment at once. One segment is lost once.

const MSS = 1000;
const ISN = 1000;
const DELAY_US = 10_000;

type Event = { at: number; order: number; run: () => void };

function path(total: number, lost: number[], lostRetransmissions: number[] = []) {
  const events: Event[] = [];
  let order = 0;
  let now = 0;
  const at = (time: number, run: () => void) => events.push({ at: time, order: order++, run });
  const log: string[] = [];

  // Sender.
  const host = {
    srttUs: 0,
    sackOk: true,
    rttSample(us: number) {
      host.srttUs = host.srttUs === 0 ? us : Math.floor((7 * host.srttUs + us) / 8);
    },
  };
  const sender = new SenderControl(
    { congestion: 'cubic', mss: MSS, maxWindow: 1 << 20, initialCwnd: 10 },
    host,
  );
  const { sb, tp } = sender;
  sender.start(ISN, 0);
  const end = ISN + total * MSS;
  const dropped = new Set(lost);
  const droppedRetransmissions = new Set(lostRetransmissions);
  let reoTimer = -1;

  // Receiver.
  const sack = new SackBlocks(true, () => true);
  const ofo = new OfoQueue(sack);
  let rcvNxt = ISN;
  let deliveredBytes = 0;

  const sendSegment = (seq: number, retransmission: boolean) => {
    const index = (seq - ISN) / MSS;
    log.push(`${now / 1000} ms ${retransmission ? 'rtx' : 'send'} ${index}`);
    const drops = retransmission ? droppedRetransmissions : dropped;
    if (drops.has(index)) {
      drops.delete(index);
      return;
    }
    at(now + DELAY_US, () => receive(seq));
  };
  const transmit = () => {
    for (let segment = sender.nextRetransmit(); segment !== undefined; segment = sender.nextRetransmit()) {
      sender.retransmitted(segment, now * 1000, Math.floor(now / 1000));
      sendSegment(segment.seq, true);
    }
    while (sender.canSend() && sb.sndNxt < end) {
      const seq = sb.sndNxt;
      sender.sent(seq, seq + MSS, now * 1000);
      sendSegment(seq, false);
    }
  };
  // The one transmit timer (icsk_retransmit_timer): the loss probe when tcp_schedule_loss_probe allows.
  let xmitTimer = 0;
  const armProbe = () => {
    const generation = ++xmitTimer;
    const pto = sender.probeTimeout(host.srttUs, 1000, true, 0);
    if (pto < 0) return;
    at(now + pto * 1000, () => {
      if (generation !== xmitTimer) return;
      const probe = sender.lossProbe(sb.sndNxt < end);
      log.push(`${now / 1000} ms probe ${probe.kind}`);
      if (probe.kind === 'retransmit') {
        sender.retransmitted(probe.segment, now * 1000, Math.floor(now / 1000));
        sendSegment(probe.segment.seq, true);
        sender.probeSent(true);
      }
    });
  };
  const onAck = (ack: number, edges: number[]) => {
    const before = tp.caState;
    // Counters as the ACK finds them.
    if (edges.length > 0)
      log.push(
        `  ack ${(ack - ISN) / MSS} sack ${edges.map((e) => (e - ISN) / MSS).join(',')} sacked ${sb.sackedOut} lost ${sb.lostOut}`,
      );
    const fields = {
      ack,
      flag: ack !== sb.sndUna ? FLAG_WIN_UPDATE : 0,
      sackEdges: edges,
      sackCount: edges.length / 2,
    };
    const out = sender.ack({ ...fields, tsEcrMs: 0, cwndLimited: true }, now * 1000);
    if (tp.caState !== before)
      log.push(`${now / 1000} ms ${before} -> ${tp.caState} cwnd ${tp.cwnd} ssthresh ${tp.ssthresh}`);
    if (out.setXmitTimer) armProbe();
    if (out.reoTimeout > 0 && reoTimer < 0) {
      reoTimer = order;
      at(now + out.reoTimeout * 1000, () => {
        reoTimer = -1;
        if (sender.reoTimeout(now * 1000)) transmit();
      });
    }
    transmit();
  };
  const receive = (seq: number) => {
    sack.clearDsack();
    if (seq === rcvNxt) {
      rcvNxt += MSS;
      deliveredBytes += MSS;
      rcvNxt = ofo.drain(rcvNxt, (data) => {
        deliveredBytes += data.length;
      });
      sack.remove(rcvNxt, ofo.empty);
    } else if (seq < rcvNxt) sack.dsackSet(seq, seq + MSS);
    else ofo.insert(seq, new Uint8Array(MSS), false);
    const edges: number[] = [];
    for (let i = 0; i < Math.min(3, sack.blockCount); i++) edges.push(sack.blockStart(i), sack.blockEnd(i));
    sack.dsackSent();
    const ack = rcvNxt;
    at(now + DELAY_US, () => onAck(ack, edges));
  };

  transmit();
  armProbe();
  while (events.length > 0) {
    events.sort((x, y) => x.at - y.at || x.order - y.order);
    const event = events.shift()!;
    now = event.at;
    event.run();
  }
  return { log, tp, sb, deliveredBytes, rcvNxt };
}

describe('one loss in a 30-segment transfer, end to end through the modules', () => {
  it('RACK marks it lost on the third SACK, one fast retransmit, PRR, then CUBIC grows from ssthresh', () => {
    const { log, tp, sb, deliveredBytes, rcvNxt } = path(30, [4]);
    expect(deliveredBytes).toBe(30 * MSS);
    expect(rcvNxt).toBe(ISN + 30 * MSS);
    expect(sb.packetsOut).toBe(0);
    // Initial window of 10 at t = 0; the fifth segment (index 4) is lost.
    expect(log.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `0 ms send ${i}`));
    const recovery = log.findIndex((line) => line.includes('-> Recovery'));
    // The first SACK: Disorder (RACK waits reo_wnd = min_rtt/4); each further SACK frees one segment.
    expect(log.slice(18, 23)).toEqual([
      '  ack 4 sack 5,6 sacked 0 lost 0',
      '20 ms Open -> Disorder cwnd 14 ssthresh 2147483647',
      '20 ms send 18',
      '  ack 4 sack 5,7 sacked 1 lost 0',
      '20 ms send 19',
    ]);
    // The third SACK: sacked_out reaches the dupthresh, reo_wnd 0, segment 4 lost. The four in-order
    // ACKs grew cwnd to 14 in slow start: ssthresh = 14 * 717 / 1024 = 9; PRR: 12 in flight,
    // ceil(9 * 1 / 14) = 1 to send, cwnd 13: the fast retransmit.
    expect(log[recovery]).toBe('20 ms Disorder -> Recovery cwnd 13 ssthresh 9');
    expect(log[recovery + 1]).toBe('20 ms rtx 4');
    // Next: prr_delivered 2, ceil(18 / 14) - 1 = 1 new segment; then ceil(27 / 14) - 2 = 0.
    expect(log.slice(recovery + 2, recovery + 5)).toEqual([
      '  ack 4 sack 5,9 sacked 3 lost 1',
      '20 ms send 20',
      '  ack 4 sack 5,10 sacked 4 lost 1',
    ]);
    expect(log.filter((line) => line.includes('rtx'))).toEqual(['20 ms rtx 4']);
    // The retransmission's ACK passes high_seq: cwnd = ssthresh (tcp_end_cwnd_reduction).
    expect(log.filter((line) => line.includes('-> Open'))).toEqual([
      '40 ms Recovery -> Open cwnd 9 ssthresh 9',
    ]);
    expect(tp.caState).toBe('Open');
    expect(tp.ssthresh).toBe(9);
    expect(sb.retransOut + sb.lostOut + sb.sackedOut).toBe(0);
  });

  it('a tail loss: the probe retransmits the last segment, 2 srtt + TCP_RTO_MIN after the last ACK', () => {
    const { log, tp, sb, deliveredBytes } = path(10, [9]);
    expect(deliveredBytes).toBe(10 * MSS);
    // Nine ACKs at 20 ms (srtt 20 ms) leave one packet out: PTO = 2 * 20 + 200 ms (the delayed ACK's worst case).
    expect(
      log.filter((line) => line.includes('probe') || line.includes('rtx') || line.includes('->')),
    ).toEqual(['260 ms probe retransmit', '260 ms rtx 9']);
    // Its ACK reaches tlp_high_seq but not past it: no reduction yet (tcp_process_tlp_ack waits for
    // an ACK beyond, i.e. of data sent after the probe); slow start went on: 10 + 9 + 1.
    expect(sb.tlpHighSeq).toBe(ISN + 10 * MSS);
    expect([tp.caState, tp.cwnd]).toEqual(['Open', 20]);
  });

  it('a lost retransmission: RACK marks it lost again once data sent after it is SACKed (FLAG_LOST_RETRANS)', () => {
    const { log, deliveredBytes } = path(30, [4], [4]);
    expect(deliveredBytes).toBe(30 * MSS);
    // The first retransmission (20 ms) is lost; segment 20, sent just after it, is SACKed at 40 ms,
    // rack.rtt (20 ms) has passed since the retransmission: lost again and resent, still in Recovery.
    expect(log.filter((line) => line.includes('rtx') || line.includes('->'))).toEqual([
      '20 ms Open -> Disorder cwnd 14 ssthresh 2147483647',
      '20 ms Disorder -> Recovery cwnd 13 ssthresh 9',
      '20 ms rtx 4',
      '40 ms rtx 4',
      '60 ms Recovery -> Open cwnd 9 ssthresh 9',
    ]);
  });
});
