// packetSend, an AF_PACKET socket's sendto on a device: sendto's checks, then dev_queue_xmit (taps see the frame
// outgoing, the veth peer receives it).

import { describe, expect, it } from 'vitest';
import type { Packet } from '../../src/core/packet.ts';
import type { NetDevice } from '../../src/link/device.ts';
import { packetSend } from '../../src/link/packet-socket.ts';
import type { Veth } from '../../src/link/veth.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { hex, toHex } from '../support/bytes.ts';

/** Namespaces a and b on a veth pair, both ends up, MTU 1500. */
function pair(): { sim: Simulation; a: Veth; b: Veth } {
  const sim = new Simulation({ seed: 'packet-socket' });
  const nsA = sim.addNamespace('a');
  const nsB = sim.addNamespace('b');
  const made = nsA.addVeth('veth-a', 'veth-b', nsB);
  if (!made.ok) throw new Error(made.error);
  const [a, b] = made.value;
  a.adminUp = true;
  b.adminUp = true;
  return { sim, a, b };
}

/** An Ethernet frame of `length` bytes from a to b with `ethertype` (0x88b5, which no protocol takes). */
function frame(a: NetDevice, b: NetDevice, length: number, ethertype = '88b5'): Uint8Array {
  const mac = (dev: NetDevice): string => dev.mac.toString(16).padStart(12, '0');
  const bytes = new Uint8Array(length);
  bytes.set(hex(`${mac(b)} ${mac(a)} ${ethertype}`).subarray(0, Math.min(14, length)));
  return bytes;
}

function record(dev: NetDevice): string[] {
  const seen: string[] = [];
  dev.taps.push((tapped: NetDevice, pkt: Packet, direction) =>
    seen.push(`${tapped.name} ${direction} ${toHex(pkt.frame())}`),
  );
  return seen;
}

describe('packetSend (af_packet.c: packet_snd)', () => {
  it('sends the bytes through dev_queue_xmit: taps see them outgoing, the peer receives them', () => {
    const { sim, a, b } = pair();
    const onA = record(a);
    const onB = record(b);
    const bytes = frame(a, b, 60);
    bytes[59] = 0x42;
    expect(packetSend(a, bytes)).toEqual({ ok: true });
    bytes[59] = 0; // the frame was copied
    expect(onA).toEqual([`veth-a tx ${toHex(frame(a, b, 59))}42`]);
    expect(onB).toEqual([]);
    sim.run(0);
    expect(onB).toEqual([`veth-b rx ${toHex(frame(a, b, 59))}42`]);
    expect(a.stats).toMatchObject({ txPackets: 1, txBytes: 60, txDropped: 0 });
    expect(b.stats).toMatchObject({ rxPackets: 1, rxBytes: 60 });
  });

  it('refuses a device that is down (ENETDOWN), without counting', () => {
    const { a, b } = pair();
    a.adminUp = false;
    expect(packetSend(a, frame(a, b, 60))).toEqual({ ok: false, error: 'ENETDOWN' });
    expect(a.stats).toMatchObject({ txPackets: 0, txDropped: 0 });
  });

  it('refuses a frame beyond MTU + 14 bytes (EMSGSIZE), 4 more when it is 802.1Q-tagged', () => {
    const { sim, a, b } = pair();
    expect(packetSend(a, frame(a, b, 1514))).toEqual({ ok: true });
    expect(packetSend(a, frame(a, b, 1515))).toEqual({ ok: false, error: 'EMSGSIZE' });
    expect(packetSend(a, frame(a, b, 1518, '8100'))).toEqual({ ok: true });
    expect(packetSend(a, frame(a, b, 1519, '8100'))).toEqual({ ok: false, error: 'EMSGSIZE' });
    expect(packetSend(a, frame(a, b, 1518, '88a8'))).toEqual({ ok: false, error: 'EMSGSIZE' });
    sim.run(0);
    expect(a.stats).toMatchObject({ txPackets: 2, txBytes: 1514 + 1518 });
  });

  it('refuses a frame shorter than an Ethernet header (EINVAL, dev_validate_header)', () => {
    const { a, b } = pair();
    expect(packetSend(a, frame(a, b, 13))).toEqual({ ok: false, error: 'EINVAL' });
    expect(packetSend(a, frame(a, b, 14))).toEqual({ ok: true });
  });
});
