// A node's view of a large cluster made directly (Services with their ClusterIPs and NodePorts, one EndpointSlice each
// with 1-3 ready endpoints), without the control plane, so the rule benchmarks can reach 10k Services in a second.
// The mix is kube-cluster.ts's (mostly ClusterIP, some NodePort, a few externalTrafficPolicy Local); the view is a
// pure function of the sizes, and it is not what the controllers would allocate (no uids, no resourceVersions).

import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import { type EndpointSlice, SERVICE_NAME_LABEL, type Service } from '../../src/k8s/objects.ts';
import { xorshift32 } from './xorshift.ts';

export interface ViewSize {
  readonly services: number;
  /** Nodes the endpoints are spread over (node 0 is the viewing node). */
  readonly nodes: number;
}

const nodeName = (i: number): string => `scale-worker${i === 0 ? '' : i + 1}`;
const nodeIp = (i: number): string => `172.18.${1 + (i >> 8)}.${(i & 255) + 2}`;

/** The s-th address of 10.96.0.0/12 after 10.96.0.1 (the kubernetes Service's). */
const clusterIp = (s: number): string => {
  const n = s + 2;
  return `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
};

/** The n-th pod address of the cluster (10.244.0.0/16 and up, 250 a node). */
const podIp = (n: number): string => {
  const node = Math.floor(n / 250);
  return `10.${244 + (node >> 8)}.${node & 255}.${(n % 250) + 2}`;
};

function meta(name: string, labels: Record<string, string>) {
  return {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    resourceVersion: 1,
    labels,
    annotations: {},
    creationTimestamp: 0,
    deletionTimestamp: undefined,
    ownerReferences: [],
  };
}

export function buildView(size: ViewSize): ProxierView {
  const next = xorshift32(13);
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  let pods = 0;
  for (let s = 0; s < size.services; s++) {
    const name = `svc-${s}`;
    const roll = s % 50;
    const type = roll < 44 ? 'ClusterIP' : 'NodePort';
    services.push({
      kind: 'Service',
      metadata: meta(name, {}),
      spec: {
        type,
        clusterIP: clusterIp(s),
        ports: [
          {
            name: 'http',
            protocol: 'TCP',
            port: 80,
            targetPort: 8080,
            nodePort: type === 'NodePort' ? 30000 + (s % 2768) : 0,
          },
        ],
        selector: { app: name },
        sessionAffinity: 'None',
        sessionAffinityTimeoutSeconds: 10800,
        externalTrafficPolicy: roll === 49 ? 'Local' : 'Cluster',
        internalTrafficPolicy: 'Cluster',
        healthCheckNodePort: 0,
        externalIPs: [],
        loadBalancerSourceRanges: [],
      },
      status: { loadBalancerIngress: [] },
    });
    const endpoints = [];
    const count = 1 + (next() % 3);
    for (let e = 0; e < count; e++) {
      const at = next() % size.nodes;
      endpoints.push({
        addresses: [podIp(pods++)],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: nodeName(at),
        targetRef: { kind: 'Pod' as const, namespace: 'default', name: `${name}-${e}` },
      });
    }
    endpointSlices.push({
      kind: 'EndpointSlice',
      metadata: meta(`${name}-abcde`, { [SERVICE_NAME_LABEL]: name }),
      addressType: 'IPv4',
      endpoints,
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    });
  }
  return {
    nodeName: nodeName(0),
    nodeIps: [nodeIp(0)],
    clusterCidr: '10.244.0.0/16',
    masqueradeBit: 14,
    services,
    endpointSlices,
  };
}
