// Small builders for Services and EndpointSlices in the API's field names, with the defaults the API server fills in
// (the control-plane helper's builders may replace these), in the style of kube-proxy's makeTestService and
// makeTestEndpointSlice: a base object and a function that edits a mutable copy.

import type { Endpoint, EndpointPort, EndpointSlice, Service, ServicePort } from '../../src/k8s/objects.ts';
import { objectMeta, SERVICE_NAME_LABEL } from '../../src/k8s/objects.ts';

/** The uid these builders give `namespace/name` unless told another. */
function defaultUid(namespace: string, name: string): string {
  return `uid-${namespace}-${name}`;
}

/** A Service's spec as makeTestService starts it (ClusterIP, no ports, no selector), then `fields`. */
export function serviceSpec(fields: Partial<Service['spec']> = {}): Service['spec'] {
  return {
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
    ...fields,
  };
}

export interface ServiceEdit {
  type: Service['spec']['type'];
  clusterIP: string;
  ports: ServicePort[];
  sessionAffinity: 'None' | 'ClientIP';
  sessionAffinityTimeoutSeconds: number;
  externalTrafficPolicy: 'Cluster' | 'Local';
  internalTrafficPolicy: 'Cluster' | 'Local';
  healthCheckNodePort: number;
  externalIPs: string[];
  loadBalancerSourceRanges: string[];
  loadBalancerIngress: string[];
}

/** A ClusterIP Service `namespace/name`, then `edit` (makeTestService). */
export function makeService(
  namespace: string,
  name: string,
  edit: (svc: ServiceEdit) => void,
  uid = defaultUid(namespace, name),
): Service {
  // serviceSpec's defaults, with the lists the edit may replace as mutable arrays
  const { selector: _noSelector, ...defaults } = serviceSpec();
  const spec: ServiceEdit = {
    ...defaults,
    ports: [],
    externalIPs: [],
    loadBalancerSourceRanges: [],
    loadBalancerIngress: [],
  };
  edit(spec);
  const { loadBalancerIngress, ...rest } = spec;
  return {
    kind: 'Service',
    metadata: objectMeta(namespace, name, uid),
    spec: serviceSpec(rest),
    status: { loadBalancerIngress },
  };
}

/** A service port: `{ name, port, protocol }` with targetPort = port and no nodePort unless given. */
export function servicePort(fields: Partial<ServicePort> & { name: string; port: number }): ServicePort {
  return {
    protocol: 'TCP',
    targetPort: fields.port,
    nodePort: 0,
    ...fields,
  };
}

/** An endpoint: ready and serving unless told, on no node unless told. */
export function endpoint(
  address: string,
  fields: { nodeName?: string; ready?: boolean; serving?: boolean; terminating?: boolean } = {},
): Endpoint {
  return {
    addresses: [address],
    conditions: {
      ready: fields.ready ?? true,
      serving: fields.serving ?? fields.ready ?? true,
      terminating: fields.terminating ?? false,
    },
    nodeName: fields.nodeName ?? '',
    targetRef: { kind: 'Pod', namespace: 'default', name: `pod-${address}` },
  };
}

/** Slice `name-<n>` of Service `namespace/name` (makeTestEndpointSlice). */
export function makeEndpointSlice(
  namespace: string,
  name: string,
  n: number,
  endpoints: readonly Endpoint[],
  ports: readonly EndpointPort[],
  uid = defaultUid(namespace, `${name}-${n}`),
): EndpointSlice {
  return {
    kind: 'EndpointSlice',
    metadata: objectMeta(namespace, `${name}-${n}`, uid, { [SERVICE_NAME_LABEL]: name }),
    addressType: 'IPv4',
    endpoints,
    ports,
  };
}
