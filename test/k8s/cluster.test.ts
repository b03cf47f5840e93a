import { describe, expect, it } from 'vitest';
import { httpServer } from '../../src/app/http/server.ts';
import { cluster, makeCni } from '../../src/k8s/cluster.ts';
import { clusterPlan } from '../../src/k8s/cluster-plan.ts';
import type { ImageRunner } from '../../src/k8s/kubelet/kubelet.ts';
import { runPlan } from '../../src/k8s/run-plan.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';

const WEB: ImageRunner = (ns, _pod, container) => {
  const server = httpServer(ns, {
    port: container.ports[0]?.containerPort ?? 8000,
    routes: { '/sante': { body: 'ok\n' } },
  });
  return { stop: () => server.close() };
};

/** The lesson's pods on a cluster without kube-proxy or CoreDNS (the kernel-checked plan has neither). */
function lesson(cni: 'flannel-vxlan' | 'flannel-host-gw' | 'kindnet') {
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni,
    kubeProxy: 'none',
    dns: false,
    seed: 'lesson',
    images: new Map([['signalements:1.0', WEB]]),
  });
  for (const [name, node, ip, image] of [
    ['diag', 'formation-worker', '10.244.1.5', undefined],
    ['signalements-a', 'formation-worker2', '10.244.2.7', 'signalements:1.0'],
    ['signalements-b', 'formation-worker', '10.244.1.9', 'signalements:1.0'],
  ] as const) {
    const created = c.createPod({
      name,
      node,
      ip,
      ...(image !== undefined
        ? {
            image,
            labels: { app: 'signalements' },
            ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
          }
        : {}),
    });
    expect(created.ok).toBe(true);
  }
  c.settle();
  return c;
}

describe('cluster()', () => {
  it('names, addresses and pod CIDRs as kind gives them; Node objects in the store', () => {
    const c = lesson('kindnet');
    expect(c.nodeList().map((node) => [node.name, node.network.address, node.network.podCidr])).toEqual([
      ['formation-control-plane', '172.18.0.2', '10.244.0.0/24'],
      ['formation-worker', '172.18.0.3', '10.244.1.0/24'],
      ['formation-worker2', '172.18.0.4', '10.244.2.0/24'],
    ]);
    const node = c.store.get('Node', '', 'formation-worker');
    expect(node?.spec.podCIDR).toBe('10.244.1.0/24');
    expect(node?.status.addresses).toEqual([
      { type: 'InternalIP', address: '172.18.0.3' },
      { type: 'Hostname', address: 'formation-worker' },
    ]);
    expect(c.store.get('Node', '', 'formation-control-plane')?.spec.taints).toEqual([
      { key: 'node-role.kubernetes.io/control-plane', value: '', effect: 'NoSchedule' },
    ]);
    const worker = c.nodeNamespace('formation-worker')!;
    expect(exec(worker, 'sysctl net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables').stdout).toBe(
      'net.ipv4.ip_forward = 1\nnet.bridge.bridge-nf-call-iptables = 1\n',
    );
    expect(exec(worker, 'ip route show default').stdout).toBe('default via 172.18.0.1 dev eth0 \n');
  });

  for (const cni of ['flannel-vxlan', 'flannel-host-gw', 'kindnet'] as const) {
    it(`${cni}: the lesson's pods get their pinned addresses, Running and ready, and reach each other and the Internet`, () => {
      const c = lesson(cni);
      const pods = c.store.list('Pod');
      expect(
        pods.map((pod) => [pod.metadata.name, pod.status.phase, pod.status.podIP, pod.status.hostIP]),
      ).toEqual([
        ['diag', 'Running', '10.244.1.5', '172.18.0.3'],
        ['signalements-a', 'Running', '10.244.2.7', '172.18.0.4'],
        ['signalements-b', 'Running', '10.244.1.9', '172.18.0.3'],
      ]);
      expect(pods.every((pod) => pod.status.ready)).toBe(true);
      const diag = c.podNamespace('default', 'diag')!;
      expect(diag.name).toMatch(/^cni-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(exec(diag, 'ip -br addr show eth0').stdout).toContain('10.244.1.5/24');
      expect(exec(diag, 'curl -s http://10.244.2.7:8000/sante').stdout).toBe('ok\n');
      expect(exec(diag, 'curl -s http://10.244.1.9:8000/sante').stdout).toBe('ok\n');
      expect(exec(diag, 'ping -c 1 203.0.113.10').stdout).toContain('1 received');
    });
  }

  it('setup runs before the first node joins, so a watcher sees every Node', () => {
    const seen: string[] = [];
    cluster({
      name: 'formation',
      workers: 2,
      seed: 'setup',
      setup: (c) => {
        c.store.watch('Node', (event) => seen.push(`${event.type} ${event.object.metadata.name}`));
      },
    });
    expect(seen).toEqual([
      'ADDED formation-control-plane',
      'ADDED formation-worker',
      'ADDED formation-worker2',
    ]);
  });

  it('host-local hands out the next free address from .2, after the last one reserved', () => {
    const c = cluster({ name: 'formation', workers: 1, seed: 'ipam' });
    for (const name of ['a', 'b', 'c']) c.createPod({ name, node: 'formation-worker' });
    c.settle();
    expect(c.store.list('Pod', 'default').map((pod) => pod.status.podIP)).toEqual([
      '10.244.1.2',
      '10.244.1.3',
      '10.244.1.4',
    ]);
    c.store.delete('Pod', 'default', 'b');
    c.settle();
    c.createPod({ name: 'd', node: 'formation-worker' });
    c.settle();
    expect(c.store.get('Pod', 'default', 'd')?.status.podIP).toBe('10.244.1.5');
    c.createPod({ name: 'e', node: 'formation-worker', ip: '10.244.1.4' });
    c.settle();
    expect(c.store.get('Pod', 'default', 'e')?.status.phase).toBe('Pending');
    expect(c.node('formation-worker')?.kubelet.events).toEqual([
      'default/e: FailedCreatePodSandBox: requested IP address 10.244.1.4 is not available in range set',
    ]);
  });

  it('containers get 64-hex IDs, a sandbox ID and PIDs that lead to their namespace', () => {
    const c = lesson('flannel-vxlan');
    const containers = c.containers('formation-worker');
    expect(containers.map((container) => container.name)).toEqual(['diag', 'signalements-b']);
    for (const container of containers) {
      expect(container.id).toMatch(/^[0-9a-f]{64}$/);
      expect(container.podSandboxId).toMatch(/^[0-9a-f]{64}$/);
      expect(container.state).toBe('CONTAINER_RUNNING');
    }
    const pod = c.store.get('Pod', 'default', 'diag')!;
    expect(pod.status.containerStatuses).toEqual([
      { name: 'diag', containerID: `containerd://${containers[0]!.id}`, ready: true },
    ]);
    expect(c.namespaceOfPid('formation-worker', containers[0]!.pid)).toBe(c.podNamespace('default', 'diag'));
    expect(c.namespaceOfPid('formation-worker', 1)).toBeUndefined();
    // The same seed gives the same IDs.
    expect(
      lesson('flannel-vxlan')
        .containers('formation-worker')
        .map((container) => container.id),
    ).toEqual(containers.map((container) => container.id));
  });

  it('a deleted pod loses its veth, routes and namespace; its server stops answering', () => {
    const c = lesson('kindnet');
    const worker = c.nodeNamespace('formation-worker')!;
    const sandbox = c.node('formation-worker')!.kubelet.sandboxOf('default', 'signalements-b')!;
    const nsName = sandbox.ns;
    expect(exec(worker, 'ip route').stdout).toContain(`10.244.1.9 dev ${sandbox.hostVeth} scope host`);
    c.store.delete('Pod', 'default', 'signalements-b');
    c.settle();
    expect(exec(worker, 'ip route').stdout).not.toContain('10.244.1.9');
    expect(worker.byName(sandbox.hostVeth)).toBeUndefined();
    expect(c.sim.hasNamespace(nsName)).toBe(false);
    expect(c.podNamespace('default', 'signalements-b')).toBeUndefined();
    expect(c.containers('formation-worker').map((container) => container.name)).toEqual(['diag']);
    const diag = c.podNamespace('default', 'diag')!;
    expect(exec(diag, 'ping -c 1 -W 1 10.244.1.9').stdout).toContain('0 received');
  });

  it('a pod rebound to another node is torn down on the first and started on the second', () => {
    const c = lesson('flannel-host-gw');
    c.createPod({ name: 'mobile', node: 'formation-worker' });
    c.settle();
    expect(c.store.get('Pod', 'default', 'mobile')?.status.podIP).toBe('10.244.1.10');
    const pod = c.store.get('Pod', 'default', 'mobile')!;
    expect(c.store.update({ ...pod, spec: { ...pod.spec, nodeName: 'formation-worker2' } }).ok).toBe(true);
    c.settle();
    expect(c.containers('formation-worker').map((container) => container.name)).toEqual([
      'diag',
      'signalements-b',
    ]);
    expect(c.containers('formation-worker2').map((container) => container.name)).toEqual([
      'signalements-a',
      'mobile',
    ]);
    expect(c.store.get('Pod', 'default', 'mobile')?.status.hostIP).toBe('172.18.0.4');
    expect(c.store.get('Pod', 'default', 'mobile')?.status.podIP).toBe('10.244.2.8');
  });

  it('a pinned address outside the node range leaves the pod Pending with the CNI error', () => {
    const c = lesson('kindnet');
    c.createPod({ name: 'lost', node: 'formation-worker2', ip: '10.244.1.20' });
    c.settle();
    expect(c.store.get('Pod', 'default', 'lost')?.status.phase).toBe('Pending');
    expect(c.node('formation-worker2')?.kubelet.events).toEqual([
      'default/lost: FailedCreatePodSandBox: requested IP address 10.244.1.20 is not in range set',
    ]);
  });

  it('a terminating pod (deletionTimestamp) has its containers stopped and shown exited', () => {
    const c = lesson('kindnet');
    const pod = c.store.get('Pod', 'default', 'signalements-b')!;
    expect(c.store.update({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: c.sim.now } }).ok).toBe(
      true,
    );
    c.settle();
    const states = c.containers('formation-worker').map((container) => [container.name, container.state]);
    expect(states).toEqual([
      ['diag', 'CONTAINER_RUNNING'],
      ['signalements-b', 'CONTAINER_EXITED'],
    ]);
    const diag = c.podNamespace('default', 'diag')!;
    expect(exec(diag, 'curl -s http://10.244.1.9:8000/sante').exitCode).toBe(7);
  });

  it('a hostNetwork pod runs in the node namespace with the node address', () => {
    const c = cluster({ name: 'formation', workers: 1, seed: 'host', images: new Map([['web', WEB]]) });
    c.createPod({
      name: 'agent',
      node: 'formation-worker',
      hostNetwork: true,
      image: 'web',
      ports: [{ name: 'http', containerPort: 9000, protocol: 'TCP' }],
    });
    c.settle();
    expect(c.store.get('Pod', 'default', 'agent')?.status.podIP).toBe('172.18.0.3');
    expect(c.podNamespace('default', 'agent')).toBe(c.nodeNamespace('formation-worker'));
    expect(
      exec(c.nodeNamespace('formation-control-plane')!, 'curl -s http://172.18.0.3:9000/sante').stdout,
    ).toBe('ok\n');
  });

  it('a node added later joins the overlay; a removed node leaves nothing on its peers', () => {
    const c = lesson('flannel-vxlan');
    const w3 = c.addNode();
    expect([w3.name, w3.network.address, w3.network.podCidr]).toEqual([
      'formation-worker3',
      '172.18.0.5',
      '10.244.3.0/24',
    ]);
    const worker = c.nodeNamespace('formation-worker')!;
    expect(exec(worker, 'ip route').stdout).toContain('10.244.3.0/24 via 10.244.3.0 dev flannel.1 onlink');
    c.createPod({ name: 'late', node: 'formation-worker3', ip: '10.244.3.8' });
    c.settle();
    expect(exec(c.podNamespace('default', 'diag')!, 'ping -c 1 10.244.3.8').stdout).toContain('1 received');
    c.removeNode('formation-worker3');
    expect(exec(worker, 'ip route').stdout).not.toContain('10.244.3.0');
    expect(exec(worker, 'bridge fdb show dev flannel.1').stdout).not.toContain('172.18.0.5');
    expect(c.store.get('Node', '', 'formation-worker3')).toBeUndefined();
    expect(c.nodeNamespace('formation-worker3')).toBeUndefined();
    const again = c.addNode();
    expect([again.name, again.network.address, again.network.podCidr]).toEqual([
      'formation-worker3',
      '172.18.0.5',
      '10.244.3.0/24',
    ]);
    expect(again.network.tunnelMac).not.toBe(w3.network.tunnelMac);
    expect(exec(worker, 'ip route').stdout).toContain('10.244.3.0/24 via 10.244.3.0 dev flannel.1 onlink');
  });
});

describe('cluster() builds what the kernel-checked plan builds', () => {
  for (const cni of ['flannel-vxlan', 'flannel-host-gw', 'kindnet'] as const) {
    it(`${cni}: the same node routes (veth names aside), tunnel FDB, neighbours and NAT rules as clusterPlan`, () => {
      const c = lesson(cni);
      const plan = clusterPlan({
        name: 'formation',
        workers: 2,
        cni: makeCni(cni),
        seed: 'lesson',
        pods: [
          { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
          { name: 'signalements-a', node: 'formation-worker2', address: '10.244.2.7' },
          { name: 'signalements-b', node: 'formation-worker', address: '10.244.1.9' },
        ],
      });
      const { runner } = runPlan(new Simulation({ seed: 'lesson' }), plan);
      const veths = /veth[0-9a-f]{8}/g;
      const macs = /([0-9a-f]{2}:){5}[0-9a-f]{2}/g;
      for (const node of ['formation-control-plane', 'formation-worker', 'formation-worker2']) {
        for (const line of [
          'ip route',
          'ip -br addr',
          'ip neigh',
          'iptables-save -t nat',
          'iptables-save -t filter',
        ]) {
          const dynamic = exec(c.nodeNamespace(node)!, line)
            .stdout.replace(veths, 'VETH')
            .replace(macs, 'MAC');
          const planned = exec(runner.nsOf(node), line).stdout.replace(veths, 'VETH').replace(macs, 'MAC');
          expect(dynamic, `${node}: ${line}`).toBe(planned);
        }
      }
    });
  }
});
