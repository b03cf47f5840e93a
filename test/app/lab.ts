// Two namespaces on a veth pair, a (10.0.0.1) and b (10.0.0.2), for the application tests.

import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';

export function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

export function twoHosts(seed = 'app') {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add eth0 type veth peer name eth0 netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  return { sim, a, b };
}
