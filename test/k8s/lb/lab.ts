// The load-balancer tests' fixture: a client on the outside (203.0.113.10) behind the LB namespace, which is also
// the Docker-like network's gateway (172.18.0.1, so replies to a kept client address come back through it); two
// worker nodes (172.18.0.3 and .4) with one pod each (10.244.1.9 and 10.244.2.7) and NodePort 30080 DNATed by hand
// to the local pod; kube-proxy's health servers on both nodes from one real Store.

import { type HttpServer, httpServer } from '../../../src/app/http/server.ts';
import { kubeProxyHealth } from '../../../src/k8s/kube-proxy/health.ts';
import { type LoadBalancerOptions, loadBalancerController } from '../../../src/k8s/lb/controller.ts';
import type { Service } from '../../../src/k8s/objects.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { execOrThrow } from '../../../src/tools/exec.ts';
import { must, port, service, slice, storeOf } from '../services-fixture.ts';

const WORKERS = [
  { name: 'formation-worker', addr: '172.18.0.3', pod: '10.244.1.9', gateway: '10.244.1.1' },
  { name: 'formation-worker2', addr: '172.18.0.4', pod: '10.244.2.7', gateway: '10.244.2.1' },
] as const;

export function lbService(policy: 'Local' | 'Cluster'): ReturnType<typeof service> {
  return service('signalements', {
    type: 'LoadBalancer',
    clusterIP: '10.96.40.12',
    externalTrafficPolicy: policy,
    healthCheckNodePort: policy === 'Local' ? 32000 : 0,
    ports: [port(80, 8000, { nodePort: 30080 })],
  });
}

export function lbLab(
  options: LoadBalancerOptions & {
    readonly policy: 'Local' | 'Cluster';
    readonly podProxyProtocol?: boolean;
  },
) {
  const sim = new Simulation({ seed: 'lb' });
  const store = storeOf(sim);
  const run = (ns: Namespace, line: string) => execOrThrow(ns, line);
  const segment = sim.addSegment('kind');
  const lb = sim.addNamespace('lb');
  const client = sim.addNamespace('client');
  segment.attach(lb, 'eth0');
  run(lb, 'ip addr add 172.18.0.1/16 dev eth0');
  run(lb, 'ip link set eth0 up');
  run(client, 'ip link add eth0 type veth peer name ext netns lb');
  run(client, 'ip addr add 203.0.113.10/24 dev eth0');
  run(client, 'ip link set eth0 up');
  run(client, 'ip route add default via 203.0.113.1');
  run(lb, 'ip addr add 203.0.113.1/24 dev ext');
  run(lb, 'ip link set ext up');
  must(
    store.create({
      kind: 'Node',
      metadata: {
        name: 'formation-control-plane',
        labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' },
      },
      spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], unschedulable: false, taints: [] },
      status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }], ready: true },
    }),
  );
  const nodes: Namespace[] = [];
  const pods: HttpServer[] = [];
  const podNamespaces: Namespace[] = [];
  for (const worker of WORKERS) {
    const node = sim.addNamespace(worker.name);
    const pod = sim.addNamespace(`pod-${worker.name}`);
    segment.attach(node, 'eth0');
    run(node, `ip addr add ${worker.addr}/16 dev eth0`);
    run(node, 'ip link set eth0 up');
    run(node, 'ip route add default via 172.18.0.1');
    run(node, 'sysctl -qw net.ipv4.ip_forward=1');
    run(node, `ip link add veth0 type veth peer name eth0 netns pod-${worker.name}`);
    run(node, `ip addr add ${worker.gateway}/24 dev veth0`);
    run(node, 'ip link set veth0 up');
    run(pod, `ip addr add ${worker.pod}/24 dev eth0`);
    run(pod, 'ip link set eth0 up');
    run(pod, `ip route add default via ${worker.gateway}`);
    // kube-proxy's NodePort rule, by hand: to the node's own pod.
    run(
      node,
      `iptables -t nat -A PREROUTING -p tcp --dport 30080 -j DNAT --to-destination ${worker.pod}:8000`,
    );
    pods.push(
      httpServer(pod, {
        port: 8000,
        routes: { '/sante': { body: `ok from ${worker.name}\n` } },
        proxyProtocol: options.podProxyProtocol ?? false,
      }),
    );
    must(
      store.create({
        kind: 'Node',
        metadata: { name: worker.name },
        spec: { podCIDR: `${worker.gateway}/24`, podCIDRs: [], unschedulable: false, taints: [] },
        status: { addresses: [{ type: 'InternalIP', address: worker.addr }], ready: true },
      }),
    );
    kubeProxyHealth(node, store, { nodeName: worker.name });
    nodes.push(node);
    podNamespaces.push(pod);
  }
  // The Service's one endpoint is the pod on formation-worker; formation-worker2's pod is not behind it (Local: 503).
  must(store.create(lbService(options.policy)));
  must(
    store.create(
      slice(
        'signalements',
        [
          { addr: '10.244.1.9', node: 'formation-worker' },
          ...(options.policy === 'Cluster' ? [{ addr: '10.244.2.7', node: 'formation-worker2' }] : []),
        ],
        [{ name: '', port: 8000, protocol: 'TCP' }],
      ),
    ),
  );
  const controller = loadBalancerController(lb, store, options);
  const svc = () => store.get('Service', 'default', 'signalements') as Service;
  return { sim, store, lb, client, nodes, pods, podNamespaces, controller, svc, run };
}
