// Router lookups into a caller-owned RouteScratch: the same answer as a fresh result, written in place; failures are shared records.

import { describe, expect, it } from 'vitest';
import { RouteScratch } from '../../src/net/router.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { execOrThrow } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

function host() {
  const sim = new Simulation({ seed: 'router' });
  const a = sim.addNamespace('a');
  sim.addNamespace('b');
  execOrThrow(a, 'ip link add veth-a type veth peer name veth-b netns b');
  execOrThrow(a, 'ip addr add 10.0.0.1/24 dev veth-a');
  execOrThrow(a, 'ip link set veth-a up');
  execOrThrow(a, 'ip route add 192.168.7.0/24 via 10.0.0.254 mtu 1400');
  return a;
}

describe('Router with a RouteScratch', () => {
  it('fills the scratch with what a fresh lookup returns, and returns the scratch itself', () => {
    const router = host().ipv4.router;
    const scratch = new RouteScratch();
    for (const dst of ['192.168.7.9', '10.0.0.2', '10.0.0.1']) {
      const fresh = router.output(parseIpv4(dst)!, 0, 0, 0);
      const into = router.output(parseIpv4(dst)!, 0, 0, 0, false, scratch);
      expect(into).toBe(scratch);
      expect({ ...into }).toEqual({ ...fresh });
    }
    expect(scratch).toMatchObject({ type: 'local', dst: parseIpv4('10.0.0.1') });
  });

  it('gives input routes the same way, and a later lookup overwrites the earlier answer', () => {
    const ns = host();
    execOrThrow(ns, 'sysctl -q -w net.ipv4.ip_forward=1');
    const router = ns.ipv4.router;
    const iif = ns.byName('veth-a')!.ifindex;
    const scratch = new RouteScratch();
    const first = router.input(parseIpv4('192.168.7.9')!, parseIpv4('10.0.0.2')!, iif, 0, scratch);
    expect(first).toMatchObject({ ok: true, type: 'unicast', gateway: parseIpv4('10.0.0.254'), mtu: 1400 });
    router.input(parseIpv4('10.0.0.1')!, parseIpv4('10.0.0.2')!, iif, 0, scratch);
    expect(first).toMatchObject({ ok: true, type: 'local', gateway: 0, mtu: 0 });
  });

  it('answers a failed lookup with one shared record per errno, leaving the scratch alone', () => {
    const router = host().ipv4.router;
    const scratch = new RouteScratch();
    const a = router.output(parseIpv4('172.16.0.1')!, 0, 0, 0, false, scratch);
    const b = router.output(parseIpv4('172.16.0.2')!, 0, 0, 0);
    expect(a).toEqual({ ok: false, error: 'ENETUNREACH' });
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
    expect(scratch.dst).toBe(0);
  });
});
