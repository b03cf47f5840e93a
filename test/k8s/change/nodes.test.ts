// Nodes change while diag's load runs against the ClusterIP: a node joins (its kube-proxy syncs at start, the
// overlay or kindnet's routes reach its pod CIDR, a scaled-up pod lands there and takes traffic) and a node leaves
// (its pods vanish with it, pod GC deletes them, the Deployment recreates them elsewhere; until kube-proxy's next sync,
// connections DNATed to the gone pods have no route to follow and time out). Both kube-proxy modes.

import { describe, expect, it } from 'vitest';
import { loadGenerator } from '../../../src/app/load/generator.ts';
import {
  appPods,
  endpoints,
  failuresOf,
  formation,
  must,
  ruleEndpoints,
  syncNow,
  TARGET,
  timeline,
} from './fixture.ts';

describe.each([
  ['iptables', 'flannel-vxlan'],
  ['nftables', 'kindnet'],
] as const)('kube-proxy %s on %s: nodes change under load', (mode, cni) => {
  it('a node joins: routes to its pod CIDR on every peer, its rules synced, a new replica there takes traffic', () => {
    const { c, servers } = formation({ kubeProxy: mode, cni });
    const diag = c.podNamespace('default', 'diag')!;
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 6000,
      arrivals: 'uniform',
    });
    timeline(c, load, 500, 2);
    const w3 = c.addNode();
    expect([w3.name, w3.network.address, w3.network.podCidr]).toEqual([
      'formation-worker3',
      '172.18.0.5',
      '10.244.3.0/24',
    ]);
    const route =
      cni === 'flannel-vxlan'
        ? '10.244.3.0/24 via 10.244.3.0 dev flannel.1 onlink'
        : '10.244.3.0/24 via 172.18.0.5 dev eth0';
    for (const peer of ['formation-control-plane', 'formation-worker', 'formation-worker2'])
      expect(c.exec(`docker exec ${peer} ip route`).stdout).toContain(`${route} \n`);
    must(c.controlPlane!.scale('default', 'signalements', 3));
    c.sim.run(0);
    const added = appPods(c).find((p) => p.spec.nodeName === 'formation-worker3')!;
    expect(added.status.podIP).toBe('10.244.3.2');
    const steps = timeline(c, load, 1000, 3);
    expect(failuresOf(steps)).toEqual({});
    const all = appPods(c)
      .map((p) => `${p.status.podIP}:8000`)
      .sort();
    for (const node of c.nodeList()) expect(ruleEndpoints(c, node.name, mode)).toEqual(all);
    expect(c.exec('kubectl get nodes').stdout).toMatch(/^formation-worker3 +Ready +<none>/m);
    // About a third of 300 new connections (kube-proxy picks at random) went over the new route.
    expect(servers.get(added.metadata.name)!.stats.requests).toBeGreaterThan(60);
  });

  it('a node leaves: its endpoints go with its pods, connections to them time out until the sync, replicas come back elsewhere', () => {
    const { c } = formation({ kubeProxy: mode, cni });
    c.addNode();
    const diag = c.podNamespace('default', 'diag')!;
    const load = loadGenerator(diag, {
      target: TARGET,
      path: '/sante',
      rate: 100,
      durationMs: 8000,
      arrivals: 'uniform',
      timeoutMs: 2000,
    });
    timeline(c, load, 500, 2);
    const gone = appPods(c).find((p) => p.spec.nodeName === 'formation-worker2')!;
    syncNow(c);
    c.removeNode('formation-worker2');
    c.sim.run(0);
    expect(c.store.get('Node', '', 'formation-worker2')).toBeUndefined();
    expect(c.store.get('Pod', 'default', gone.metadata.name)).toBeUndefined();
    // The Deployment's replacement went to the emptiest node left.
    expect(
      appPods(c)
        .map((p) => p.spec.nodeName)
        .sort(),
    ).toEqual(['formation-worker', 'formation-worker3']);
    expect(endpoints(c).some((e) => e.includes('formation-worker2'))).toBe(false);
    for (const peer of ['formation-control-plane', 'formation-worker', 'formation-worker3'])
      expect(c.exec(`docker exec ${peer} ip route`).stdout).not.toContain('10.244.2.0/24');
    // The rules still name the gone pod until the sync: its address now follows the default route out of the node.
    expect(ruleEndpoints(c, 'formation-worker', mode)).toContain(`${gone.status.podIP}:8000`);
    const gap = timeline(c, load, 250, 4);
    expect(failuresOf(gap)).toEqual({});
    expect(ruleEndpoints(c, 'formation-worker', mode)).not.toContain(`${gone.status.podIP}:8000`);
    const later = timeline(c, load, 1000, 3);
    expect(Object.keys(failuresOf(later))).toEqual(['curl 28']);
    expect(failuresOf(later)['curl 28']).toBeGreaterThan(20);
    // Everything that started after the sync succeeded.
    expect(later[2]!.ok).toBe(100);
    expect(failuresOf(timeline(c, load, 1000, 1))).toEqual({});
    expect(c.exec('kubectl get nodes').stdout).not.toContain('formation-worker2');
  });
});
