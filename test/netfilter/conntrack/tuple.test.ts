// Tuples read from packet bytes, and their inversion.

import { describe, expect, it } from 'vitest';
import {
  createTuple,
  extractTuple,
  icmpTuple,
  invertTuple,
  makeTuple,
  tupleEquals,
} from '../../../src/netfilter/conntrack/tuple.ts';
import { ipv4 } from '../../support/frames.ts';
import { echoPacket, ip, rawPacket, tcpPacket, udpPacket } from '../../support/packets.ts';

describe('extractTuple', () => {
  it('reads TCP and UDP 5-tuples at the network offset', () => {
    const out = createTuple();
    const tcp = tcpPacket({ src: '10.244.1.5:41234', dst: '10.96.40.12:80', seq: 1, flags: 'S' });
    expect(extractTuple(tcp.buf, tcp.network, tcp.end, out)).toBe(tcp.network + 20);
    expect(out).toEqual(makeTuple(ip('10.244.1.5'), ip('10.96.40.12'), 6, 41234, 80));
    const udp = udpPacket('10.0.0.1:5353', '224.0.0.251:5353');
    extractTuple(udp.buf, udp.network, udp.end, out);
    expect(out).toEqual(makeTuple(ip('10.0.0.1'), ip('224.0.0.251'), 17, 5353, 5353));
  });

  it('reads ICMP id, type and code; other protocols have no ports', () => {
    const out = createTuple();
    const echo = echoPacket('10.0.0.1', '10.0.0.2', 1234, 7);
    extractTuple(echo.buf, echo.network, echo.end, out);
    expect(out).toEqual(icmpTuple(ip('10.0.0.1'), ip('10.0.0.2'), 8, 0, 1234));
    const igmp = rawPacket('10.244.1.1', '224.0.0.22', 2);
    extractTuple(igmp.buf, igmp.network, igmp.end, out);
    expect(out).toEqual(makeTuple(ip('10.244.1.1'), ip('224.0.0.22'), 2));
  });

  it('refuses non-first fragments, truncated transport headers and bad IHL', () => {
    const out = createTuple();
    const fragment = ipv4(
      { src: ip('10.0.0.1'), dst: ip('10.0.0.2'), protocol: 17, fragmentOffset: 1480 },
      new Uint8Array(8),
    );
    expect(extractTuple(fragment, 0, fragment.length, out)).toBe(-1);
    const first = ipv4(
      { src: ip('10.0.0.1'), dst: ip('10.0.0.2'), protocol: 17, moreFragments: true },
      new Uint8Array(8),
    );
    expect(extractTuple(first, 0, first.length, out)).toBe(20);
    const short = ipv4({ src: ip('10.0.0.1'), dst: ip('10.0.0.2'), protocol: 6 }, new Uint8Array(3));
    expect(extractTuple(short, 0, short.length, out)).toBe(-1);
    const shortIcmp = ipv4({ src: ip('10.0.0.1'), dst: ip('10.0.0.2'), protocol: 1 }, new Uint8Array(7));
    expect(extractTuple(shortIcmp, 0, shortIcmp.length, out)).toBe(-1);
    const badIhl = Uint8Array.from(first);
    badIhl[0] = 0x44;
    expect(extractTuple(badIhl, 0, badIhl.length, out)).toBe(-1);
    expect(extractTuple(first, 0, 19, out)).toBe(-1);
  });
});

describe('invertTuple', () => {
  it('swaps addresses and ports (nf_ct_invert_tuple), in place too', () => {
    const t = makeTuple(ip('10.0.0.1'), ip('10.0.0.2'), 6, 1000, 80);
    const inverse = createTuple();
    expect(invertTuple(t, inverse)).toBe(true);
    expect(inverse).toEqual(makeTuple(ip('10.0.0.2'), ip('10.0.0.1'), 6, 80, 1000));
    expect(invertTuple(inverse, inverse)).toBe(true);
    expect(tupleEquals(inverse, t)).toBe(true);
  });

  it('maps ICMP requests to replies with the same id and code, and refuses errors', () => {
    const out = createTuple();
    expect(invertTuple(icmpTuple(1, 2, 8, 0, 77), out)).toBe(true);
    expect(out).toEqual(icmpTuple(2, 1, 0, 0, 77));
    expect(invertTuple(icmpTuple(1, 2, 13, 0, 5), out)).toBe(true);
    expect(out).toEqual(icmpTuple(2, 1, 14, 0, 5));
    expect(invertTuple(icmpTuple(1, 2, 3, 3, 0), out)).toBe(false);
    expect(invertTuple(icmpTuple(1, 2, 200, 0, 0), out)).toBe(false);
  });
});
