// The EndpointSlice controller: for every Service with a selector, slices of up to 100 endpoints (one per selected
// pod that has an IP and is not terminal), grouped by the ports the pod resolves, named `<service>-<5 chars>` as
// generateName does, labelled kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by, owned by the
// Service; a placeholder slice (no endpoints, no ports) when nothing is selected. IPv4 only; no topology hints, no
// publishNotReadyAddresses, no mirroring of selectorless Services' Endpoints.
//
// mirrors pkg/controller/endpointslice/reconciler.go (reconcileByAddressType: keep endpoints in their slices, fill
// slices being updated, then one unchanged slice that fits the rest, then new slices; finalize's reuse of a slice to
// delete for one to create, which keeps a placeholder's name when endpoints appear) and
// staging/src/k8s.io/endpointslice/utils.go (podToEndpoint: serving = ready, terminating = deletionTimestamp set,
// ready = serving and not terminating; getEndpointPorts with podutil.FindPort; ShouldPodBeInEndpoints).

import type { Rng } from '../../core/rng.ts';
import type { Scheduler } from '../../core/scheduler.ts';
import { generateName } from '../api/names.ts';
import {
  type Endpoint,
  type EndpointPort,
  type EndpointSlice,
  type Pod,
  SERVICE_NAME_LABEL,
  type Service,
  type ServicePort,
} from '../objects.ts';
import type { Store } from '../store.ts';
import { selectorMatches, splitKey, WorkQueue } from './work-queue.ts';

export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
/** --max-endpoints-per-slice's default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

/** podutil.FindPort: a number as is, a name looked up among the containers' ports of the same protocol. */
export function findPort(pod: Pod, port: ServicePort): number | undefined {
  if (typeof port.targetPort === 'number') return port.targetPort;
  for (const container of pod.spec.containers) {
    for (const containerPort of container.ports) {
      if (containerPort.name === port.targetPort && containerPort.protocol === port.protocol) {
        return containerPort.containerPort;
      }
    }
  }
  return undefined;
}

/** ShouldPodBeInEndpoints(pod, includeTerminating = true). */
function shouldBeInEndpoints(pod: Pod): boolean {
  if (pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed') return false;
  return pod.status.podIP !== '';
}

/** podToEndpoint */
export function podToEndpoint(pod: Pod): Endpoint {
  const serving = pod.status.ready;
  const terminating = pod.metadata.deletionTimestamp !== undefined;
  return {
    addresses: [pod.status.podIP],
    conditions: { ready: serving && !terminating, serving, terminating },
    nodeName: pod.spec.nodeName,
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name },
  };
}

function endpointPorts(service: Service, pod: Pod): EndpointPort[] {
  const ports: EndpointPort[] = [];
  for (const port of service.spec.ports) {
    const number = findPort(pod, port);
    if (number !== undefined) ports.push({ name: port.name, port: number, protocol: port.protocol });
  }
  return ports;
}

function portsKey(ports: readonly EndpointPort[]): string {
  return JSON.stringify(ports);
}

function endpointKey(endpoint: Endpoint): string {
  return `${endpoint.targetRef.namespace}/${endpoint.targetRef.name}`;
}

interface Draft {
  /** The stored slice it starts from; undefined for a new one. */
  readonly from: EndpointSlice | undefined;
  ports: readonly EndpointPort[];
  endpoints: Endpoint[];
  changed: boolean;
}

export class EndpointSliceController {
  private readonly queue: WorkQueue;

  constructor(
    private readonly store: Store,
    scheduler: Scheduler,
    private readonly rng: Rng,
  ) {
    this.queue = new WorkQueue(scheduler, (key) => this.sync(key));
    store.watch('Service', (event) => {
      this.queue.add(`${event.object.metadata.namespace}/${event.object.metadata.name}`);
    });
    store.watch('Pod', (event) => {
      const labels = [event.object.metadata.labels];
      if (event.type === 'MODIFIED') labels.push(event.old.metadata.labels);
      for (const service of this.store.list('Service', event.object.metadata.namespace)) {
        if (labels.some((set) => selectorMatches(service.spec.selector, set))) {
          this.queue.add(`${service.metadata.namespace}/${service.metadata.name}`);
        }
      }
    });
  }

  /** The slices the controller manages for a Service, in creation order. */
  slicesOf(namespace: string, serviceName: string): EndpointSlice[] {
    return this.store
      .list('EndpointSlice', namespace)
      .filter(
        (slice) =>
          slice.metadata.labels[SERVICE_NAME_LABEL] === serviceName &&
          slice.metadata.labels[MANAGED_BY_LABEL] === CONTROLLER_NAME,
      );
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const service = this.store.get('Service', namespace, name);
    const existing = this.slicesOf(namespace, name);
    if (service === undefined) {
      // The garbage collector removes slices whose owner is gone.
      for (const slice of existing) this.store.delete('EndpointSlice', namespace, slice.metadata.name);
      return;
    }
    if (Object.keys(service.spec.selector).length === 0) return;
    this.reconcile(service, existing);
  }

  private reconcile(service: Service, existing: readonly EndpointSlice[]): void {
    // Desired endpoints grouped by port set, in pod creation order.
    const groups = new Map<string, { ports: EndpointPort[]; endpoints: Map<string, Endpoint> }>();
    for (const pod of this.store.list('Pod', service.metadata.namespace)) {
      if (!selectorMatches(service.spec.selector, pod.metadata.labels) || !shouldBeInEndpoints(pod)) continue;
      const ports = endpointPorts(service, pod);
      const group = groups.get(portsKey(ports)) ?? { ports, endpoints: new Map() };
      const endpoint = podToEndpoint(pod);
      group.endpoints.set(endpointKey(endpoint), endpoint);
      groups.set(portsKey(ports), group);
    }
    const keep: Draft[] = [];
    const toDelete: EndpointSlice[] = [];
    for (const slice of existing) {
      const group = groups.get(portsKey(slice.ports));
      if (group === undefined) {
        toDelete.push(slice);
        continue;
      }
      const draft: Draft = { from: slice, ports: slice.ports, endpoints: [], changed: false };
      for (const endpoint of slice.endpoints) {
        const wanted = group.endpoints.get(endpointKey(endpoint));
        if (wanted === undefined) {
          draft.changed = true;
          continue;
        }
        group.endpoints.delete(endpointKey(endpoint));
        if (JSON.stringify(wanted) !== JSON.stringify(endpoint)) draft.changed = true;
        draft.endpoints.push(wanted);
      }
      if (draft.endpoints.length === 0 && slice.endpoints.length > 0) toDelete.push(slice);
      else keep.push(draft);
    }
    const toCreate: Draft[] = [];
    for (const [key, group] of groups) {
      const remaining = [...group.endpoints.values()];
      const mine = keep.filter((draft) => portsKey(draft.ports) === key);
      for (const draft of mine.filter((d) => d.changed)) {
        while (remaining.length > 0 && draft.endpoints.length < MAX_ENDPOINTS_PER_SLICE) {
          draft.endpoints.push(remaining.shift()!);
        }
      }
      if (remaining.length > 0) {
        const fits = mine.find(
          (d) => !d.changed && d.endpoints.length + remaining.length <= MAX_ENDPOINTS_PER_SLICE,
        );
        if (fits !== undefined) {
          fits.endpoints.push(...remaining.splice(0));
          fits.changed = true;
        }
      }
      while (remaining.length > 0) {
        toCreate.push({
          from: undefined,
          ports: group.ports,
          endpoints: remaining.splice(0, MAX_ENDPOINTS_PER_SLICE),
          changed: true,
        });
      }
    }
    // A placeholder when nothing is selected: keep one, or make one.
    const total = keep.length + toCreate.length;
    if (groups.size === 0 && total === 0) {
      const placeholder = toDelete.findIndex(
        (slice) => slice.endpoints.length === 0 && slice.ports.length === 0,
      );
      if (placeholder >= 0) toDelete.splice(placeholder, 1);
      else toCreate.push({ from: undefined, ports: [], endpoints: [], changed: true });
    }
    // finalize: a slice to delete is reused for one to create (it keeps its name).
    for (const draft of toCreate) {
      const reused = toDelete.shift();
      if (reused === undefined) this.create(service, draft);
      else this.write(service, { ...draft, from: reused });
    }
    for (const draft of keep) if (draft.changed) this.write(service, draft);
    for (const slice of toDelete)
      this.store.delete('EndpointSlice', slice.metadata.namespace, slice.metadata.name);
  }

  private labels(service: Service): Record<string, string> {
    const labels: Record<string, string> = { ...service.metadata.labels };
    labels[SERVICE_NAME_LABEL] = service.metadata.name;
    labels[MANAGED_BY_LABEL] = CONTROLLER_NAME;
    if (service.spec.clusterIP === 'None') labels['service.kubernetes.io/headless'] = '';
    return labels;
  }

  private create(service: Service, draft: Draft): void {
    const { namespace } = service.metadata;
    let name = generateName(this.rng, `${service.metadata.name}-`);
    while (this.store.get('EndpointSlice', namespace, name) !== undefined) {
      name = generateName(this.rng, `${service.metadata.name}-`);
    }
    this.store.create<'EndpointSlice'>({
      kind: 'EndpointSlice',
      metadata: {
        name,
        namespace,
        labels: this.labels(service),
        ownerReferences: [{ kind: 'Service', name: service.metadata.name, uid: service.metadata.uid }],
      },
      addressType: 'IPv4',
      endpoints: draft.endpoints,
      ports: draft.ports,
    });
  }

  private write(service: Service, draft: Draft): void {
    const from = draft.from!;
    this.store.update<'EndpointSlice'>({
      ...from,
      metadata: { ...from.metadata, labels: this.labels(service) },
      endpoints: draft.endpoints,
      ports: draft.ports,
    });
  }
}
