// The names cluster DNS answers, computed from the Store as CoreDNS's kubernetes plugin finds them (plugin/kubernetes
// kubernetes.go: findServices, findPods with `pods insecure`): `<svc>.<ns>.svc.<zone>` for ClusterIP Services, the
// ready endpoints of headless Services (and `<a-b-c-d>.<svc>.<ns>.svc.<zone>` for each), and SRV targets of named
// ports, and PTR names in in-addr.arpa for ClusterIPs and headless endpoints. Pod names are parsed, not listed. No
// ExternalName Services, no endpoint hostnames, no wildcards.

import type { EndpointSlice, Service } from '../objects.ts';
import { SERVICE_NAME_LABEL } from '../objects.ts';
import type { Store } from '../store.ts';

/** One SRV answer: `_port._proto.<svc>.<ns>.svc.<zone>` → port and target (CoreDNS's priority 0, weight 100 per target). */
export interface SrvTarget {
  readonly port: number;
  /** The target name, with its A records in the table. */
  readonly target: string;
}

export interface DnsTable {
  /** A records by lower-case name without the final dot. */
  readonly a: Map<string, string[]>;
  readonly srv: Map<string, SrvTarget[]>;
  /** PTR names (`12.40.96.10.in-addr.arpa`) of ClusterIPs and headless endpoints, and the name each points to. */
  readonly ptr: Map<string, string>;
  /** The Kubernetes namespaces that exist (CoreDNS's namespaceExposed): a pod name in another is NXDOMAIN. */
  readonly namespaces: Set<string>;
}

/** The endpoints' dashed name as CoreDNS's endpointHostname makes it without a hostname: 10.244.1.9 → 10-244-1-9. */
export function dashed(addr: string): string {
  return addr.replaceAll('.', '-');
}

/** Builds the table from the Store's Services and EndpointSlices, in the Store's creation order. */
export function buildDnsTable(store: Store, zone: string): DnsTable {
  const a = new Map<string, string[]>();
  const srv = new Map<string, SrvTarget[]>();
  const ptr = new Map<string, string>();
  const namespaces = new Set<string>(['default', 'kube-system']);
  for (const pod of store.list('Pod')) namespaces.add(pod.metadata.namespace);
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const slice of store.list('EndpointSlice')) {
    const key = `${slice.metadata.namespace}/${slice.metadata.labels[SERVICE_NAME_LABEL] ?? ''}`;
    const list = slicesByService.get(key) ?? [];
    list.push(slice);
    slicesByService.set(key, list);
  }
  for (const service of store.list('Service')) {
    namespaces.add(service.metadata.namespace);
    const name = `${service.metadata.name}.${service.metadata.namespace}.svc.${zone}`.toLowerCase();
    const slices = slicesByService.get(`${service.metadata.namespace}/${service.metadata.name}`) ?? [];
    if (service.spec.clusterIP !== 'None') {
      if (service.spec.clusterIP !== '') {
        a.set(name, [service.spec.clusterIP]);
        ptr.set(reverseName(service.spec.clusterIP), name);
      }
      addSrv(srv, service, name, [name]);
      continue;
    }
    // Headless: every ready address of every slice (findServices skips not-ready addresses), and a name for each.
    const ready = readyAddresses(slices);
    if (ready.length === 0) continue;
    a.set(name, ready);
    const targets: string[] = [];
    for (const addr of ready) {
      const host = `${dashed(addr)}.${name}`;
      a.set(host, [addr]);
      ptr.set(reverseName(addr), host);
      targets.push(host);
    }
    addSrv(srv, service, name, targets);
  }
  return { a, srv, ptr, namespaces };
}

/** 10.96.40.12 → 12.40.96.10.in-addr.arpa. */
export function reverseName(addr: string): string {
  return `${addr.split('.').reverse().join('.')}.in-addr.arpa`;
}

function readyAddresses(slices: readonly EndpointSlice[]): string[] {
  const addresses: string[] = [];
  for (const slice of slices)
    for (const endpoint of slice.endpoints)
      if (endpoint.conditions.ready)
        for (const addr of endpoint.addresses) if (!addresses.includes(addr)) addresses.push(addr);
  return addresses;
}

/** Named ports get `_name._proto.<service name>` (CoreDNS answers SRV only for named ports). */
function addSrv(
  srv: Map<string, SrvTarget[]>,
  service: Service,
  name: string,
  targets: readonly string[],
): void {
  for (const port of service.spec.ports) {
    if (port.name === '') continue;
    const owner = `_${port.name}._${port.protocol}.${name}`.toLowerCase();
    srv.set(
      owner,
      targets.map((target) => ({ port: port.port, target })),
    );
  }
}

/** `<a-b-c-d>.<ns>.pod.<zone>` as findPods reads it in insecure mode: the address, or undefined when not one. */
export function podAddress(name: string, zone: string, namespaces: ReadonlySet<string>): string | undefined {
  const suffix = `.pod.${zone}`;
  if (!name.endsWith(suffix)) return undefined;
  const labels = name.slice(0, -suffix.length).split('.');
  if (labels.length !== 2 || !namespaces.has(labels[1]!)) return undefined;
  const parts = labels[0]!.split('-');
  if (parts.length !== 4) return undefined;
  for (const part of parts) if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
  return parts.map(Number).join('.');
}
