// sysctl compared with the real procps sysctl in a fresh network namespace: values, -n, -w, -q, errors and exit codes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';

// A new namespace inherits ip_forward from the host (devconf_inherit_init_net=0), so it is set before it is read.
const CASES = [
  '-w net.ipv4.ip_forward=0',
  'net.ipv4.ip_forward',
  '-n net.ipv4.ip_local_port_range',
  '-w net.ipv4.ip_forward=1',
  '-q -w net.ipv4.ip_default_ttl=63',
  'net.ipv4.ip_default_ttl',
  'net.ipv4.nosuchkey',
  '-w net.ipv4.ip_forward',
  'net.ipv4.ip_default_ttl=abc',
  'net/ipv4/ip_forward',
  'net.ipv4.conf.all.forwarding net.ipv4.conf.lo.forwarding',
  'net.ipv4.neigh.default.base_reachable_time_ms',
  'net.ipv4.neigh.lo.base_reachable_time_ms',
  'net.ipv4.neigh.lo.retrans_time_ms',
  '-n',
  '-Z',
  // The congestion control: an unknown name, a write (the kernel's default here is bbr, so the read follows it),
  // and the read-only list (0444 outside init_net). The lists' values differ: the kernel here also has bbr.
  '-w net.ipv4.tcp_congestion_control=foo',
  '-w net.ipv4.tcp_congestion_control=reno',
  'net.ipv4.tcp_congestion_control',
  '-w net.ipv4.tcp_available_congestion_control=reno',
  '-w net.ipv4.tcp_allowed_congestion_control=reno',
];

describe('sysctl against the real procps sysctl', () => {
  const real = new RealNamespaces();
  let ns: Namespace | undefined;

  beforeAll(() => {
    if (!requireNetns() || !requireTool('sysctl')) return;
    real.add('s');
    ns = new Simulation({ seed: 'sysctl' }).addNamespace('s');
    expect(exec(ns, 'ip link set lo up').exitCode).toBe(0);
  });

  afterAll(() => real.cleanup());

  it.each(CASES)('sysctl %s', (args) => {
    if (ns === undefined) return;
    const ours = exec(ns, `sysctl ${args}`);
    const theirs = real.exec('s', 'sysctl', args.split(' '));
    expect({ stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode }).toEqual(theirs);
  });
});
