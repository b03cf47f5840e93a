// Small builders for the Services and EndpointSlices of kube-proxy's own tests (proxier_test.go: makeTestService,
// makeTestEndpointSlice), as src/k8s/objects.ts types with the API's defaults filled in.

import type {
  Endpoint,
  EndpointPort,
  EndpointSlice,
  Protocol,
  Service,
  ServicePort,
} from '../../../../src/k8s/objects.ts';
import { objectMeta } from '../../../../src/k8s/objects.ts';
import { makeEndpointSlice, serviceSpec } from '../../../support/k8s-objects.ts';

/** A Service as makeTestService makes it (ClusterIP, no ports) with `spec` and `status` overrides. */
export function makeService(
  namespace: string,
  name: string,
  spec: Partial<Service['spec']>,
  loadBalancerIngress: readonly string[] = [],
): Service {
  return {
    kind: 'Service',
    metadata: objectMeta(namespace, name, `${namespace}-${name}`),
    spec: serviceSpec(spec),
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
  return makeEndpointSlice(
    namespace,
    service,
    sliceNumber,
    endpoints,
    ports,
    `${namespace}-${service}-${sliceNumber}`,
  );
}

export function endpointPort(name: string, portNumber: number, protocol: Protocol = 'TCP'): EndpointPort {
  return { name, port: portNumber, protocol };
}
