// Device counters (`ip -s link`) when a driver drops what it was given: the veth peer's MTU and a VXLAN device
// without a remote count a drop and never a transmitted frame, as the kernel's drivers do.

import { describe, expect, it } from 'vitest';
import { Packet } from '../../src/core/packet.ts';
import type { NetDevice } from '../../src/link/device.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { hex } from '../support/bytes.ts';

/** An Ethernet frame of `length` bytes from `src` to `dst` with EtherType 0x88b5, which no protocol takes. */
function frame(src: NetDevice, dst: NetDevice | string, length: number): Uint8Array {
  const mac = (dev: NetDevice): string => dev.mac.toString(16).padStart(12, '0');
  const bytes = new Uint8Array(length);
  bytes.set(hex(`${typeof dst === 'string' ? dst : mac(dst)} ${mac(src)} 88b5`));
  return bytes;
}

describe('device counters when the driver drops', () => {
  it("veth_xmit: a frame the peer's MTU refuses counts in the sender's tx_dropped and the peer's rx_dropped", () => {
    const sim = new Simulation({ seed: 'device-stats' });
    const nsA = sim.addNamespace('a');
    const nsB = sim.addNamespace('b');
    const made = nsA.addVeth('veth-a', 'veth-b', nsB);
    if (!made.ok) throw new Error(made.error);
    const [a, b] = made.value;
    a.adminUp = true;
    b.adminUp = true;
    b.mtu = 1400;
    const tapped: string[] = [];
    a.taps.push((_dev, _pkt, direction) => tapped.push(direction));
    // A tap on b takes the delivered frame, so its unknown EtherType is not an rx_dropped of its own.
    b.taps.push(() => {});
    a.transmit(Packet.fromFrame(frame(a, b, 1500)));
    a.transmit(Packet.fromFrame(frame(a, b, 1418)));
    sim.run(0);
    // The taps ran before the driver: tcpdump on the sender shows the refused frame too.
    expect(tapped).toEqual(['tx', 'tx']);
    expect(a.stats).toMatchObject({ txPackets: 1, txBytes: 1418, txDropped: 1 });
    expect(b.stats).toMatchObject({ rxPackets: 1, rxBytes: 1418, rxDropped: 1 });
  });

  it('vxlan_xmit: no remote for the destination MAC counts in tx_dropped, not as sent', () => {
    const sim = new Simulation({ seed: 'device-stats' });
    const ns = sim.addNamespace('a');
    const made = ns.addVxlan('vx0', { vni: 42 });
    if (!made.ok) throw new Error(made.error);
    const vx = made.value;
    vx.adminUp = true;
    vx.transmit(Packet.fromFrame(frame(vx, '0270 6caa aaaa', 98)));
    sim.run(0);
    expect(vx.stats).toMatchObject({ txPackets: 0, txBytes: 0, txDropped: 1 });
  });
});
