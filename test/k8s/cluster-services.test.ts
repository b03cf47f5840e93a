// The wired cluster end to end: the control plane turns a Service and labelled pods into EndpointSlices, kube-proxy
// (iptables and nftables modes) renders them on every node, and diag's curl reaches signalements through the
// ClusterIP, on the same node and across nodes; kubectl and docker exec read the state back.

import { describe, expect, it } from 'vitest';
import { httpServer } from '../../src/app/http/server.ts';
import { service } from '../../src/k8s/api/builders.ts';
import { cluster } from '../../src/k8s/cluster.ts';
import type { ImageRunner } from '../../src/k8s/kubelet/kubelet.ts';
import { exec } from '../../src/tools/exec.ts';

const SIGNALEMENTS: ImageRunner = (ns, pod) => {
  const server = httpServer(ns, { port: 8000, routes: { '/sante': { body: `${pod.metadata.name}\n` } } });
  return { stop: () => server.close() };
};

function formation(kubeProxy: 'iptables' | 'nftables') {
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: 'flannel-vxlan',
    kubeProxy,
    seed: 'services',
    images: new Map([['signalements:1.0', SIGNALEMENTS]]),
  });
  const app = { app: 'signalements' };
  for (const [name, node, ip, image, labels] of [
    ['diag', 'formation-worker', '10.244.1.5', undefined, { run: 'diag' }],
    ['signalements-b', 'formation-worker', '10.244.1.9', 'signalements:1.0', app],
    ['signalements-a', 'formation-worker2', '10.244.2.7', 'signalements:1.0', app],
  ] as const) {
    const created = c.createPod({
      name,
      node,
      ip,
      labels,
      ...(image === undefined
        ? {}
        : { image, ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }] }),
    });
    if (!created.ok) throw new Error(created.error.message);
  }
  const svc = c.store.create<'Service'>(
    service({
      name: 'signalements',
      type: 'NodePort',
      clusterIP: '10.96.40.12',
      ports: [{ name: 'http', port: 80, targetPort: 8000, nodePort: 30080 }],
      selector: app,
    }),
  );
  if (!svc.ok) throw new Error(svc.error.message);
  c.sim.run(2e9);
  return c;
}

describe.each(['iptables', 'nftables'] as const)('a formation cluster with kube-proxy in %s mode', (mode) => {
  const c = formation(mode);
  const diag = c.podNamespace('default', 'diag')!;

  it('publishes both ready pods in the EndpointSlice and syncs every node', () => {
    const slices = c.store
      .list('EndpointSlice', 'default')
      .filter((s) => s.metadata.name.startsWith('signalements-'));
    expect(slices).toHaveLength(1);
    expect(
      slices[0]!.endpoints.map((e) => `${e.addresses[0]} ${e.nodeName} ${e.conditions.ready}`).sort(),
    ).toEqual(['10.244.1.9 formation-worker true', '10.244.2.7 formation-worker2 true']);
    for (const node of c.nodeList())
      expect(node.kubeProxy?.syncs.every((s) => s.errors.length === 0)).toBe(true);
  });

  it('answers curl to the ClusterIP from diag, from both endpoints over a few calls', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const result = exec(diag, 'curl -s http://10.96.40.12/sante');
      expect(result.exitCode).toBe(0);
      seen.add(result.stdout.trim());
    }
    expect([...seen].sort()).toEqual(['signalements-a', 'signalements-b']);
  });

  it('shows the pods as kubectl get pods -o wide does', () => {
    const pods = c.exec('kubectl get pods -o wide').stdout.split('\n');
    expect(pods[0]).toMatch(
      /^NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES$/,
    );
    expect(pods.find((line) => line.startsWith('diag '))).toMatch(
      / 1\/1 +Running +0 +\S+ +10\.244\.1\.5 +formation-worker +<none>/,
    );
  });

  it('lists the Service with its NodePort and the API server Service', () => {
    const lines = c.exec('kubectl get svc').stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.split(/ +/).slice(0, 5).join(' '))).toEqual([
      'NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S)',
      'kubernetes ClusterIP 10.96.0.1 <none> 443/TCP',
      'signalements NodePort 10.96.40.12 <none> 80:30080/TCP',
    ]);
  });

  it('answers the NodePort on a node from outside the cluster', () => {
    const result = exec(c.outside, 'curl -s http://172.18.0.3:30080/sante');
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toMatch(/^signalements-[ab]$/);
  });

  it("shows diag's eth0 as inside a kind pod: the node's namespace by id, the broadcast the CNI set", () => {
    const lines = c.exec('kubectl exec diag -- ip addr show eth0').stdout.split('\n');
    expect(lines[1]).toMatch(/^ {4}link\/ether [0-9a-f:]{17} brd ff:ff:ff:ff:ff:ff link-netnsid 0$/);
    expect(lines[2]).toBe('    inet 10.244.1.5/24 brd 10.244.1.255 scope global eth0');
    // The node sees its pods' sandboxes by the names containerd gives them in /var/run/netns, and the Docker host's
    // namespace (behind its eth0) by id.
    const veths = c
      .exec('docker exec formation-worker ip -o link show type veth')
      .stdout.trimEnd()
      .split('\n');
    const eth0 = veths.filter((line) => line.includes(' eth0@'));
    expect(eth0).toHaveLength(1);
    expect(eth0[0]).toMatch(/link-netnsid 0$/);
    const pods = veths.filter((line) => !line.includes(' eth0@'));
    expect(pods).toHaveLength(2);
    for (const line of pods) expect(line).toMatch(/link-netns cni-[0-9a-f-]{36}$/);
  });
});
