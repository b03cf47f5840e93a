// What a cluster shares between its nodes so that thousands fit in one process: kube-proxy renders one restore text
// per distinct node view and every node's sync gets that very string (no re-render per node), and one Pod watch
// feeds every kubelet (a pod's events reach its node's kubelet and the one it was bound to before, nobody else), and
// the store hands every node's sync the same Service and EndpointSlice arrays.

import { describe, expect, it } from 'vitest';
import { service } from '../../src/k8s/api/builders.ts';
import { cluster } from '../../src/k8s/cluster.ts';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import type { Command } from '../../src/k8s/plan.ts';

/** An iptables proxier that remembers every restore text it handed out, by node namespace. */
class RecordingProxier extends IptablesProxier {
  readonly texts: { readonly ns: string; readonly text: string }[] = [];

  override sync(ns: string, view: ProxierView, first: boolean): readonly Command[] {
    const commands = super.sync(ns, view, first);
    this.texts.push({ ns, text: commands[commands.length - 1]!.stdin! });
    return commands;
  }
}

describe('a cluster shares what its nodes have in common', () => {
  it("gives every node's kube-proxy the same rendered text, rendered once per change", () => {
    const proxier = new RecordingProxier();
    const c = cluster({ workers: 4, kubeProxy: proxier, dns: false, seed: 'sharing' });
    const nodes = c.nodeList().length;
    for (let i = 0; i < 6; i++) {
      const created = c.createPod({
        name: `web-${i}`,
        node: c.nodeList()[i % nodes]!.name,
        labels: { app: 'web' },
      });
      expect(created.ok).toBe(true);
    }
    expect(
      c.store.create<'Service'>(service({ name: 'web', selector: { app: 'web' }, ports: [{ port: 80 }] })).ok,
    ).toBe(true);
    c.sim.run(3e9);
    const last = proxier.texts.slice(-nodes);
    expect(new Set(last.map((record) => record.ns)).size).toBe(nodes);
    expect(last[0]!.text).toContain('KUBE-SVC-');
    for (const record of last) expect(record.text).toBe(last[0]!.text);
    // Each distinct text was rendered once; every other sync reused it.
    const distinct = new Set(proxier.texts.map((record) => record.text)).size;
    expect(proxier.renders.misses).toBeLessThanOrEqual(distinct + 1);
    expect(proxier.renders.hits).toBeGreaterThanOrEqual(proxier.texts.length - distinct - 1);
  });

  it("lists the store's Services as one shared array until they change (every node's sync view)", () => {
    const c = cluster({ workers: 1, kubeProxy: 'none', dns: false, seed: 'snapshot' });
    const first = c.store.snapshot('Service');
    expect(c.store.snapshot('Service')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(
      c.store.create<'Service'>(service({ name: 'one', selector: { app: 'one' }, ports: [{ port: 80 }] })).ok,
    ).toBe(true);
    const second = c.store.snapshot('Service');
    expect(second).not.toBe(first);
    expect(second.map((s) => s.metadata.name)).toEqual(c.store.list('Service').map((s) => s.metadata.name));
    expect(second.map((s) => s.metadata.name)).toContain('one');
    c.store.delete('Service', 'default', 'one');
    expect(c.store.snapshot('Service').map((s) => s.metadata.name)).not.toContain('one');
  });

  it('tears a pod down on its old node and starts it on the new one when it is bound elsewhere', () => {
    const c = cluster({ workers: 2, kubeProxy: 'none', controlPlane: false, dns: false, seed: 'rebind' });
    expect(c.createPod({ name: 'mover', node: 'kind-worker' }).ok).toBe(true);
    c.settle();
    const first = c.node('kind-worker')!.kubelet.sandboxOf('default', 'mover');
    expect(first).toBeDefined();
    const pod = c.store.get('Pod', 'default', 'mover')!;
    expect(c.store.update<'Pod'>({ ...pod, spec: { ...pod.spec, nodeName: 'kind-worker2' } }).ok).toBe(true);
    c.settle();
    expect(c.node('kind-worker')!.kubelet.sandboxOf('default', 'mover')).toBeUndefined();
    expect(c.runner.hasNamespace(first!.ns)).toBe(false);
    expect(c.node('kind-worker2')!.kubelet.sandboxOf('default', 'mover')).toBeDefined();
    expect(c.node('kind-control-plane')!.kubelet.sandboxOf('default', 'mover')).toBeUndefined();
  });
});
