// The ruleset kube-proxy's nftables mode writes for one ServicePort with one endpoint, as the first sync's `nft -f`
// transaction: a story-sized front for src/k8s/kube-proxy/nftables (which renders any number of Services and
// endpoints, affinity, Local policies, LoadBalancers and source ranges).

import { service as serviceObject } from '../src/k8s/api/builders.ts';
import { NftablesProxier } from '../src/k8s/kube-proxy/nftables/proxier.ts';
import type { EndpointSlice, Service } from '../src/k8s/objects.ts';
import { objectMeta, SERVICE_NAME_LABEL } from '../src/k8s/objects.ts';

/** One ServicePort and its one endpoint; a single endpoint keeps the kernel's `numgen random` choice fixed. */
export interface NftService {
  readonly namespace: string;
  readonly name: string;
  readonly portName: string;
  readonly protocol: 'tcp' | 'udp';
  readonly clusterIp: string;
  readonly port: number;
  readonly nodePort: number | undefined;
  readonly endpoint: { readonly ip: string; readonly port: number };
  /** The pods' CIDR: traffic to the ClusterIP from outside it is masqueraded (the LocalTrafficDetector). */
  readonly clusterCidr: string;
  /** The Service CIDR: traffic to an unallocated ClusterIP in it is dropped. */
  readonly serviceCidr: string;
}

/**
 * What kube-proxy's nftables proxier writes for `service` on its first sync (setupNFTables, then syncProxyRules),
 * NodePorts on every local address. `counters` puts a `counter` in every rule before its statement, which
 * kube-proxy does not, so that `nft list ruleset` shows every rule's hits.
 */
export function kubeProxyNftRuleset(service: NftService, options: { counters: boolean }): string {
  const protocol = service.protocol === 'tcp' ? 'TCP' : 'UDP';
  const uid = `${service.namespace}/${service.name}`;
  const { spec, status } = serviceObject({
    name: service.name,
    type: service.nodePort === undefined ? 'ClusterIP' : 'NodePort',
    clusterIP: service.clusterIp,
    ports: [
      {
        name: service.portName,
        protocol,
        port: service.port,
        targetPort: service.endpoint.port,
        nodePort: service.nodePort ?? 0,
      },
    ],
    // defaultService leaves it '' on a ClusterIP Service; this front has always written Cluster
    externalTrafficPolicy: 'Cluster',
  });
  const object: Service = {
    kind: 'Service',
    metadata: objectMeta(service.namespace, service.name, uid),
    spec,
    status,
  };
  const slice: EndpointSlice = {
    kind: 'EndpointSlice',
    metadata: objectMeta(service.namespace, `${service.name}-1`, `${uid}-1`, {
      [SERVICE_NAME_LABEL]: service.name,
    }),
    addressType: 'IPv4',
    endpoints: [
      {
        addresses: [service.endpoint.ip],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: '',
        targetRef: { kind: 'Pod', namespace: service.namespace, name: service.name },
      },
    ],
    ports: [{ name: service.portName, port: service.endpoint.port, protocol }],
  };
  const proxier = new NftablesProxier({ serviceCidrs: [service.serviceCidr], counters: options.counters });
  const [command] = proxier.sync(
    'node',
    {
      nodeName: '',
      nodeIps: [],
      clusterCidr: service.clusterCidr,
      masqueradeBit: 14,
      services: [object],
      endpointSlices: [slice],
    },
    true,
  );
  const file = command?.argv[2];
  return typeof file === 'object' && 'text' in file ? file.text : '';
}
