// Promiscuous mode on a bridge: tcpdump without -p raises the device's promiscuity, and a promiscuous bridge
// receives a copy of every frame it forwards between ports (local_rcv), which its taps see and IP drops.

import { describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { execOrThrow, spawn } from '../../src/tools/exec.ts';

const run = execOrThrow;

/** Two pods on bridge cni0 of `node`; returns the namespaces. */
function twoPods() {
  const sim = new Simulation({ seed: 'promisc' });
  const node = sim.addNamespace('node');
  run(node, 'ip link add cni0 type bridge');
  run(node, 'ip addr add 10.244.1.1/24 dev cni0');
  run(node, 'ip link set cni0 up');
  const pods = ['a', 'b'].map((name, i) => {
    const pod = sim.addNamespace(name);
    run(pod, `ip link add eth0 type veth peer name veth-${name} netns node`);
    run(pod, `ip addr add 10.244.1.${i + 5}/24 dev eth0`);
    run(pod, 'ip link set eth0 up');
    run(node, `ip link set veth-${name} master cni0`);
    run(node, `ip link set veth-${name} up`);
    return pod;
  });
  return { sim, node, a: pods[0]!, b: pods[1]! };
}

function capture(node: Namespace, a: Namespace, flags: string): string {
  const dump = spawn(node, `tcpdump -nn ${flags} -i cni0 icmp`);
  if (!('stop' in dump)) throw new Error(dump.stderr);
  run(a, 'ping -c 1 10.244.1.6');
  return dump.stop().stdout;
}

describe('promiscuous mode', () => {
  it('a capture on the bridge without -p sees pod-to-pod unicast; with -p it does not', () => {
    const { node, a } = twoPods();
    expect(capture(node, a, '-p')).toBe('');
    const seen = capture(node, a, '');
    expect(seen).toMatch(/IP 10\.244\.1\.5 > 10\.244\.1\.6: ICMP echo request/);
    expect(seen).toMatch(/IP 10\.244\.1\.6 > 10\.244\.1\.5: ICMP echo reply/);
    // The copies went no further: not for this host, ip_rcv dropped them.
    expect(node.ipv4.drops.get('OTHERHOST')).toBe(2);
  });

  it('`ip -d link` counts the promiscuity: 1 for a bridge port, one more per running capture', () => {
    const { node } = twoPods();
    expect(run(node, 'ip -d link show dev veth-a')).toMatch(/ promiscuity 1 /);
    expect(run(node, 'ip -d link show dev cni0')).toMatch(/ promiscuity 0 /);
    const dump = spawn(node, 'tcpdump -nn -i cni0');
    expect(run(node, 'ip -d link show dev cni0')).toMatch(/ promiscuity 1 /);
    if ('stop' in dump) dump.stop();
    expect(run(node, 'ip -d link show dev cni0')).toMatch(/ promiscuity 0 /);
  });
});
