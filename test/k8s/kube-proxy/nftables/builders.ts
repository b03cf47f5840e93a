// Small builders for the Services and EndpointSlices of kube-proxy's own tests (proxier_test.go: makeTestService,
// makeTestEndpointSlice), as src/k8s/objects.ts types with the API's defaults filled in.

import type {
  Endpoint,
  EndpointPort,
  EndpointSlice,
  ObjectMeta,
  Protocol,
  Service,
  ServicePort,
} from '../../../../src/k8s/objects.ts';
import { SERVICE_NAME_LABEL } from '../../../../src/k8s/objects.ts';

function meta(namespace: string, name: string, labels: Record<string, string> = {}): ObjectMeta {
  return {
    name,
    namespace,
    uid: `${namespace}-${name}`,
    resourceVersion: 1,
    labels,
    annotations: {},
    creationTimestamp: 0,
    deletionTimestamp: undefined,
    ownerReferences: [],
  };
}

/** A Service as makeTestService makes it (ClusterIP, no ports) with `spec` and `status` overrides. */
export function makeService(
  namespace: string,
  name: string,
  spec: Partial<Service['spec']>,
  loadBalancerIngress: readonly string[] = [],
): Service {
  return {
    kind: 'Service',
    metadata: meta(namespace, name),
    spec: {
      type: 'ClusterIP',
      clusterIP: '',
      ports: [],
      selector: {},
      sessionAffinity: 'None',
      sessionAffinityTimeoutSeconds: 10800,
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 0,
      externalIPs: [],
      loadBalancerSourceRanges: [],
      ...spec,
    },
    status: { loadBalancerIngress },
  };
}

export function port(
  name: string,
  portNumber: number,
  protocol: Protocol = 'TCP',
  nodePort = 0,
): ServicePort {
  return { name, protocol, port: portNumber, targetPort: portNumber, nodePort };
}

/** An endpoint: ready unless `conditions` says otherwise; `nodeName` '' for an endpoint on no known node. */
export function endpoint(
  address: string,
  nodeName = '',
  conditions: Partial<Endpoint['conditions']> = {},
): Endpoint {
  return {
    addresses: [address],
    conditions: { ready: true, serving: true, terminating: false, ...conditions },
    nodeName,
    targetRef: { kind: 'Pod', namespace: '', name: address },
  };
}

/** A slice as makeTestEndpointSlice makes it (`NAME-SLICENUM`, labelled with its Service). */
export function makeSlice(
  namespace: string,
  service: string,
  sliceNumber: number,
  endpoints: readonly Endpoint[],
  ports: readonly EndpointPort[],
): EndpointSlice {
  return {
    kind: 'EndpointSlice',
    metadata: meta(namespace, `${service}-${sliceNumber}`, { [SERVICE_NAME_LABEL]: service }),
    addressType: 'IPv4',
    endpoints,
    ports,
  };
}

export function endpointPort(name: string, portNumber: number, protocol: Protocol = 'TCP'): EndpointPort {
  return { name, port: portNumber, protocol };
}
