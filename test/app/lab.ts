// Two namespaces on a veth pair, a (10.0.0.1) and b (10.0.0.2), for the application tests.

import type { Namespace } from '../../src/netns/namespace.ts';
import { execOrThrow } from '../../src/tools/exec.ts';
import { twoHosts as hosts, type TwoHosts } from '../support/two-hosts.ts';

export function run(ns: Namespace, line: string): void {
  execOrThrow(ns, line);
}

export function twoHosts(seed = 'app'): TwoHosts {
  return hosts(seed);
}
