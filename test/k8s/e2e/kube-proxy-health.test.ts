// kube-proxy's health servers as cluster() wires them: /healthz follows the node's sync loop (200 while syncs succeed,
// 503 once a change has waited healthTimeout, 60 s, without a successful sync), and the external load balancer, which
// health-checks 10256/healthz for externalTrafficPolicy Cluster, takes that node out of rotation.

import { describe, expect, it } from 'vitest';
import { service } from '../../../src/k8s/api/builders.ts';
import { cluster } from '../../../src/k8s/cluster.ts';
import { IptablesProxier } from '../../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { Proxier, ProxierView } from '../../../src/k8s/kube-proxy/proxier.ts';
import type { Command } from '../../../src/k8s/plan.ts';
import { exec } from '../../../src/tools/exec.ts';

/** iptables mode, except that on `broken` nodes every sync after the first fails (iptables-restore refused). */
class BreakableProxier implements Proxier {
  readonly mode = 'iptables';
  readonly broken = new Set<string>();
  private readonly inner = new IptablesProxier();

  sync(ns: string, view: ProxierView, first: boolean): readonly Command[] {
    const commands = this.inner.sync(ns, view, first);
    if (first || !this.broken.has(ns)) return commands;
    return [{ ns, argv: ['iptables-restore', '--no-such-option'] }];
  }
}

describe('kube-proxy health in cluster()', () => {
  const proxier = new BreakableProxier();
  const c = cluster({
    name: 'formation',
    workers: 2,
    kubeProxy: proxier,
    seed: 'health',
    loadBalancer: { mode: 'passthrough' },
  });
  const healthz = (node: string) =>
    exec(c.outside, `curl -s -o /dev/null -w %{http_code} http://${node}:10256/healthz`).stdout;

  it('answers 200 on every node while syncs succeed; the LB has both workers', () => {
    const created = c.store.create<'Service'>(
      service({
        name: 'web',
        type: 'LoadBalancer',
        ports: [{ port: 80, targetPort: 8000 }],
        selector: { a: 'b' },
      }),
    );
    expect(created.ok).toBe(true);
    c.sim.run(12e9);
    expect(['172.18.0.2', '172.18.0.3', '172.18.0.4'].map(healthz)).toEqual(['200', '200', '200']);
    expect(c.loadBalancer!.views()[0]?.inRotation).toEqual(['formation-worker', 'formation-worker2']);
  });

  it('a node whose syncs fail turns 503 after 60 s with a change pending, and leaves the LB rotation', () => {
    proxier.broken.add('formation-worker2');
    const updated = c.store.create<'Service'>(
      service({ name: 'other', ports: [{ port: 81, targetPort: 8000 }], selector: { a: 'b' } }),
    );
    expect(updated.ok).toBe(true);
    c.sim.run(30e9);
    expect(c.node('formation-worker2')!.kubeProxy!.syncs.at(-1)!.errors).not.toEqual([]);
    expect(healthz('172.18.0.4')).toBe('200');
    c.sim.run(35e9);
    expect([healthz('172.18.0.3'), healthz('172.18.0.4')]).toEqual(['200', '503']);
    expect(c.loadBalancer!.views()[0]?.inRotation).toEqual(['formation-worker']);
  });

  it('a node added later gets its health server and joins the rotation once its first probe passes', () => {
    const added = c.addNode();
    expect([added.name, added.network.address]).toEqual(['formation-worker3', '172.18.0.5']);
    expect(c.loadBalancer!.views()[0]?.inRotation).toEqual(['formation-worker']);
    c.sim.run(6e9);
    expect(healthz('172.18.0.5')).toBe('200');
    expect(c.loadBalancer!.views()[0]?.inRotation).toEqual(['formation-worker', 'formation-worker3']);
  });
});
