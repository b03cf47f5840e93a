// Crafted frames on the kernel and on packetlab: exact bytes sent on a veth as a packet socket sends them (tcpreplay on
// the kernel, packetSend in packetlab), the answers they draw, and the device counters `ip -s link` shows at both ends.
//
// The sender `a` never has to answer: the frames carry `b`'s MAC, and `b` has a permanent
// neighbour entry for `a`, so replies go out without ARP on both sides. Whatever comes back
// to `a` (a reset, an echo reply, a port unreachable) draws no answer from `a`'s own stack.

import { describe, expect, it } from 'vitest';
import { MAC_BROADCAST, type MacAddr } from '../../src/wire/address.ts';
import { ETHERTYPE_ARP, ETHERTYPE_IPV4 } from '../../src/wire/ethernet.ts';
import { IPPROTO_ICMP } from '../../src/wire/ipv4.ts';
import { arp, ethernet, icmp, icmpMessage, ip, ipv4, mac, tcp, udp } from '../support/frames.ts';
import { dissectFrame } from './dissect.ts';
import { differential } from './harness.ts';
import { twoHosts } from './topologies.ts';

const A = ip('10.0.0.1');
const B = ip('10.0.0.2');

/**
 * Hosts `a` and `b` on a veth (topologies.ts), `b` knowing `a`'s MAC; `veth-a` captured, and
 * `veth-b` unless asked not to (a packet socket on a device changes its rx_dropped count).
 */
function crafted(name: string, options: { captureB?: boolean } = {}) {
  const b = twoHosts(name);
  const macA = b.macOf('a', 'veth-a');
  const macB = b.macOf('b', 'veth-b');
  b.neigh('b', 'add', '10.0.0.1', 'lladdr', macA, 'dev', 'veth-b', 'nud', 'permanent');
  b.capture('a', 'veth-a');
  if (options.captureB !== false) b.capture('b', 'veth-b');
  const toB = (packet: Uint8Array, dst: MacAddr = mac(macB)): Uint8Array =>
    ethernet({ dst, src: mac(macA), ethertype: ETHERTYPE_IPV4 }, packet);
  const counters = (): void => {
    b.observe('a', 'ip', '-s', 'link', 'show', 'dev', 'veth-a');
    b.observe('b', 'ip', '-s', 'link', 'show', 'dev', 'veth-b');
  };
  return { builder: b, toB, counters, macA, macB };
}

const REJECT_TCP = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -p tcp -m tcp --dport 80 -j REJECT --reject-with tcp-reset
COMMIT
`;

/** A copy of `frame` with the byte at `at` inverted: a checksum that no longer adds up. */
function corrupt(frame: Uint8Array, at: number): Uint8Array {
  const copy = frame.slice();
  copy[at] = copy[at]! ^ 0xff;
  return copy;
}

/** Offsets in an untagged Ethernet/IPv4 (20-byte header) frame. */
const IPV4_CHECKSUM_AT = 14 + 10;
const UDP_CHECKSUM_AT = 14 + 20 + 6;
const TCP_CHECKSUM_AT = 14 + 20 + 16;

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('the frames step of the scenario description', () => {
  it('copies the bytes, keeps them out of the freeze, and refuses an empty or oversized list', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const scenario = twoHosts('frames-step').frames('a', 'veth-a', [bytes]).build();
    bytes[0] = 9;
    const step = scenario.traffic[0];
    expect(step?.kind === 'frames' ? [...step.frames[0]!] : undefined).toEqual([1, 2, 3]);
    expect(() => twoHosts('none').frames('a', 'veth-a', [])).toThrow(/crafted frames/);
    expect(() => twoHosts('many').frames('a', 'veth-a', new Array(101).fill(bytes))).toThrow(
      /crafted frames/,
    );
    expect(() => twoHosts('elsewhere').frames('c', 'veth-a', [bytes])).toThrow(/no namespace c/);
  });
});

describe('differential: crafted frames', () => {
  it('SYNs with fixed sequence numbers: REJECT --reject-with tcp-reset, and a closed port (tcp_v4_send_reset)', async (ctx) => {
    const { builder, toB, counters } = crafted('crafted-tcp-reset');
    builder.iptablesRestore('b', REJECT_TCP);
    const syn = (srcPort: number, dstPort: number, seq: number): Uint8Array =>
      toB(tcp({ src: A, dst: B, srcPort, dstPort, seq, flags: { syn: true }, ident: srcPort }));
    builder.frames('a', 'veth-a', [
      syn(40000, 80, 1_000_000),
      syn(40001, 81, 0xfffffff0),
      // A bare ACK to the closed port: the reset takes its sequence number from the ACK.
      toB(
        tcp({ src: A, dst: B, srcPort: 40002, dstPort: 81, seq: 7, ack: 123_456_789, flags: { ack: true } }),
      ),
    ]);
    builder.observe('b', 'iptables-save', '-c', '-t', 'filter');
    counters();
    const result = await differential(ctx, builder.build());
    if (result === undefined) return;
    // The resets' sequence and acknowledgement numbers were compared, not set aside.
    const resets = result.linux.captures
      .find((c) => c.label === 'a/veth-a')!
      .frames.map((frame) => dissectFrame(frame))
      .filter((fields) => fields.some((f) => f.name === 'tcp.flags' && (Number(f.value) & 0x04) !== 0));
    expect(resets.length).toBe(3);
    for (const fields of resets)
      for (const name of ['tcp.seq', 'tcp.ack'])
        expect(fields.find((f) => f.name === name)?.ignored, name).toBeUndefined();
  });

  it('an ICMP echo request with a fixed identifier, sequence and payload: the echo reply', async (ctx) => {
    const { builder, toB, counters } = crafted('crafted-echo');
    const echo = (seqNo: number, data: string): Uint8Array =>
      toB(
        icmp(
          { src: A, dst: B, ident: 0x4242 },
          { kind: 'echo-request', ident: 0x1234, seqNo, data: text(data) },
        ),
      );
    builder.frames('a', 'veth-a', [echo(1, 'packetlab echo'), echo(2, '')]);
    counters();
    await differential(ctx, builder.build());
  });

  it('bad checksums: IPv4 header and UDP dropped silently, TCP without a reset; good and zero UDP checksums get port unreachable', async (ctx) => {
    const { builder, toB, counters } = crafted('crafted-checksums');
    const datagram = (checksum: boolean): Uint8Array =>
      toB(
        udp({
          src: A,
          dst: B,
          srcPort: 41000,
          dstPort: 9999,
          payload: text('no one listens'),
          ident: 7,
          checksum,
        }),
      );
    const syn = toB(
      tcp({ src: A, dst: B, srcPort: 40000, dstPort: 80, seq: 1, flags: { syn: true }, ident: 8 }),
    );
    builder.frames('a', 'veth-a', [
      corrupt(datagram(true), IPV4_CHECKSUM_AT),
      corrupt(datagram(true), UDP_CHECKSUM_AT),
      corrupt(syn, TCP_CHECKSUM_AT),
      datagram(true),
      datagram(false),
    ]);
    counters();
    await differential(ctx, builder.build());
  });

  it('an ICMP echo in two fragments, in order and reversed: reassembled and answered', async (ctx) => {
    const { builder, toB, counters } = crafted('crafted-fragments');
    const message = icmpMessage({
      kind: 'echo-request',
      ident: 0x0f0f,
      seqNo: 1,
      data: text('a crafted echo request cut in two'),
    });
    const fragment = (ident: number, offset: number, end: number): Uint8Array =>
      toB(
        ipv4(
          {
            src: A,
            dst: B,
            protocol: IPPROTO_ICMP,
            ident,
            dontFragment: false,
            moreFragments: end < message.length,
            fragmentOffset: offset,
          },
          message.subarray(offset, end),
        ),
      );
    builder.frames('a', 'veth-a', [
      fragment(100, 0, 24),
      fragment(100, 24, message.length),
      fragment(101, 24, message.length),
      fragment(101, 0, 24),
    ]);
    counters();
    await differential(ctx, builder.build());
  });

  it('a broadcast ARP request: the reply, both neighbour tables, no mcast count on a veth', async (ctx) => {
    const { builder, macA } = crafted('crafted-arp');
    const request = arp({
      operation: 'request',
      senderMac: mac(macA),
      senderIp: A,
      targetMac: 0,
      targetIp: B,
    });
    builder.frames('a', 'veth-a', [
      ethernet({ dst: MAC_BROADCAST, src: mac(macA), ethertype: ETHERTYPE_ARP, pad: true }, request),
    ]);
    builder.observe('a', 'ip', 'neigh', 'show');
    builder.observe('b', 'ip', 'neigh', 'show');
    builder.observe('a', 'ip', '-s', 'link', 'show', 'dev', 'veth-a');
    builder.observe('b', 'ip', '-s', 'link', 'show', 'dev', 'veth-b');
    await differential(ctx, builder.build());
  });

  // A frame no protocol handler takes counts in rx_dropped only when no packet socket on the
  // device took it either (__netif_receive_skb_core: a tap is the last handler, pt_prev).
  for (const captureB of [true, false])
    it(`frames no protocol takes (${captureB ? 'tcpdump on' : 'no tcpdump on'} the receiver): an unknown EtherType, a MAC of no one here, a frame beyond MTU + 14 (EMSGSIZE)`, async (ctx) => {
      const { builder, toB, counters, macB } = crafted(`crafted-unhandled-${captureB ? 'tap' : 'notap'}`, {
        captureB,
      });
      const packet = udp({ src: A, dst: B, srcPort: 41000, dstPort: 9999, payload: text('x'), ident: 9 });
      const unknown = toB(packet);
      unknown[12] = 0x88;
      unknown[13] = 0xb5;
      builder.frames('a', 'veth-a', [
        unknown,
        toB(packet, mac('02:70:6c:ff:00:01')),
        toB(udp({ src: A, dst: B, srcPort: 41000, dstPort: 9999, payload: new Uint8Array(1473), ident: 10 })),
        toB(packet, mac(macB)),
      ]);
      counters();
      await differential(ctx, builder.build());
    });
});
