// Ladder tests of the TCP tracker on a manual clock: one segment per line, then the packet's ctstate and the entry's state, timeout and status.

import { describe, expect, it } from 'vitest';
import { Conntrack, type ConntrackEventType } from '../../../src/netfilter/conntrack/conntrack.ts';
import {
  IP_CT_TCP_FLAG_CLOSE_INIT,
  TCP_CONNTRACK_ESTABLISHED,
  TCP_CONNTRACK_SYN_RECV,
  TCP_CONNTRACK_SYN_SENT,
  TCP_CONNTRACK_SYN_SENT2,
  tcpTransition,
  tcpWindow,
} from '../../../src/netfilter/conntrack/tcp.ts';
import { at, summary, TcpConversation, trip } from './harness.ts';

type Row = readonly [
  seconds: number,
  dir: '>' | '<',
  flags: string,
  len?: number,
  overrides?: { seq?: number; ack?: number; window?: number },
];

/** Runs the rows and returns one ladder line per segment. */
function ladder(ct: Conntrack, conv: TcpConversation, rows: readonly Row[]): string[] {
  let index = -1;
  return rows.map(([seconds, dir, flags, len = 0, overrides = {}]) => {
    const now = at(seconds);
    const pkt = conv.segment(dir, flags, len, overrides);
    trip(ct, pkt, now);
    if (pkt.ctIndex >= 0) index = pkt.ctIndex;
    return `${dir} ${flags}${len > 0 ? ` ${len}` : ''}: ${summary(ct, pkt, index, now)}`;
  });
}

function conversation(): TcpConversation {
  return new TcpConversation({ client: '10.0.0.1:41240', server: '10.0.0.2:8000' });
}

describe('TCP tracker ladders', () => {
  it('follows a connection from SYN to TIME_WAIT with Linux timeouts', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'S'],
        [0.001, '<', 'SA'],
        [0.002, '>', 'A'],
        [0.003, '>', 'PA', 5],
        [0.004, '<', 'PA', 5],
        [0.005, '>', 'A'],
        [10, '>', 'FA'],
        [10.001, '<', 'FA'],
        [10.002, '>', 'A'],
      ]),
    ).toEqual([
      '> S: NEW SYN_SENT 120 UNREPLIED',
      '< SA: ESTABLISHED SYN_RECV 60 SEEN_REPLY',
      '> A: ESTABLISHED ESTABLISHED 432000 ASSURED',
      '> PA 5: ESTABLISHED ESTABLISHED 300 ASSURED', // data not yet acknowledged: UNACK
      '< PA 5: ESTABLISHED ESTABLISHED 300 ASSURED',
      '> A: ESTABLISHED ESTABLISHED 432000 ASSURED',
      '> FA: ESTABLISHED FIN_WAIT 120 ASSURED',
      '< FA: ESTABLISHED LAST_ACK 30 ASSURED',
      '> A: ESTABLISHED TIME_WAIT 120 ASSURED',
    ]);
  });

  it('goes through CLOSE_WAIT when the FIN is acknowledged alone', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'S'],
        [0, '<', 'SA'],
        [0, '>', 'A'],
        [1, '<', 'FA'],
        [1, '>', 'A'],
        [2, '>', 'FA'],
        [2, '<', 'A'],
      ]),
    ).toEqual([
      '> S: NEW SYN_SENT 120 UNREPLIED',
      '< SA: ESTABLISHED SYN_RECV 60 SEEN_REPLY',
      '> A: ESTABLISHED ESTABLISHED 432000 ASSURED',
      '< FA: ESTABLISHED FIN_WAIT 120 ASSURED',
      '> A: ESTABLISHED CLOSE_WAIT 60 ASSURED',
      '> FA: ESTABLISHED LAST_ACK 30 ASSURED',
      '< A: ESTABLISHED TIME_WAIT 120 ASSURED',
    ]);
  });

  it('deletes the entry when the only answer to a SYN is a RST (connection refused)', () => {
    const ct = new Conntrack();
    const events: string[] = [];
    ct.onEvent((type: ConntrackEventType, index) => events.push(`${type} ${ct.tcpStateName(index)}`));
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'S'],
        [0.001, '<', 'RA', 0, { seq: 0, window: 0 }],
      ]),
    ).toEqual(['> S: NEW SYN_SENT 120 UNREPLIED', '< RA: ESTABLISHED gone']);
    expect(events).toEqual(['NEW SYN_SENT', 'DESTROY CLOSE']);
    expect(ct.count).toBe(0);
  });

  it('gives a RST in an established connection the CLOSE timeout', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'S'],
        [0, '<', 'SA'],
        [0, '>', 'A'],
        [5, '>', 'RA'],
      ]),
    ).toEqual([
      '> S: NEW SYN_SENT 120 UNREPLIED',
      '< SA: ESTABLISHED SYN_RECV 60 SEEN_REPLY',
      '> A: ESTABLISHED ESTABLISHED 432000 ASSURED',
      '> RA: ESTABLISHED CLOSE 10 ASSURED',
    ]);
  });

  it('does not renew the timeout on a retransmitted SYN', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'S'],
        [3, '>', 'S', 0, { seq: 1000 }],
        [9, '>', 'S', 0, { seq: 1000 }],
      ]),
    ).toEqual([
      '> S: NEW SYN_SENT 120 UNREPLIED',
      '> S: NEW SYN_SENT 117 UNREPLIED',
      '> S: NEW SYN_SENT 111 UNREPLIED',
    ]);
  });

  it('marks packets the state table rejects INVALID and leaves the entry alone', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'S'],
        [1, '>', 'A'], // an ACK before any SYN/ACK: sSS -> sIV
        [2, '>', 'SF', 0, { seq: 1001 }], // tcp_error: SYN+FIN is no valid combination
      ]),
    ).toEqual([
      '> S: NEW SYN_SENT 120 UNREPLIED',
      '> A: INVALID SYN_SENT 119 UNREPLIED',
      '> SF: INVALID SYN_SENT 118 UNREPLIED',
    ]);
    expect(ct.stats.invalid).toBe(2);
  });

  it('creates no entry for a SYN/ACK, FIN or RST out of nowhere', () => {
    const ct = new Conntrack();
    const conv = conversation();
    for (const flags of ['SA', 'FA', 'R', 'RA']) {
      const pkt = conv.segment('>', flags);
      expect(trip(ct, pkt, 0)).toEqual({ process: 'accept', confirm: 'accept' });
      expect(pkt.ctIndex).toBe(-1);
    }
    expect(ct.count).toBe(0);
    expect(ct.stats.invalid).toBe(4);
  });

  it('picks up a connection from a mid-stream ACK (nf_conntrack_tcp_loose)', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'A'],
        [0.001, '<', 'A'],
        [0.002, '>', 'A'],
      ]),
    ).toEqual([
      '> A: NEW ESTABLISHED 300 UNREPLIED',
      '< A: ESTABLISHED ESTABLISHED 300 SEEN_REPLY',
      '> A: ESTABLISHED ESTABLISHED 432000 ASSURED',
    ]);
  });

  it('refuses mid-stream pick-up when loose is off', () => {
    const ct = new Conntrack();
    ct.settings.tcp.loose = false;
    const pkt = conversation().segment('>', 'A');
    trip(ct, pkt, 0);
    expect(pkt.ctIndex).toBe(-1);
    expect(ct.count).toBe(0);
  });

  it('marks a segment beyond the receive window INVALID (no be_liberal)', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, conversation(), [
        [0, '>', 'S'],
        [0, '<', 'SA'],
        [0, '>', 'A'],
        [1, '>', 'PA', 100, { seq: 1001 + 10_000_000 }],
      ]),
    ).toEqual([
      '> S: NEW SYN_SENT 120 UNREPLIED',
      '< SA: ESTABLISHED SYN_RECV 60 SEEN_REPLY',
      '> A: ESTABLISHED ESTABLISHED 432000 ASSURED',
      '> PA 100: INVALID ESTABLISHED 431999 ASSURED',
    ]);
  });

  it('lets the same segment through with nf_conntrack_tcp_be_liberal', () => {
    const ct = new Conntrack();
    ct.settings.tcp.beLiberal = true;
    const lines = ladder(ct, conversation(), [
      [0, '>', 'S'],
      [0, '<', 'SA'],
      [0, '>', 'A'],
      [1, '>', 'PA', 100, { seq: 1001 + 10_000_000 }],
    ]);
    expect(lines[3]).toBe('> PA 100: ESTABLISHED ESTABLISHED 432000 ASSURED');
  });

  it('reopens a connection in TIME_WAIT with a new SYN (the old entry is destroyed)', () => {
    const ct = new Conntrack();
    const events: string[] = [];
    ct.onEvent((type, index) => events.push(`${type} ${ct.tcpStateName(index)}`));
    const conv = conversation();
    const lines = ladder(ct, conv, [
      [0, '>', 'S'],
      [0, '<', 'SA'],
      [0, '>', 'A'],
      [1, '>', 'FA'],
      [1, '<', 'FA'],
      [1, '>', 'A'],
      [5, '>', 'S', 0, { seq: 900_000 }],
    ]);
    expect(lines.at(-2)).toBe('> A: ESTABLISHED TIME_WAIT 120 ASSURED');
    expect(lines.at(-1)).toBe('> S: NEW SYN_SENT 120 UNREPLIED');
    expect(events).toEqual([
      'NEW SYN_SENT',
      'UPDATE SYN_RECV',
      'UPDATE ESTABLISHED',
      'UPDATE FIN_WAIT',
      'UPDATE LAST_ACK',
      'UPDATE TIME_WAIT',
      'DESTROY TIME_WAIT',
      'NEW SYN_SENT',
    ]);
    expect(ct.count).toBe(1);
  });

  it('counts three identical ACKs as retransmissions and shortens the timeout to RETRANS', () => {
    const ct = new Conntrack();
    const conv = conversation();
    const lines = ladder(ct, conv, [
      [0, '>', 'S'],
      [0, '<', 'SA'],
      [0, '>', 'A'],
      [1, '>', 'PA', 10],
      [2, '>', 'PA', 10, { seq: 1001 }],
      [3, '>', 'PA', 10, { seq: 1001 }],
      [4, '>', 'PA', 10, { seq: 1001 }],
    ]);
    // Unacknowledged data already gives UNACK (300); RETRANS is also 300 by default.
    expect(lines.slice(3)).toEqual([
      '> PA 10: ESTABLISHED ESTABLISHED 300 ASSURED',
      '> PA 10: ESTABLISHED ESTABLISHED 300 ASSURED',
      '> PA 10: ESTABLISHED ESTABLISHED 300 ASSURED',
      '> PA 10: ESTABLISHED ESTABLISHED 300 ASSURED',
    ]);
    // With a distinct RETRANS timeout the retransmission rule is visible.
    const ct2 = new Conntrack();
    ct2.settings.tcp.timeouts[12] = 200 * 1e9;
    const lines2 = ladder(ct2, conversation(), [
      [0, '>', 'S'],
      [0, '<', 'SA'],
      [0, '>', 'A'],
      [1, '>', 'PA', 10],
      [2, '>', 'PA', 10, { seq: 1001 }],
      [3, '>', 'PA', 10, { seq: 1001 }],
      [4, '>', 'PA', 10, { seq: 1001 }],
    ]);
    expect(lines2.slice(3)).toEqual([
      '> PA 10: ESTABLISHED ESTABLISHED 300 ASSURED',
      '> PA 10: ESTABLISHED ESTABLISHED 300 ASSURED',
      '> PA 10: ESTABLISHED ESTABLISHED 300 ASSURED',
      '> PA 10: ESTABLISHED ESTABLISHED 200 ASSURED',
    ]);
  });

  it('records window scale and SACK from the handshake', () => {
    const ct = new Conntrack();
    const conv = conversation();
    const syn = conv.segment('>', 'S');
    trip(ct, syn, 0);
    trip(ct, conv.segment('<', 'SA'), 0);
    const original = tcpWindow(ct.table, syn.ctIndex, 0);
    const reply = tcpWindow(ct.table, syn.ctIndex, 1);
    expect(original.tdScale).toBe(7);
    expect(reply.tdScale).toBe(7);
    expect(original.tdEnd).toBe(1001);
    expect(reply.tdEnd).toBe(5001);
    expect(reply.tdMaxAck).toBe(1001);
    expect(original.flags & IP_CT_TCP_FLAG_CLOSE_INIT).toBe(0);
  });

  it('has the kernel state table for simultaneous open', () => {
    const SYN = 0x02;
    const ACK = 0x10;
    expect(tcpTransition(1, SYN, TCP_CONNTRACK_SYN_SENT)).toBe(TCP_CONNTRACK_SYN_SENT2);
    expect(tcpTransition(0, SYN | ACK, TCP_CONNTRACK_SYN_SENT2)).toBe(TCP_CONNTRACK_SYN_RECV);
    expect(tcpTransition(0, ACK, TCP_CONNTRACK_SYN_RECV)).toBe(TCP_CONNTRACK_ESTABLISHED);
  });

  it('tracks a simultaneous open to ESTABLISHED', () => {
    const ct = new Conntrack();
    const conv = conversation();
    expect(
      ladder(ct, conv, [
        [0, '>', 'S'],
        [1, '<', 'S'],
        [2, '>', 'SA', 0, { seq: 1000 }],
        [3, '<', 'SA', 0, { seq: 5000 }],
        [4, '>', 'A'],
      ]),
    ).toEqual([
      '> S: NEW SYN_SENT 120 UNREPLIED',
      '< S: ESTABLISHED SYN_SENT2 119 SEEN_REPLY', // a SYN in SYN_SENT does not renew the timeout
      '> SA: ESTABLISHED SYN_RECV 60 SEEN_REPLY',
      '< SA: ESTABLISHED SYN_RECV 59 SEEN_REPLY', // sSR + SYN/ACK in reply: ignored, no refresh
      '> A: ESTABLISHED ESTABLISHED 432000 ASSURED',
    ]);
  });
});
