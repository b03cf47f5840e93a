// A bridge's MTU follows its ports (br_mtu_auto_adjust) until the user sets it, and a veth's peer takes only its
// own MTU: the behaviour a 6.18 kernel showed for `ip link add ... mtu 1450 type veth peer name ...`.

import { describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { execOrThrow } from '../../src/tools/exec.ts';

const run = execOrThrow;

function mtuOf(ns: Namespace, dev: string): number {
  const device = ns.byName(dev);
  if (device === undefined) throw new Error(`no ${dev}`);
  return device.mtu;
}

describe('MTUs of veth pairs and bridges', () => {
  it('a veth peer without its own mtu gets 1500; `peer name B mtu N` sets it', () => {
    const sim = new Simulation({ seed: 'mtu' });
    const pod = sim.addNamespace('pod');
    const node = sim.addNamespace('node');
    run(pod, 'ip link add eth0 mtu 1450 type veth peer name veth-a netns node');
    run(pod, 'ip link add eth1 mtu 1450 type veth peer name veth-b mtu 1400 netns node');
    expect([mtuOf(pod, 'eth0'), mtuOf(node, 'veth-a')]).toEqual([1450, 1500]);
    expect([mtuOf(pod, 'eth1'), mtuOf(node, 'veth-b')]).toEqual([1450, 1400]);
  });

  it('the bridge takes the smallest port MTU as ports come, change and go, until `ip link set BR mtu`', () => {
    const sim = new Simulation({ seed: 'mtu' });
    const pod = sim.addNamespace('pod');
    const node = sim.addNamespace('node');
    run(pod, 'ip link add eth0 type veth peer name veth-a netns node');
    run(node, 'ip link add cni0 mtu 1450 type bridge');
    expect(mtuOf(node, 'cni0')).toBe(1450);
    run(node, 'ip link set veth-a master cni0');
    expect(mtuOf(node, 'cni0')).toBe(1500);
    run(node, 'ip link set veth-a mtu 1400');
    expect(mtuOf(node, 'cni0')).toBe(1400);
    run(node, 'ip link set veth-a nomaster');
    expect(mtuOf(node, 'cni0')).toBe(1500);
    run(node, 'ip link set veth-a master cni0');
    run(node, 'ip link set cni0 mtu 1300');
    run(node, 'ip link set veth-a mtu 1200');
    expect(mtuOf(node, 'cni0')).toBe(1300);
  });
});
