// `conntrack -L`, `-E` and `-S` lines, by replaying the exchanges recorded on Linux (fixtures.ts) through the emulator.

import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/core/scheduler.ts';
import { Conntrack } from '../../../src/netfilter/conntrack/conntrack.ts';
import {
  formatEntry,
  formatEvent,
  formatEventSummary,
  formatList,
  formatStats,
  protocolName,
} from '../../../src/netfilter/conntrack/format.ts';
import { echoPacket, icmpErrorPacket, rawPacket, udpPacket } from '../../support/packets.ts';
import {
  EVENT_SUMMARY_6,
  EVENTS_TCP_CLOSE,
  EVENTS_UDP_AND_RST,
  EVENTS_UDP_EXPIRY,
  LIST,
  LIST_SUMMARY_2,
  STATS_LINE,
} from './fixtures.ts';
import { at, TcpConversation, trip } from './harness.ts';

/** The only listed entry, formatted. */
function only(ct: Conntrack, now: number, options: { showId?: boolean; extended?: boolean } = {}): string {
  const entries = ct.entries(now);
  expect(entries.length).toBe(1);
  return formatEntry(ct, entries[0]!, now, options);
}

function tcpEcho(ct: Conntrack, port: number, close: boolean): number {
  const conv = new TcpConversation({ client: `10.0.0.1:${port}`, server: '10.0.0.2:8000' });
  const rows: [number, '>' | '<', string, number][] = [
    [0, '>', 'S', 0],
    [0.0001, '<', 'SA', 0],
    [0.0002, '>', 'A', 0],
    [0.0003, '>', 'PA', 5],
    [0.0004, '<', 'A', 0],
    [0.0005, '<', 'PA', 5],
    [0.0006, '>', 'A', 0],
  ];
  if (close) rows.push([0.0007, '>', 'FA', 0], [0.0008, '<', 'FA', 0], [0.0009, '>', 'A', 0]);
  for (const [seconds, dir, flags, len] of rows) trip(ct, conv.segment(dir, flags, len), at(seconds));
  return rows.at(-1)![0];
}

describe('conntrack -L lines match Linux', () => {
  it('ICMP echo, replied and not', () => {
    const ct = new Conntrack();
    trip(ct, echoPacket('10.0.0.1', '10.0.0.2', 23009, 1), 0);
    trip(ct, echoPacket('10.0.0.2', '10.0.0.1', 23009, 1, true), at(0.0002));
    expect(only(ct, at(0.5))).toBe(LIST.icmpEcho);

    const lonely = new Conntrack();
    trip(lonely, echoPacket('10.0.0.1', '10.0.0.9', 25482, 1), 0);
    expect(only(lonely, at(4.5))).toBe(LIST.icmpUnreplied);
  });

  it('UDP replied, assured, and unreplied after a port unreachable', () => {
    const ct = new Conntrack();
    trip(ct, udpPacket('10.0.0.1:41000', '10.0.0.2:5353'), 0);
    trip(ct, udpPacket('10.0.0.2:5353', '10.0.0.1:41000'), at(0.0005));
    expect(only(ct, at(0.6))).toBe(LIST.udpReplied);
    trip(ct, udpPacket('10.0.0.1:41000', '10.0.0.2:5353'), at(2.5));
    trip(ct, udpPacket('10.0.0.2:5353', '10.0.0.1:41000'), at(2.5005));
    expect(only(ct, at(3))).toBe(LIST.udpAssured);
    const withId = only(ct, at(3), { showId: true });
    expect(withId.replace(/id=\d+$/, 'id=3028628784')).toBe(LIST.udpAssuredWithId);

    const refused = new Conntrack();
    const datagram = udpPacket('10.0.0.1:42000', '10.0.0.2:9999');
    trip(refused, datagram, 0, 'OUTPUT');
    trip(refused, icmpErrorPacket('10.0.0.2', '10.0.0.1', 'port-unreachable', datagram), at(0.0001));
    expect(only(refused, at(0.5))).toBe(LIST.udpUnreplied);
    expect(only(refused, at(4.5), { extended: true })).toBe(LIST.udpExtended);
  });

  it('TCP established and in TIME_WAIT', () => {
    const open = new Conntrack();
    const last = tcpEcho(open, 41234, false);
    expect(only(open, at(last + 0.5))).toBe(LIST.tcpEstablished);
    const closed = new Conntrack();
    const end = tcpEcho(closed, 41240, true);
    expect(only(closed, at(end + 0.5))).toBe(LIST.tcpTimeWait);
  });

  it('an unknown protocol, and the summary on stderr', () => {
    const ct = new Conntrack();
    trip(ct, rawPacket('10.0.0.1', '10.0.0.2', 253), 0);
    expect(only(ct, at(0.5))).toBe(LIST.unknown253);
    trip(ct, udpPacket('10.0.0.1:42000', '10.0.0.2:9999'), 0);
    const list = formatList(ct, at(0.5));
    expect(list.stdout.split('\n')).toEqual([LIST.unknown253, LIST.udpUnreplied, '']);
    expect(list.stderr).toBe(`${LIST_SUMMARY_2}\n`);
    expect(protocolName(47)).toBe('gre');
  });
});

describe('conntrack -E lines match Linux', () => {
  it('a TCP connection opened, used and closed', () => {
    const ct = new Conntrack();
    const lines: string[] = [];
    let now = 0;
    ct.onEvent((type, index) => lines.push(formatEvent(ct, type, index, now)));
    const conv = new TcpConversation({ client: '10.0.0.1:41240', server: '10.0.0.2:8000' });
    const rows: [number, '>' | '<', string, number][] = [
      [0, '>', 'S', 0],
      [0.0001, '<', 'SA', 0],
      [0.0002, '>', 'A', 0],
      [0.0003, '>', 'PA', 5],
      [0.0004, '<', 'A', 0],
      [0.0005, '<', 'PA', 5],
      [0.0006, '>', 'A', 0],
      [0.0007, '>', 'FA', 0],
      [0.0008, '<', 'FA', 0],
      [0.0009, '>', 'A', 0],
    ];
    for (const [seconds, dir, flags, len] of rows) {
      now = at(seconds);
      trip(ct, conv.segment(dir, flags, len), now);
    }
    expect(lines).toEqual(EVENTS_TCP_CLOSE);
    expect(formatEventSummary(lines.length)).toBe(EVENT_SUMMARY_6);
  });

  it('a UDP stream, then a SYN refused with a RST', () => {
    const ct = new Conntrack();
    const lines: string[] = [];
    let now = 0;
    ct.onEvent((type, index) => lines.push(formatEvent(ct, type, index, now)));
    const step = (seconds: number, pkt: Parameters<typeof trip>[1]) => {
      now = at(seconds);
      trip(ct, pkt, now);
    };
    step(0, udpPacket('10.0.0.1:41000', '10.0.0.2:5353'));
    step(0.0005, udpPacket('10.0.0.2:5353', '10.0.0.1:41000'));
    step(2.5, udpPacket('10.0.0.1:41000', '10.0.0.2:5353'));
    step(2.5005, udpPacket('10.0.0.2:5353', '10.0.0.1:41000'));
    const conv = new TcpConversation({ client: '10.0.0.1:43000', server: '10.0.0.2:8001' });
    step(3, conv.segment('>', 'S'));
    step(3.0001, conv.segment('<', 'RA', 0, { seq: 0, window: 0 }));
    expect(lines).toEqual(EVENTS_UDP_AND_RST);
  });
});

describe('conntrack -E on expiry', () => {
  it('reports the DESTROY of the sweep without a timeout column', () => {
    const scheduler = new Scheduler();
    const ct = new Conntrack();
    ct.settings.udp.timeoutUnreplied = at(3);
    ct.attachScheduler(scheduler);
    const lines: string[] = [];
    ct.onEvent((type, index) => lines.push(formatEvent(ct, type, index, scheduler.now)));
    trip(ct, udpPacket('10.0.0.1:42000', '10.0.0.2:9999'), 0, 'OUTPUT');
    scheduler.runUntilIdle();
    expect(lines).toEqual(EVENTS_UDP_EXPIRY);
    expect(scheduler.now).toBe(at(3));
  });
});

describe('conntrack -S', () => {
  it('prints the kernel counters in the order and spacing of conntrack-tools', () => {
    const ct = new Conntrack();
    const conv = new TcpConversation({ client: '10.0.0.1:1', server: '10.0.0.2:2' });
    trip(ct, conv.segment('>', 'FA'), 0); // a FIN out of nowhere: invalid
    expect(formatStats(ct.stats)).toBe(STATS_LINE);
  });
});
