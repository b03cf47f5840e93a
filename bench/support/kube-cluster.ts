// A large cluster's Services and EndpointSlices made by the control plane (store, admission, scheduler-free pods
// pinned to nodes, the EndpointSlice controller), and each node's ProxierView of them, for the scale bench and its
// smoke test. Services: mostly ClusterIP, some NodePort with externalTrafficPolicy Cluster, a few Local (the only
// ones whose rules differ from node to node), each with 1-3 ready endpoints spread over the nodes.

import { Rng } from '../../src/core/rng.ts';
import { Scheduler } from '../../src/core/scheduler.ts';
import { node, pod, service } from '../../src/k8s/api/builders.ts';
import { ControlPlane } from '../../src/k8s/controllers/control-plane.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import type { Node } from '../../src/k8s/objects.ts';
import { Store } from '../../src/k8s/store.ts';

export interface ClusterSize {
  readonly nodes: number;
  readonly services: number;
}

export interface ScaleCluster {
  readonly nodes: readonly Node[];
  /** One view per node, in node order; all share the same services and endpointSlices arrays. */
  readonly views: readonly ProxierView[];
}

function must<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const nodeName = (i: number): string => `scale-worker${i === 0 ? '' : i + 1}`;
const nodeIp = (i: number): string => `172.18.${1 + (i >> 8)}.${(i & 255) + 2}`;
const podIp = (nodeIndex: number, n: number): string =>
  `10.${244 + (nodeIndex >> 8)}.${nodeIndex & 255}.${n + 2}`;

export function buildCluster(size: ClusterSize, seed = 'scale'): ScaleCluster {
  const scheduler = new Scheduler();
  const rng = new Rng(seed);
  const pick = rng.fork('placement');
  const store = new Store(rng.fork('store'), () => scheduler.now);
  new ControlPlane(store, scheduler, rng.fork('control-plane'), { serviceCidr: '10.96.0.0/12' });
  for (let i = 0; i < size.nodes; i++) {
    const podCIDR = `10.${244 + (i >> 8)}.${i & 255}.0/24`;
    must(store.create(node({ name: nodeName(i), internalIP: nodeIp(i), podCIDR })));
  }
  const podsOnNode = new Array<number>(size.nodes).fill(0);
  for (let s = 0; s < size.services; s++) {
    const app = `svc-${s}`;
    const roll = s % 50;
    const type = roll < 44 ? 'ClusterIP' : 'NodePort';
    const local = roll === 49;
    must(
      store.create(
        service({
          name: app,
          type,
          selector: { app },
          ports: [{ name: 'http', port: 80, targetPort: 8080 }],
          ...(local ? { externalTrafficPolicy: 'Local' as const } : {}),
        }),
      ),
    );
    const endpoints = 1 + (pick.u32() % 3);
    for (let e = 0; e < endpoints; e++) {
      const at = pick.u32() % size.nodes;
      const ip = podIp(at, podsOnNode[at]!++);
      const name = `${app}-${e}`;
      must(
        store.create(
          pod({ name, labels: { app }, nodeName: nodeName(at), podIP: ip, ports: [{ containerPort: 8080 }] }),
        ),
      );
      const current = store.get('Pod', 'default', name)!;
      must(
        store.update<'Pod'>({
          ...current,
          status: { ...current.status, phase: 'Running', podIP: ip, hostIP: nodeIp(at), ready: true },
        }),
      );
    }
  }
  scheduler.runFor(0);
  const services = store.list('Service', 'default');
  const endpointSlices = store.list('EndpointSlice', 'default');
  const nodes = Array.from({ length: size.nodes }, (_, i) => store.get('Node', '', nodeName(i))!);
  const views = nodes.map(
    (n, i): ProxierView => ({
      nodeName: n.metadata.name,
      nodeIps: [nodeIp(i)],
      clusterCidr: '10.244.0.0/16',
      masqueradeBit: 14,
      services,
      endpointSlices,
    }),
  );
  return { nodes, views };
}
