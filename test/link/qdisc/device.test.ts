// A root qdisc on a device's egress: taps see a frame when it leaves the qdisc (dev_hard_start_xmit), the device's
// counters count what the driver sent, a device gone down drops what its qdisc still held, and removing the qdisc
// frees its queue and stops its watchdog.

import { describe, expect, it } from 'vitest';
import { Packet } from '../../../src/core/packet.ts';
import { Rng } from '../../../src/core/rng.ts';
import { NS_PER_MS } from '../../../src/core/scheduler.ts';
import { NETEM_DEFAULTS, Netem } from '../../../src/link/qdisc/netem.ts';
import type { Veth } from '../../../src/link/veth.ts';
import { Simulation } from '../../../src/netns/simulation.ts';

function veth(): { sim: Simulation; a: Veth; b: Veth } {
  const sim = new Simulation({ seed: 'qdisc-device' });
  const nsA = sim.addNamespace('a');
  const nsB = sim.addNamespace('b');
  const pair = nsA.addVeth('va', 'vb', nsB, {});
  if (!pair.ok) throw new Error(pair.error);
  const [a, b] = pair.value;
  nsA.setUp(a);
  nsB.setUp(b);
  return { sim, a, b };
}

function frame(): Packet {
  // A broadcast frame with an unknown EtherType: the receiver counts it and drops it, nothing answers.
  const pkt = Packet.allocate(60);
  pkt.buf.fill(0xff, pkt.start, pkt.start + 6);
  pkt.buf[pkt.start + 12] = 0x88;
  pkt.buf[pkt.start + 13] = 0xb5;
  return pkt;
}

describe('a root qdisc on a veth', () => {
  it('holds the frame: taps see it and the peer receives it when netem lets it go', () => {
    const { sim, a, b } = veth();
    a.setQdisc(new Netem(0x8001, { ...NETEM_DEFAULTS, latencyNs: 10 * NS_PER_MS }, new Rng('d')));
    const seen: string[] = [];
    a.taps.push((_dev, _pkt, direction) => seen.push(`a ${direction} ${sim.now / NS_PER_MS}`));
    b.taps.push((_dev, _pkt, direction) => seen.push(`b ${direction} ${sim.now / NS_PER_MS}`));
    sim.run(NS_PER_MS);
    a.transmit(frame());
    sim.run(0);
    expect(seen).toEqual([]);
    expect(a.stats.txPackets).toBe(0);
    sim.run(20 * NS_PER_MS);
    expect(seen).toEqual(['a tx 11', 'b rx 11']);
    expect([a.stats.txPackets, b.stats.rxPackets]).toEqual([1, 1]);
    expect(a.qdisc?.stats.packets).toBe(1);
  });

  it('drops what the qdisc still holds when the device goes down, as tx_dropped', () => {
    const { sim, a } = veth();
    a.setQdisc(new Netem(0x8001, { ...NETEM_DEFAULTS, latencyNs: 10 * NS_PER_MS }, new Rng('d')));
    a.transmit(frame());
    a.adminUp = false;
    sim.run(20 * NS_PER_MS);
    expect([a.stats.txPackets, a.stats.txDropped]).toEqual([0, 1]);
  });

  it('frees the queue and stops the watchdog when the qdisc is removed', () => {
    const { sim, a, b } = veth();
    const netem = new Netem(0x8001, { ...NETEM_DEFAULTS, latencyNs: 10 * NS_PER_MS }, new Rng('d'));
    a.setQdisc(netem);
    a.transmit(frame());
    a.setQdisc(null);
    expect(netem.stats.qlen).toBe(0);
    sim.run(20 * NS_PER_MS);
    expect([a.stats.txPackets, b.stats.rxPackets]).toEqual([0, 0]);
    expect(sim.scheduler.pending).toBe(0);
    a.transmit(frame());
    sim.run(0);
    expect(b.stats.rxPackets).toBe(1);
  });
});
