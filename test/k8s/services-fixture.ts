// Builders for the Service, EndpointSlice and Pod objects the DNS, health-check and load-balancer tests put in a
// real Store (no admission: the objects are written whole, as the API server would have stored them).

import type { EndpointSlice, Pod, Service, ServicePort } from '../../src/k8s/objects.ts';
import { SERVICE_NAME_LABEL } from '../../src/k8s/objects.ts';
import { type NewObject, Store } from '../../src/k8s/store.ts';
import type { Simulation } from '../../src/netns/simulation.ts';
import { serviceSpec } from '../support/k8s-objects.ts';

export function storeOf(sim: Simulation): Store {
  return new Store(sim.rng.fork('store'), () => sim.now);
}

export function service(
  name: string,
  spec: Partial<Service['spec']> & { readonly ports: readonly ServicePort[] },
  namespace = 'default',
): NewObject<Service> & { kind: 'Service' } {
  return {
    kind: 'Service',
    metadata: { name, namespace },
    spec: serviceSpec({ selector: { app: name }, ...spec }),
    status: { loadBalancerIngress: [] },
  };
}

export function port(port: number, targetPort: number, extra: Partial<ServicePort> = {}): ServicePort {
  return { name: '', protocol: 'TCP', port, targetPort, nodePort: 0, ...extra };
}

/** One endpoint: address, node, ready (serving) unless said otherwise. */
export interface EndpointSpec {
  readonly addr: string;
  readonly node: string;
  readonly ready?: boolean;
  readonly terminating?: boolean;
}

export function slice(
  serviceName: string,
  endpoints: readonly EndpointSpec[],
  ports: EndpointSlice['ports'],
  namespace = 'default',
): NewObject<EndpointSlice> & { kind: 'EndpointSlice' } {
  return {
    kind: 'EndpointSlice',
    metadata: { name: `${serviceName}-abcde`, namespace, labels: { [SERVICE_NAME_LABEL]: serviceName } },
    addressType: 'IPv4',
    endpoints: endpoints.map((endpoint, index) => ({
      addresses: [endpoint.addr],
      conditions: {
        ready: endpoint.ready ?? true,
        serving: endpoint.ready ?? true,
        terminating: endpoint.terminating ?? false,
      },
      nodeName: endpoint.node,
      targetRef: { kind: 'Pod', namespace, name: `${serviceName}-${index}` },
    })),
    ports,
  };
}

export function pod(
  name: string,
  podIP: string,
  nodeName: string,
  namespace = 'default',
): NewObject<Pod> & { kind: 'Pod' } {
  return {
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { nodeName, containers: [], hostNetwork: false, terminationGracePeriodSeconds: 30 },
    status: { phase: 'Running', podIP, hostIP: '', ready: true, containerStatuses: [] },
  };
}

/** Runs a store call that must succeed. */
export function must<T>(result: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}
