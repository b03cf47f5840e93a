import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  type FilterLinkType,
  type FilterNode,
  LINKTYPE_ETHERNET,
  LINKTYPE_LINUX_SLL2,
  parseFilter,
  tokenize,
} from '../../src/capture/filter/index.ts';
import {
  arpPacket,
  BROADCAST,
  ethernet,
  HOST_A,
  HOST_B,
  icmpMessage,
  ipv4,
  ipv6,
  TCP_ACK,
  TCP_SYN,
  tcpFrame,
  tcpSegment,
  toSll2,
  udpDatagram,
  udpFrame,
} from './filter-frames.ts';

// Table-driven cases: each filter against hand-built frames, each error against libpcap's text (checked
// with tcpdump 4.99.3 / libpcap 1.10.3; filter-tcpdump.test.ts re-checks many of them against the real tool).

const syn = tcpFrame({ src: '10.0.0.1', dst: '10.0.0.2', srcPort: 40000, dstPort: 80, flags: TCP_SYN });
const synAck = tcpFrame(
  { src: '10.0.0.2', dst: '10.0.0.1', srcPort: 80, dstPort: 40000, flags: TCP_SYN | TCP_ACK },
  { src: HOST_B, dst: HOST_A },
);
const https = tcpFrame({ src: '10.0.0.3', dst: '10.0.0.4', srcPort: 50000, dstPort: 443, flags: TCP_ACK });
const dns = udpFrame({ src: '10.0.0.5', dst: '10.96.0.10', srcPort: 33333, dstPort: 53 });
const ping = ethernet(
  { etherType: 0x0800 },
  ipv4({ src: '10.0.0.1', dst: '8.8.8.8', protocol: 1 }, icmpMessage(8, 0)),
);
const arpRequest = ethernet(
  { etherType: 0x0806, dst: BROADCAST },
  arpPacket(1, HOST_A, '10.0.0.1', '00:00:00:00:00:00', '10.0.0.2'),
);
const taggedSyn = ethernet(
  { etherType: 0x0800, tags: [{ tpid: 0x8100, vid: 100 }] },
  ipv4(
    { src: '10.0.0.1', dst: '10.0.0.2', protocol: 6 },
    tcpSegment({ src: '10.0.0.1', dst: '10.0.0.2', srcPort: 40000, dstPort: 80, flags: TCP_SYN }),
  ),
);
const laterFragment = ethernet(
  { etherType: 0x0800 },
  ipv4(
    { src: '10.0.0.1', dst: '10.0.0.2', protocol: 6, fragmentOffset: 1480 },
    Uint8Array.of(0, 80, 0, 80, 0, 0, 0, 0),
  ),
);
const withOptions = ethernet(
  { etherType: 0x0800 },
  ipv4(
    { src: '10.0.0.7', dst: '10.0.0.8', protocol: 17, options: Uint8Array.of(0x94, 0x04, 0, 0) },
    udpDatagram({ src: '10.0.0.7', dst: '10.0.0.8', srcPort: 1234, dstPort: 8080 }),
  ),
);
const ipv6Syn = ethernet(
  { etherType: 0x86dd },
  ipv6(
    '2001:db8::1',
    '2001:db8::2',
    6,
    tcpSegment({ src: '0.0.0.0', dst: '0.0.0.0', srcPort: 40000, dstPort: 80, flags: TCP_SYN }),
  ),
);

interface MatchCase {
  readonly filter: string;
  readonly frame: Uint8Array;
  readonly matches: boolean;
  readonly linkType?: FilterLinkType;
  readonly wireLen?: number;
}

const MATCHES: readonly MatchCase[] = [
  { filter: '', frame: syn, matches: true },
  { filter: '   ', frame: arpRequest, matches: true },
  { filter: 'tcp', frame: syn, matches: true },
  { filter: 'tcp', frame: dns, matches: false },
  { filter: 'udp', frame: dns, matches: true },
  { filter: 'icmp', frame: ping, matches: true },
  { filter: 'arp', frame: arpRequest, matches: true },
  { filter: 'ip', frame: arpRequest, matches: false },
  { filter: 'ip6', frame: ipv6Syn, matches: true },
  // host matches IPv4 and ARP addresses
  { filter: 'host 10.0.0.2', frame: syn, matches: true },
  { filter: 'host 10.0.0.2', frame: arpRequest, matches: true },
  { filter: 'src host 10.0.0.2', frame: syn, matches: false },
  { filter: 'dst host 10.0.0.2', frame: syn, matches: true },
  { filter: 'src or dst host 10.0.0.1', frame: synAck, matches: true },
  { filter: 'src and dst net 10.0.0.0/24', frame: syn, matches: true },
  { filter: 'src and dst net 10.0.0.0/24', frame: dns, matches: false },
  { filter: 'ip host 10.0.0.2', frame: arpRequest, matches: false },
  { filter: 'arp host 10.0.0.2', frame: arpRequest, matches: true },
  // nets, masks and short forms
  { filter: 'net 10.96.0.0/12', frame: dns, matches: true },
  { filter: 'net 10.0.0.0 mask 255.255.255.0', frame: dns, matches: true },
  { filter: 'dst net 10.0.0.0 mask 255.255.255.0', frame: dns, matches: false },
  { filter: 'net 10', frame: ping, matches: true },
  { filter: 'net 10.96', frame: dns, matches: true },
  { filter: 'host 8.8.8.8', frame: ping, matches: true },
  // ports: TCP, UDP, the real IHL, not later fragments
  { filter: 'port 80', frame: syn, matches: true },
  { filter: 'port 80', frame: synAck, matches: true },
  { filter: 'src port 80', frame: syn, matches: false },
  { filter: 'dst port 53', frame: dns, matches: true },
  { filter: 'tcp port 53', frame: dns, matches: false },
  { filter: 'udp port 53', frame: dns, matches: true },
  { filter: 'port 8080', frame: withOptions, matches: true },
  { filter: 'port 80', frame: laterFragment, matches: false },
  { filter: 'tcp', frame: laterFragment, matches: true },
  { filter: 'port 80', frame: ipv6Syn, matches: true },
  { filter: 'portrange 440-450', frame: https, matches: true },
  { filter: 'portrange 450-440', frame: https, matches: true },
  { filter: 'dst portrange 1-100', frame: https, matches: false },
  { filter: 'port http', frame: syn, matches: true },
  { filter: 'port https', frame: https, matches: true },
  // qualifier inheritance
  { filter: 'host 10.0.0.9 or 10.0.0.2', frame: syn, matches: true },
  { filter: 'port 22 or 443', frame: https, matches: true },
  { filter: 'tcp port 80 and not src 10.0.0.1', frame: syn, matches: false },
  { filter: 'tcp port 80 and not src 10.0.0.1', frame: synAck, matches: true },
  { filter: 'tcp dst port 22 or 80', frame: syn, matches: true },
  { filter: 'tcp dst port 22 or 80', frame: synAck, matches: false },
  // and/or have one precedence, left to right; not binds tighter
  { filter: 'tcp or udp and port 53', frame: syn, matches: false },
  { filter: 'tcp or (udp and port 53)', frame: syn, matches: true },
  { filter: '!tcp && !udp', frame: ping, matches: true },
  { filter: 'not tcp || port 80', frame: https, matches: false },
  // protocol numbers
  { filter: 'ip proto 1', frame: ping, matches: true },
  { filter: 'ip proto \\icmp', frame: ping, matches: true },
  { filter: 'proto \\udp', frame: dns, matches: true },
  { filter: 'ip6 proto 6', frame: ipv6Syn, matches: true },
  { filter: 'ether proto \\arp', frame: arpRequest, matches: true },
  { filter: 'ether proto 0x0806', frame: arpRequest, matches: true },
  // lengths: the wire length, not the bytes kept
  { filter: 'greater 60', frame: syn, matches: false },
  { filter: 'less 60', frame: syn, matches: true },
  { filter: 'greater 1000', frame: syn.subarray(0, 54), matches: true, wireLen: 1500 },
  { filter: 'len = 54', frame: syn, matches: true },
  // link layer
  { filter: 'ether src 02:00:00:00:00:01', frame: syn, matches: true },
  { filter: 'ether dst 02:00:00:00:00:01', frame: syn, matches: false },
  { filter: 'ether host 0200.0000.0002', frame: syn, matches: true },
  { filter: 'ether broadcast', frame: arpRequest, matches: true },
  { filter: 'broadcast', frame: syn, matches: false },
  { filter: 'ether multicast', frame: arpRequest, matches: true },
  // vlan: without the keyword a tagged frame is not ip; after it every offset moves by 4
  { filter: 'ip', frame: taggedSyn, matches: false },
  { filter: 'vlan', frame: taggedSyn, matches: true },
  { filter: 'vlan 100', frame: taggedSyn, matches: true },
  { filter: 'vlan 200', frame: taggedSyn, matches: false },
  { filter: 'vlan and tcp port 80', frame: taggedSyn, matches: true },
  { filter: 'vlan and tcp port 80', frame: syn, matches: false },
  { filter: 'tcp or vlan', frame: syn, matches: true },
  { filter: 'vlan or tcp', frame: syn, matches: false },
  // byte access
  { filter: 'tcp[tcpflags] & tcp-syn != 0', frame: syn, matches: true },
  { filter: 'tcp[tcpflags] & (tcp-syn|tcp-ack) = tcp-syn', frame: synAck, matches: false },
  { filter: 'tcp[13] = 0x12', frame: synAck, matches: true },
  { filter: 'icmp[icmptype] == icmp-echo', frame: ping, matches: true },
  { filter: 'icmp[icmptype] = icmp-echoreply', frame: ping, matches: false },
  { filter: 'ip[0] & 0xf > 5', frame: withOptions, matches: true },
  { filter: 'udp[2:2] = 8080', frame: withOptions, matches: true },
  { filter: 'ip[9] = 17', frame: dns, matches: true },
  { filter: 'ether[12:2] = 0x0806', frame: arpRequest, matches: true },
  { filter: 'arp[6:2] = 1', frame: arpRequest, matches: true },
  { filter: 'len - 14 = ip[2:2]', frame: syn, matches: true },
  // a load past the captured bytes rejects the packet, even under `not`
  { filter: 'tcp[100] = 0', frame: syn, matches: false },
  { filter: 'not tcp[100] = 0', frame: syn, matches: false },
  { filter: 'not tcp[100] = 0', frame: dns, matches: true },
  // IPv6 addresses
  { filter: 'host 2001:db8::2', frame: ipv6Syn, matches: true },
  { filter: 'src net 2001:db8::/32', frame: ipv6Syn, matches: true },
  { filter: 'dst host 2001:db8::1', frame: ipv6Syn, matches: false },
  // SLL2: protocol type at 0, network layer at 20
  { filter: 'tcp port 80', frame: toSll2(syn, { packetType: 0, ifindex: 3 }), matches: true, linkType: 276 },
  {
    filter: 'host 10.0.0.2',
    frame: toSll2(arpRequest, { packetType: 1, ifindex: 3 }),
    matches: true,
    linkType: 276,
  },
  { filter: 'inbound', frame: toSll2(syn, { packetType: 0, ifindex: 3 }), matches: true, linkType: 276 },
  { filter: 'outbound', frame: toSll2(syn, { packetType: 4, ifindex: 3 }), matches: true, linkType: 276 },
  { filter: 'ifindex 3', frame: toSll2(syn, { packetType: 4, ifindex: 3 }), matches: true, linkType: 276 },
  { filter: 'ifindex 4', frame: toSll2(syn, { packetType: 4, ifindex: 3 }), matches: false, linkType: 276 },
];

describe('filter matching', () => {
  it.each(MATCHES.map((c) => ({ ...c, name: `${c.filter || '(empty)'} on ${c.linkType ?? 1}` })))(
    '$name',
    ({ filter, frame, matches, linkType = LINKTYPE_ETHERNET, wireLen }) => {
      const compiled = compileFilter(filter, { linkType });
      if (!compiled.ok) throw new Error(compiled.message);
      expect(compiled.match(frame, linkType, wireLen ?? frame.length)).toBe(matches);
    },
  );
});

const ERRORS: readonly (readonly [string, string, FilterLinkType?])[] = [
  ['host', "can't parse filter expression: syntax error"],
  ['foo', "can't parse filter expression: syntax error"],
  ['(host 1.2.3.4', "can't parse filter expression: syntax error"],
  ['host 1.2.3.4)', "can't parse filter expression: syntax error"],
  ['TCP', "can't parse filter expression: syntax error"],
  ['port 99999', 'illegal port number 99999 > 65535'],
  ['port 4294967296', 'number 4294967296 overflows 32 bits'],
  ['host 08', 'number 08 contains non-octal digit'],
  ['host 300.1.1.1', "invalid IPv4 address '300.1.1.1'"],
  ['net 10.0.0.1/8', 'non-network bits set in "10.0.0.1/8"'],
  ['net 10.0.0.1 mask 255.0.0.0', 'non-network bits set in "10.0.0.1 mask 255.0.0.0"'],
  ['net 10.0.0.0/33', 'mask length must be <= 32'],
  ['host 10.0.0.0/8', 'Mask syntax for networks only'],
  ['tcp and 80', 'syntax error in filter expression'],
  ['(port 80) or 443', 'syntax error in filter expression'],
  ['tcp host 1.2.3.4', "'tcp' modifier applied to host"],
  ['udp net 10.0.0.0/8', "'udp' modifier applied to net"],
  ['ip6 host 1.2.3.4', "'ip6' modifier applied to ip host"],
  ['ip port 80', "illegal qualifier of 'port'"],
  ['port 10.0.0.1', "'port' modifier applied to ip host"],
  ['port foo', "unknown port 'foo'"],
  ['udp port http', "port 'http' is tcp"],
  ['portrange a-b', "unknown port in range 'a-b'"],
  ['host foo.invalid', "unknown host 'foo.invalid'"],
  ['ether host 1:2:3:4:5', 'bogus ethernet address 1:2:3:4:'],
  ['ether host zz', "unknown ether host 'zz'"],
  ['host 1.2.3.4 or 1:2:3:4:5:6', 'ethernet address used in non-ether expression'],
  ['ether net 10.0.0.0/8', 'link-layer modifier applied to net'],
  ['arp proto 6', 'arp does not encapsulate another protocol'],
  ['tcp proto 6', "'tcp proto' is bogus"],
  ['vlan 5000', 'VLAN tag 5000 greater than maximum 4095'],
  ['tcp[0:3] = 1', 'data size must be 1, 2, or 4'],
  ['len / 0 = 1', 'division by zero'],
  ['len / (1 - 1) = 1', 'division by zero'],
  ['len << 32 = 1', 'shift by more than 31 bits'],
  ['gateway 1.2.3.4', "'gateway' requires a name"],
  ['ra host 1.2.3.4', "'ra' is not a valid qualifier for addresses other than 802.11 MAC addresses"],
  ['port ::1', 'invalid qualifier against IPv6 address'],
  ['tcp and udp', 'expression rejects all packets'],
  ['port 80 and arp', 'expression rejects all packets'],
  ['vlan', 'no VLAN support for Linux cooked v2', 276],
  [
    'ether host 1:2:3:4:5:6',
    'ethernet addresses supported only on ethernet/FDDI/token ring/802.11/ATM LANE/Fibre Channel',
    276,
  ],
  ['inbound', 'inbound/outbound not supported on Ethernet when reading savefiles', 1],
  ['mpls', "packetlab does not support 'mpls' in filter expressions"],
];

describe('filter errors', () => {
  it.each(ERRORS.map(([filter, message, linkType]) => ({ filter, message, linkType })))(
    '$filter',
    ({ filter, message, linkType }) => {
      const compiled = compileFilter(filter, linkType === undefined ? {} : { linkType });
      expect(compiled).toEqual({ ok: false, message });
    },
  );

  it('reports the first error in reading order, as bison does', () => {
    // The semantic error of a finished primitive wins over a later syntax or lexical error...
    expect(compileFilter('port 99999 )')).toEqual({
      ok: false,
      message: 'illegal port number 99999 > 65535',
    });
    expect(compileFilter('host 300.1.1.1 08')).toEqual({
      ok: false,
      message: "invalid IPv4 address '300.1.1.1'",
    });
    // ...and a lexical error wins over the syntax error it causes.
    expect(compileFilter('tcp 08')).toEqual({ ok: false, message: 'number 08 contains non-octal digit' });
  });
});

describe('qualifier inheritance', () => {
  const ast = (text: string): FilterNode => {
    const parsed = parseFilter(text);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.ast;
  };

  it('gives a bare id the qualifiers of the term before it', () => {
    expect(ast('host 10.0.0.1 or 10.0.0.2')).toEqual({
      kind: 'or',
      left: ast('host 10.0.0.1'),
      right: ast('host 10.0.0.2'),
    });
    expect(ast('tcp dst port 80 or 443')).toEqual({
      kind: 'or',
      left: ast('tcp dst port 80'),
      right: ast('tcp dst port 443'),
    });
    expect(ast('port 80 and not 443')).toEqual({
      kind: 'and',
      left: ast('port 80'),
      right: { kind: 'not', operand: ast('port 443') },
    });
  });

  it('passes qualifiers into parenthesised ids and out of parenthesised expressions', () => {
    expect(ast('host 10.0.0.1 and (10.0.0.2 or 10.0.0.3)')).toEqual(
      ast('host 10.0.0.1 and (host 10.0.0.2 or host 10.0.0.3)'),
    );
    expect(ast('host 10.0.0.1 and (tcp) or 10.0.0.2')).toEqual(ast('host 10.0.0.1 and tcp or host 10.0.0.2'));
  });

  it('resets them at a new head', () => {
    expect(ast('tcp dst port 80 or src 10.0.0.4')).toEqual(ast('tcp dst port 80 or src host 10.0.0.4'));
  });
});

describe('compileFilter', () => {
  it('without a link type, refuses only what no link type can carry', () => {
    const compiled = compileFilter('ether host 02:00:00:00:00:01');
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.match(syn, LINKTYPE_ETHERNET)).toBe(true);
    expect(compiled.match(toSll2(syn, { packetType: 0, ifindex: 1 }), LINKTYPE_LINUX_SLL2)).toBe(false);
  });

  it('matches nothing for an unknown link type', () => {
    const compiled = compileFilter('');
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.match(syn, 105 as FilterLinkType)).toBe(false);
  });

  it('tokenizes as flex does: longest match, ties to the earlier rule', () => {
    const kinds = (text: string): string[] => tokenize(text).map((token) => `${token.kind}:${token.text}`);
    expect(kinds('10.0.0.1/8')).toEqual(['hid:10.0.0.1', 'punct:/', 'num:8', 'eof:']);
    expect(kinds('80-90 tcp-syn hostx')).toEqual(['id:80-90', 'num:tcp-syn', 'id:hostx', 'eof:']);
    expect(kinds('0102.0304.0506 ::1 \\tcp')).toEqual(['eid:0102.0304.0506', 'hid6:::1', 'id:\\tcp', 'eof:']);
    expect(kinds('a&&b||!c')).toEqual([
      'id:a',
      'keyword:&&',
      'id:b',
      'keyword:||',
      'punct:!',
      'id:c',
      'eof:',
    ]);
  });

  it('keeps a deep filter fast to compile', () => {
    const text = Array.from({ length: 150 }, (_, i) => `host 10.0.${i >> 8}.${i & 255}`).join(' or ');
    const compiled = compileFilter(text);
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.match(syn, LINKTYPE_ETHERNET)).toBe(true);
  });
});
