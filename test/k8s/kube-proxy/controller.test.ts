import { describe, expect, it } from 'vitest';
import { httpServer } from '../../../src/app/http/server.ts';
import { NS_PER_MS } from '../../../src/core/scheduler.ts';
import { cluster } from '../../../src/k8s/cluster.ts';
import type { Proxier, ProxierView } from '../../../src/k8s/kube-proxy/proxier.ts';
import type { ImageRunner } from '../../../src/k8s/kubelet/kubelet.ts';
import { SERVICE_NAME_LABEL } from '../../../src/k8s/objects.ts';
import { exec } from '../../../src/tools/exec.ts';

/** A test-only proxier: one DNAT rule per Service port to its first ready endpoint, in a chain it flushes each sync. */
class FirstEndpointProxier implements Proxier {
  readonly mode = 'iptables';
  readonly views: { ns: string; first: boolean; services: number }[] = [];

  sync(ns: string, view: ProxierView, first: boolean) {
    this.views.push({ ns, first, services: view.services.length });
    const lines = ['*nat', ':TEST-SERVICES - [0:0]'];
    if (first) lines.push('-A PREROUTING -j TEST-SERVICES');
    for (const service of view.services) {
      const slice = view.endpointSlices.find(
        (candidate) => candidate.metadata.labels[SERVICE_NAME_LABEL] === service.metadata.name,
      );
      const endpoint = slice?.endpoints.find((candidate) => candidate.conditions.ready);
      const port = service.spec.ports[0];
      if (endpoint === undefined || port === undefined || slice === undefined) continue;
      lines.push(
        `-A TEST-SERVICES -d ${service.spec.clusterIP}/32 -p tcp --dport ${port.port} -j DNAT --to-destination ${endpoint.addresses[0]}:${slice.ports[0]?.port}`,
      );
    }
    lines.push('COMMIT', '');
    return [{ ns, argv: ['iptables-restore', '--noflush'], stdin: lines.join('\n') }];
  }
}

const WEB: ImageRunner = (ns) => {
  const server = httpServer(ns, { port: 8000, routes: { '/sante': { body: 'ok\n' } } });
  return { stop: () => server.close() };
};

function service(name: string, clusterIP: string) {
  return {
    kind: 'Service' as const,
    metadata: { name, namespace: 'default' },
    spec: {
      type: 'ClusterIP' as const,
      clusterIP,
      ports: [{ name: '', protocol: 'TCP' as const, port: 80, targetPort: 8000, nodePort: 0 }],
      selector: { app: name },
      sessionAffinity: 'None' as const,
      sessionAffinityTimeoutSeconds: 10800,
      externalTrafficPolicy: 'Cluster' as const,
      internalTrafficPolicy: 'Cluster' as const,
      healthCheckNodePort: 0,
      externalIPs: [],
      loadBalancerSourceRanges: [],
    },
    status: { loadBalancerIngress: [] },
  };
}

function slice(serviceName: string, address: string, nodeName: string) {
  return {
    kind: 'EndpointSlice' as const,
    metadata: {
      name: `${serviceName}-abcde`,
      namespace: 'default',
      labels: { [SERVICE_NAME_LABEL]: serviceName },
    },
    addressType: 'IPv4' as const,
    endpoints: [
      {
        addresses: [address],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName,
        targetRef: { kind: 'Pod' as const, namespace: 'default', name: 'signalements-a' },
      },
    ],
    ports: [{ name: '', port: 8000, protocol: 'TCP' as const }],
  };
}

describe('kube-proxy sync loop', () => {
  it('syncs once at start, coalesces changes within minSyncPeriod, and its rules carry a ClusterIP to the pod', () => {
    const proxier = new FirstEndpointProxier();
    const c = cluster({
      name: 'formation',
      workers: 2,
      cni: 'flannel-vxlan',
      kubeProxy: proxier,
      seed: 'kp',
      images: new Map([['web', WEB]]),
    });
    const worker = c.node('formation-worker')!.kubeProxy!;
    expect(worker.syncs.map((sync) => [sync.at, sync.first, sync.errors])).toEqual([[0, true, []]]);
    expect(proxier.views.filter((view) => view.first).map((view) => view.ns)).toEqual([
      'formation-control-plane',
      'formation-worker',
      'formation-worker2',
    ]);

    c.createPod({ name: 'diag', node: 'formation-worker', ip: '10.244.1.5' });
    c.createPod({ name: 'signalements-a', node: 'formation-worker2', ip: '10.244.2.7', image: 'web' });
    c.settle();
    expect(c.store.create<'Service'>(service('signalements', '10.96.40.12')).ok).toBe(true);
    expect(c.store.create<'EndpointSlice'>(slice('signalements', '10.244.2.7', 'formation-worker2')).ok).toBe(
      true,
    );
    c.settle();
    // Still within minSyncPeriod of the first sync: nothing yet.
    expect(worker.syncs).toHaveLength(1);
    c.sim.run(1000 * NS_PER_MS);
    expect(worker.syncs.map((sync) => [sync.at / NS_PER_MS, sync.first])).toEqual([
      [0, true],
      [1000, false],
    ]);
    const node = c.nodeNamespace('formation-worker')!;
    expect(exec(node, 'iptables-save -t nat').stdout).toContain(
      '-A TEST-SERVICES -d 10.96.40.12/32 -p tcp -m tcp --dport 80 -j DNAT --to-destination 10.244.2.7:8000',
    );
    const diag = c.podNamespace('default', 'diag')!;
    expect(exec(diag, 'curl -s http://10.96.40.12/sante').stdout).toBe('ok\n');

    // Long after the last sync, a change syncs on the next turn.
    c.sim.run(5000 * NS_PER_MS);
    const before = worker.syncs.length;
    c.store.delete('EndpointSlice', 'default', 'signalements-abcde');
    c.settle();
    expect(worker.syncs).toHaveLength(before + 1);
    expect(exec(node, 'iptables-save -t nat').stdout).not.toContain('10.96.40.12');
    expect(exec(diag, 'curl -s -m 1 http://10.96.40.12/sante').exitCode).not.toBe(0);
  });

  it('a failed command is recorded on the sync, not thrown', () => {
    const bad: Proxier = {
      mode: 'iptables',
      sync: (ns) => [
        { ns, argv: ['iptables-restore', '--noflush'], stdin: '*nat\n-A NOPE -j ACCEPT\nCOMMIT\n' },
      ],
    };
    const c = cluster({ name: 'formation', workers: 0, kubeProxy: bad, seed: 'kp-bad' });
    const syncs = c.node('formation-control-plane')!.kubeProxy!.syncs;
    expect(syncs).toHaveLength(1);
    expect(syncs[0]!.errors).toHaveLength(1);
    expect(syncs[0]!.errors[0]).toMatch(/iptables-restore/);
  });
});
