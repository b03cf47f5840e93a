// kube-proxy's conntrack cleanup after a successful sync, as v1.31 does it (pkg/proxy/conntrack/cleanup.go,
// CleanStaleEntries, with the changes of pkg/proxy/endpointschangetracker.go:detectStaleConntrackEntries): from the
// previous and the current view, the `conntrack -D` commands that delete UDP entries DNATed to a serving endpoint that
// is gone, and UDP entries toward a Service IP or NodePort that went from no serving endpoint to some (or a UDP
// ClusterIP that was deleted). Not supported: IPv6, SCTP (kube-proxy cleans only UDP here), the v1.32 reconciler that
// lists the table (the fix for kubernetes#125467): the change-based v1.31 logic is what shows that bug.

import type { EndpointSlice, Service, ServicePort } from '../objects.ts';
import { SERVICE_NAME_LABEL } from '../objects.ts';
import type { Command } from '../plan.ts';
import type { ProxierView } from './proxier.ts';

/** One UDP service port as kube-proxy's svcPortMap holds it, with its endpoints (`IP:port`) and which serve. */
interface UdpServicePort {
  readonly key: string;
  readonly clusterIP: string;
  readonly nodePort: number;
  /** ExternalIPs and load-balancer ingress IPs (ClearEntriesForNAT runs for each). */
  readonly otherIps: readonly string[];
  /** `IP:port` of every endpoint, with whether it serves. */
  readonly endpoints: ReadonlyMap<string, boolean>;
}

function hasClusterIP(service: Service): boolean {
  return service.spec.clusterIP !== '' && service.spec.clusterIP !== 'None';
}

function endpointsOf(
  service: Service,
  port: ServicePort,
  slices: readonly EndpointSlice[],
): Map<string, boolean> {
  const endpoints = new Map<string, boolean>();
  for (const slice of slices) {
    if (slice.metadata.namespace !== service.metadata.namespace) continue;
    if (slice.metadata.labels[SERVICE_NAME_LABEL] !== service.metadata.name) continue;
    const slicePort = slice.ports.find((p) => p.name === port.name && p.protocol === port.protocol);
    if (slicePort === undefined) continue;
    for (const endpoint of slice.endpoints) {
      const address = endpoint.addresses[0];
      if (address === undefined) continue;
      const key = `${address}:${slicePort.port}`;
      endpoints.set(key, (endpoints.get(key) ?? false) || endpoint.conditions.serving);
    }
  }
  return endpoints;
}

/** The UDP part of svcPortMap + endpointsMap (ServicePortName `namespace/name:port`). */
function udpServicePorts(view: ProxierView): Map<string, UdpServicePort> {
  const ports = new Map<string, UdpServicePort>();
  for (const service of view.services) {
    if (!hasClusterIP(service)) continue;
    for (const port of service.spec.ports) {
      if (port.protocol !== 'UDP') continue;
      const key = `${service.metadata.namespace}/${service.metadata.name}:${port.name}`;
      ports.set(key, {
        key,
        clusterIP: service.spec.clusterIP,
        nodePort: port.nodePort,
        otherIps: [...service.spec.externalIPs, ...service.status.loadBalancerIngress],
        endpoints: endpointsOf(service, port, view.endpointSlices),
      });
    }
  }
  return ports;
}

function servingCount(port: UdpServicePort | undefined): number {
  let count = 0;
  for (const serving of port?.endpoints.values() ?? []) if (serving) count++;
  return count;
}

function ipOf(endpoint: string): string {
  return endpoint.slice(0, endpoint.lastIndexOf(':'));
}

/**
 * The commands kube-proxy's conntrack calls run after a sync from `previous` (undefined before the first) to
 * `current`, in the order CleanStaleEntries issues them: newly active Service IPs (`ClearEntriesForIP`), their NodePorts
 * (`ClearEntriesForPort`), then per deleted endpoint `ClearEntriesForPortNAT` and `ClearEntriesForNAT`. Each is the
 * `conntrack -D` line of v1.30's exec-based client (pkg/proxy/conntrack/conntrack.go), which v1.31 sends over netlink.
 */
export function staleConntrackCommands(
  ns: string,
  previous: ProxierView | undefined,
  current: ProxierView,
): Command[] {
  const before = previous === undefined ? new Map<string, UdpServicePort>() : udpServicePorts(previous);
  const after = udpServicePorts(current);
  const commands: Command[] = [];
  const udp = ['-p', 'udp'];
  // deleteStaleServiceConntrackEntries: DeletedUDPClusterIPs, then the newly active services' IPs and NodePorts.
  const serviceIps = new Set<string>();
  const nodePorts = new Set<number>();
  const stillThere = new Set([...after.values()].map((port) => port.clusterIP));
  for (const port of before.values()) if (!stillThere.has(port.clusterIP)) serviceIps.add(port.clusterIP);
  for (const port of after.values()) {
    if (servingCount(port) === 0 || servingCount(before.get(port.key)) > 0) continue;
    serviceIps.add(port.clusterIP);
    for (const ip of port.otherIps) serviceIps.add(ip);
    if (port.nodePort !== 0) nodePorts.add(port.nodePort);
  }
  for (const ip of serviceIps) commands.push({ ns, argv: ['conntrack', '-D', '--orig-dst', ip, ...udp] });
  for (const nodePort of nodePorts)
    commands.push({ ns, argv: ['conntrack', '-D', ...udp, '--dport', String(nodePort)] });
  // deleteStaleEndpointConntrackEntries: an endpoint that served before and is not in the new list (by IP:port), or
  // is there but no longer serves: detectStaleConntrackEntries compares with Endpoint.Equal, which includes readiness
  // ("including if it went from serving to not serving"), so a pod turning Terminating is cleaned at once.
  for (const port of before.values()) {
    const now = after.get(port.key);
    if (now === undefined) continue;
    for (const [endpoint, serving] of port.endpoints) {
      if (!serving || now.endpoints.get(endpoint) === true) continue;
      const ip = ipOf(endpoint);
      if (now.nodePort !== 0)
        commands.push({
          ns,
          argv: ['conntrack', '-D', ...udp, '--dport', String(now.nodePort), '--dst-nat', ip],
        });
      for (const serviceIp of [now.clusterIP, ...now.otherIps])
        commands.push({ ns, argv: ['conntrack', '-D', '--orig-dst', serviceIp, '--dst-nat', ip, ...udp] });
    }
  }
  return commands;
}

/** What `conntrack -D` prints when no entry matched (exit 1): kube-proxy's exec client treats it as success. */
export function nothingToDelete(stderr: string): boolean {
  return stderr.includes('0 flow entries have been deleted');
}
