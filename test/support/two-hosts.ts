// The smallest topology the socket, application and tool tests share: hosts a (10.0.0.1) and b (10.0.0.2) on one veth.

import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { execOrThrow } from '../../src/tools/exec.ts';

export interface TwoHosts {
  readonly sim: Simulation;
  readonly a: Namespace;
  readonly b: Namespace;
}

/** a and b joined by `eth0` on both sides, up, with `lo` up too when asked. */
export function twoHosts(seed: string, options: { readonly loopback?: boolean } = {}): TwoHosts {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  execOrThrow(a, 'ip link add eth0 type veth peer name eth0 netns b');
  execOrThrow(a, 'ip addr add 10.0.0.1/24 dev eth0');
  execOrThrow(b, 'ip addr add 10.0.0.2/24 dev eth0');
  execOrThrow(a, 'ip link set eth0 up');
  execOrThrow(b, 'ip link set eth0 up');
  if (options.loopback) {
    execOrThrow(a, 'ip link set lo up');
    execOrThrow(b, 'ip link set lo up');
  }
  return { sim, a, b };
}
