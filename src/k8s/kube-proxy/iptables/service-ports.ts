// What kube-proxy makes of a node's view before it writes a rule: one record per Service port (pkg/proxy/serviceport.go
// newBaseServiceInfo), its endpoints from the EndpointSlices (pkg/proxy/endpointslicecache.go), and the endpoints each
// traffic policy uses (pkg/proxy/topology.go CategorizeEndpoints). IPv4 only; topology hints and
// service.kubernetes.io/service-proxy-name are not modelled (no such fields in our objects).

import { type Endpoint, type EndpointSlice, SERVICE_NAME_LABEL, type Service } from '../../objects.ts';
import { servicePortName } from '../names.ts';

/** One port of one Service, as the proxier sees it. */
export interface ServicePortInfo {
  /** `namespace/name:port` (ServicePortName.String()). */
  readonly name: string;
  readonly namespace: string;
  readonly serviceName: string;
  readonly portName: string;
  /** Lower case, as it goes into rules and chain names (`tcp`). */
  readonly protocol: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly nodePort: number;
  readonly externalIPs: readonly string[];
  readonly loadBalancerVIPs: readonly string[];
  /** CIDRs with their surrounding spaces trimmed, as newBaseServiceInfo does. */
  readonly loadBalancerSourceRanges: readonly string[];
  readonly clientIPAffinity: boolean;
  readonly stickyMaxAgeSeconds: number;
  /** Only for LoadBalancer + externalTrafficPolicy Local (apiservice.NeedsHealthCheck); 0 otherwise. */
  readonly healthCheckNodePort: number;
  readonly externallyAccessible: boolean;
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
}

/** One endpoint of a service port (BaseEndpointInfo). */
export interface EndpointInfo {
  readonly ip: string;
  readonly port: number;
  /** `ip:port` (BaseEndpointInfo.String()). */
  readonly text: string;
  readonly isLocal: boolean;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
}

/** mirrors serviceport.go:newBaseServiceInfo, per port; Services without a ClusterIP (headless) give none. */
export function servicePorts(service: Service): ServicePortInfo[] {
  const { spec, metadata } = service;
  if (spec.clusterIP === '' || spec.clusterIP === 'None') return [];
  const loadBalancerVIPs = service.status.loadBalancerIngress.filter((ip) => ip !== '');
  const loadBalancerSourceRanges = spec.loadBalancerSourceRanges
    .map((cidr) => cidr.trim())
    .filter((c) => c !== '');
  return spec.ports.map((port) => {
    const externallyAccessible =
      port.nodePort !== 0 || loadBalancerVIPs.length > 0 || spec.externalIPs.length > 0;
    const externalPolicyLocal = externallyAccessible && spec.externalTrafficPolicy === 'Local';
    const needsHealthCheck = spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
    return {
      name: servicePortName(metadata.namespace, metadata.name, port.name),
      namespace: metadata.namespace,
      serviceName: metadata.name,
      portName: port.name,
      protocol: port.protocol.toLowerCase(),
      clusterIP: spec.clusterIP,
      port: port.port,
      nodePort: port.nodePort,
      externalIPs: spec.externalIPs,
      loadBalancerVIPs,
      loadBalancerSourceRanges,
      clientIPAffinity: spec.sessionAffinity === 'ClientIP',
      stickyMaxAgeSeconds: spec.sessionAffinityTimeoutSeconds,
      healthCheckNodePort: needsHealthCheck ? spec.healthCheckNodePort : 0,
      externallyAccessible,
      externalPolicyLocal,
      internalPolicyLocal: spec.internalTrafficPolicy === 'Local',
    };
  });
}

function endpointInfo(endpoint: Endpoint, port: number, nodeName: string): EndpointInfo {
  const ip = endpoint.addresses[0]!;
  return {
    ip,
    port,
    text: `${ip}:${port}`,
    isLocal: endpoint.nodeName !== '' && endpoint.nodeName === nodeName,
    ready: endpoint.conditions.ready,
    serving: endpoint.conditions.serving,
    terminating: endpoint.conditions.terminating,
  };
}

/**
 * The endpoints of one service port over all of its Service's slices: the slice port with the same name and protocol,
 * the first address of each endpoint, one per `ip:port` (a local copy wins, endpointslicecache.go:addEndpoints), sorted
 * by `ip:port` text as endpointsMapFromEndpointInfo does.
 */
export function endpointsOf(
  info: ServicePortInfo,
  slices: readonly EndpointSlice[],
  nodeName: string,
): EndpointInfo[] {
  const byText = new Map<string, EndpointInfo>();
  for (const slice of slices) {
    if (slice.metadata.namespace !== info.namespace) continue;
    if (slice.metadata.labels[SERVICE_NAME_LABEL] !== info.serviceName) continue;
    if (slice.addressType !== 'IPv4') continue;
    for (const port of slice.ports) {
      if (port.name !== info.portName || port.protocol.toLowerCase() !== info.protocol) continue;
      if (port.port <= 0) continue;
      for (const endpoint of slice.endpoints) {
        if (endpoint.addresses.length === 0) continue;
        const ep = endpointInfo(endpoint, port.port, nodeName);
        if (!byText.has(ep.text) || ep.isLocal) byText.set(ep.text, ep);
      }
    }
  }
  return [...byText.values()].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
}

/** serviceport.go: UsesClusterEndpoints. */
export function usesClusterEndpoints(info: ServicePortInfo): boolean {
  return !info.internalPolicyLocal || (info.externallyAccessible && !info.externalPolicyLocal);
}

/** serviceport.go: UsesLocalEndpoints. */
export function usesLocalEndpoints(info: ServicePortInfo): boolean {
  return info.internalPolicyLocal || (info.externallyAccessible && info.externalPolicyLocal);
}

export interface CategorizedEndpoints {
  readonly clusterEndpoints: readonly EndpointInfo[];
  readonly localEndpoints: readonly EndpointInfo[];
  readonly allReachableEndpoints: readonly EndpointInfo[];
  readonly hasAnyEndpoints: boolean;
}

/**
 * mirrors topology.go:CategorizeEndpoints (without topology hints): ready endpoints, or serving-and-terminating ones
 * when none is ready, for each policy; the union (cluster first) is what gets a KUBE-SEP- chain.
 */
export function categorizeEndpoints(
  endpoints: readonly EndpointInfo[],
  info: ServicePortInfo,
): CategorizedEndpoints {
  let clusterEndpoints: EndpointInfo[] = [];
  let hasAnyEndpoints = false;
  if (usesClusterEndpoints(info)) {
    clusterEndpoints = endpoints.filter((ep) => ep.ready);
    if (clusterEndpoints.length === 0)
      clusterEndpoints = endpoints.filter((ep) => ep.serving && ep.terminating);
    if (clusterEndpoints.length > 0) hasAnyEndpoints = true;
  }
  if (!usesLocalEndpoints(info)) {
    return { clusterEndpoints, localEndpoints: [], allReachableEndpoints: clusterEndpoints, hasAnyEndpoints };
  }
  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalServingTerminating = true;
    }
  }
  let localEndpoints: EndpointInfo[] = [];
  if (hasLocalReady) localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.ready);
  else if (hasLocalServingTerminating)
    localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating);
  if (!usesClusterEndpoints(info)) {
    return { clusterEndpoints, localEndpoints, allReachableEndpoints: localEndpoints, hasAnyEndpoints };
  }
  const union = [...clusterEndpoints];
  for (const ep of localEndpoints) if (!union.some((other) => other.text === ep.text)) union.push(ep);
  return { clusterEndpoints, localEndpoints, allReachableEndpoints: union, hasAnyEndpoints };
}
