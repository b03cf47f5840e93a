// Ladder tests of the UDP tracker: 30 s until replied, then 120 s and ASSURED once a packet arrives more than 2 s after the entry was created.

import { describe, expect, it } from 'vitest';
import { Conntrack } from '../../../src/netfilter/conntrack/conntrack.ts';
import { udpPacket } from '../../support/packets.ts';
import { at, summary, trip } from './harness.ts';

const CLIENT = '10.0.0.1:41000';
const SERVER = '10.0.0.2:5353';

/** One line per datagram: `>` client to server, `<` back. */
function ladder(ct: Conntrack, rows: readonly (readonly [number, '>' | '<'])[]): string[] {
  let index = -1;
  return rows.map(([seconds, dir]) => {
    const now = at(seconds);
    const pkt = dir === '>' ? udpPacket(CLIENT, SERVER) : udpPacket(SERVER, CLIENT);
    trip(ct, pkt, now);
    if (pkt.ctIndex >= 0) index = pkt.ctIndex;
    return `${seconds} ${dir}: ${summary(ct, pkt, index, now)}`;
  });
}

describe('UDP tracker ladders', () => {
  it('mirrors nf_conntrack_udp_packet: replied, then a stream after 2 s', () => {
    expect(
      ladder(new Conntrack(), [
        [0, '>'],
        [0.001, '<'],
        [1, '>'],
        [2, '<'],
        [2.5, '>'],
        [3, '<'],
        [60, '>'],
      ]),
    ).toEqual([
      '0 >: NEW - 30 UNREPLIED',
      '0.001 <: ESTABLISHED - 30 SEEN_REPLY', // the first reply itself still gets 30 s
      '1 >: ESTABLISHED - 30 SEEN_REPLY', // within 2 s of creation
      '2 <: ESTABLISHED - 30 SEEN_REPLY', // time_after(now, stream_ts) is strict
      '2.5 >: ESTABLISHED - 120 ASSURED',
      '3 <: ESTABLISHED - 120 ASSURED',
      '60 >: ESTABLISHED - 120 ASSURED',
    ]);
  });

  it('keeps an unanswered flow 30 s from its last packet, then forgets it', () => {
    const ct = new Conntrack();
    expect(
      ladder(ct, [
        [0, '>'],
        [10, '>'],
        [39.999, '>'],
        [70, '>'],
      ]),
    ).toEqual([
      '0 >: NEW - 30 UNREPLIED',
      '10 >: NEW - 30 UNREPLIED',
      '39.999 >: NEW - 30 UNREPLIED',
      '70 >: NEW - 30 UNREPLIED', // the old entry expired at 69.999; this is a new one
    ]);
    expect(ct.count).toBe(1);
  });

  it('refuses a datagram whose length field exceeds the packet (udp_error)', () => {
    const ct = new Conntrack();
    const pkt = udpPacket(CLIENT, SERVER);
    const at4 = pkt.network + 20 + 4;
    pkt.buf[at4] = 0x01; // UDP length 256+
    trip(ct, pkt, 0);
    expect(pkt.ctIndex).toBe(-1);
    expect(ct.stats.invalid).toBe(1);
    expect(ct.count).toBe(0);
  });

  it('verifies checksums at PREROUTING only when nf_conntrack_checksum is on', () => {
    const ct = new Conntrack();
    const bad = () => {
      const pkt = udpPacket(CLIENT, SERVER);
      pkt.buf[pkt.network + 20 + 6] ^= 0xff;
      return pkt;
    };
    const first = bad();
    trip(ct, first, 0);
    expect(first.ctIndex).toBeGreaterThanOrEqual(0);
    ct.settings.checksum = true;
    const second = bad();
    trip(ct, second, 0, 'OUTPUT');
    expect(second.ctIndex).toBeGreaterThanOrEqual(0); // OUTPUT: assumed correct
    const third = bad();
    trip(ct, third, 0, 'PREROUTING');
    expect(third.ctIndex).toBe(-1);
  });
});
