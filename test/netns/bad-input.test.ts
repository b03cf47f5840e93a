// Malformed frames injected at every kind of device are dropped with a reason and counted, never thrown.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DropReason } from '../../src/core/drop-reason.ts';
import { Packet } from '../../src/core/packet.ts';
import { lessonTopology } from '../../src/k8s/lesson.ts';
import type { NetDevice } from '../../src/link/device.ts';
import { hex } from '../support/bytes.ts';

/** Ethernet header to the device's own MAC, carrying `ethertype`. */
function toDevice(dev: NetDevice, ethertype: string, payload: string): Uint8Array {
  const mac = dev.mac.toString(16).padStart(12, '0');
  return hex(`${mac} 020000000001 ${ethertype} ${payload}`);
}

// A valid 20-byte IPv4 header 10.244.2.7 -> 10.244.1.5, protocol UDP, total length 28, checksum by hand (RFC 1071).
const IP_HEADER = '4500 001c 0000 4000 4011 {csum} 0af4 0207 0af4 0105';
function ipHeader(patch: (h: Uint8Array) => void = () => {}): string {
  const bytes = hex(IP_HEADER.replace('{csum}', '0000'));
  patch(bytes);
  let sum = 0;
  for (let i = 0; i < 20; i += 2) sum += (bytes[i]! << 8) | bytes[i + 1]!;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  const csum = ~sum & 0xffff;
  bytes[10] = csum >>> 8;
  bytes[11] = csum & 0xff;
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const CASES: [name: string, ethertype: string, payload: string, reason: DropReason][] = [
  ['a truncated IPv4 header', '0800', '4500 001c 0000', 'IP_INHDR'],
  ['IHL below 5', '0800', ipHeader((h) => (h[0] = 0x44)), 'IP_INHDR'],
  ['a version that is not 4', '0800', ipHeader((h) => (h[0] = 0x65)), 'IP_INHDR'],
  ['a total length beyond the frame', '0800', ipHeader((h) => (h[3] = 0xff)), 'PKT_TOO_SMALL'],
  ['a total length below the header', '0800', ipHeader((h) => (h[3] = 0x10)), 'IP_INHDR'],
  ['a bad header checksum', '0800', `${IP_HEADER.replace('{csum}', '1234')} a1121f400008 0000`, 'IP_CSUM'],
  ['a UDP length beyond the datagram', '0800', `${ipHeader()} a112 1f40 00ff 0000`, 'PKT_TOO_SMALL'],
  ['a truncated ARP', '0806', '0001 0800 0604 0001', 'PKT_TOO_SMALL'],
  ['an unknown EtherType', '88b5', '0102030405', 'UNHANDLED_PROTO'],
];

describe('malformed frames are data, not exceptions', () => {
  it.each(CASES)('%s is dropped with its reason and counted', (_name, ethertype, payload, reason) => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
    const drops: DropReason[] = [];
    lesson.sim.bus.on('drop', (event) => drops.push(event.reason));
    const eth0 = lesson.diag.byName('eth0')!;
    const before = eth0.stats.rxDropped;
    eth0.receive(Packet.fromFrame(toDevice(eth0, ethertype, payload)));
    lesson.sim.run(0);
    expect(drops).toEqual([reason]);
    expect(lesson.diag.ipv4.drops.get(reason)).toBe(1);
    // Like Linux, only a frame no protocol handles moves the device's rx_dropped (`ip -s link`);
    // IP and UDP errors count in the IP MIB (`nstat`).
    expect(eth0.stats.rxDropped).toBe(before + (reason === 'UNHANDLED_PROTO' ? 1 : 0));
  });

  it('an unknown EtherType a packet socket took (tcpdump on the device) is not counted in rx_dropped', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
    const eth0 = lesson.diag.byName('eth0')!;
    const seen: string[] = [];
    eth0.taps.push((_dev, _pkt, direction) => seen.push(direction));
    const before = eth0.stats.rxDropped;
    eth0.receive(Packet.fromFrame(toDevice(eth0, '88b5', '0102030405')));
    lesson.sim.run(0);
    // __netif_receive_skb_core: the tap is the last handler (pt_prev), so the frame was delivered, not dropped.
    expect(seen).toEqual(['rx']);
    expect(lesson.diag.ipv4.drops.get('UNHANDLED_PROTO')).toBe(1);
    expect(eth0.stats.rxDropped).toBe(before);
  });

  it('random bytes at every device of the lesson never throw and every drop has a reason', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
    const devices = [lesson.w1, lesson.w2, lesson.diag, lesson.remote].flatMap((ns) => ns.all());
    const reasons = new Set<string>();
    lesson.sim.bus.on('drop', (event) => reasons.add(event.reason));
    fc.assert(
      fc.property(
        fc.nat(devices.length - 1),
        fc.uint8Array({ maxLength: 200 }),
        fc.boolean(),
        (index, bytes, ownMac) => {
          const dev = devices[index]!;
          const frame = bytes.slice();
          if (ownMac && frame.length >= 6) {
            const mac = dev.mac.toString(16).padStart(12, '0');
            frame.set(hex(mac), 0);
          }
          dev.receive(Packet.fromFrame(frame));
          lesson.sim.run(0);
        },
      ),
      { numRuns: 500 },
    );
    for (const reason of reasons) expect(reason).toMatch(/^[A-Z_]+$/);
  });
});
