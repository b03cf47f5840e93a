// kube-proxy's health servers on one node, as pkg/proxy/healthcheck does in v1.31: the proxier health server
// (proxier_health.go: `/healthz` and `/livez` on 10256, 503 once a queued update waited healthTimeout without a
// sync, `nodeEligible` false for a node being deleted or tainted ToBeDeletedByClusterAutoscaler) and one server per
// LoadBalancer Service with externalTrafficPolicy Local on its healthCheckNodePort (service_health.go: hcHandler,
// 200 with the local ready endpoint count, 503 with none or when the proxier is unhealthy). Driven by the Store's
// Services, EndpointSlices and the node's Node. Not modelled: metrics, events, IPv6, per-address listeners.

import type { HttpDynamicReply, HttpServer } from '../../app/http/server.ts';
import { httpServer } from '../../app/http/server.ts';
import { civilFromDays } from '../../core/civil-date.ts';
import type { Namespace } from '../../netns/namespace.ts';
import type { EndpointSlice, Node, Service } from '../objects.ts';
import { SERVICE_NAME_LABEL } from '../objects.ts';
import type { Store } from '../store.ts';

/** The cluster autoscaler's taint (proxier_health.go: ToBeDeletedTaint). */
export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';

export interface KubeProxyHealthOptions {
  /** The node this kube-proxy runs on: its endpoints are the local ones. */
  readonly nodeName: string;
  /** --healthz-bind-address's port (10256). */
  readonly healthzPort?: number;
  /** healthTimeout: kube-proxy passes 2 × syncPeriod (30 s), 60 s. */
  readonly healthTimeoutSeconds?: number;
  /**
   * 'store': every Store change is queued and synced at once (a proxier with no sync delay). 'manual': changes are
   * queued and the caller (the kube-proxy sync loop) calls `synced()` after each successful sync.
   */
  readonly syncs?: 'store' | 'manual';
  /** Wall-clock ms at virtual time 0, for the JSON times and the Date field (default 1700000000000). */
  readonly epochMs?: number;
}

export interface KubeProxyHealth {
  /** ProxierHealthUpdater.QueuedUpdate: a change arrived that the rules do not show yet. */
  queuedUpdate(): void;
  /** Updated, SyncServices and SyncEndpoints after a successful sync: the servers now answer from the Store. */
  synced(): void;
  /** Local ready endpoints by `namespace/name`, as the last sync counted them. */
  localEndpoints(): ReadonlyMap<string, number>;
  /** The healthCheckNodePorts served, by `namespace/name`. */
  servicePorts(): ReadonlyMap<string, number>;
  /** Stops every server and watch. */
  close(): void;
}

/** One health-checked Service: its port, its server and the count its handler reports. */
interface ServiceHealth {
  readonly port: number;
  readonly server: HttpServer;
  /** hcInstance.endpoints, read by the handler at each request. */
  readonly count: { endpoints: number };
}

const JSON_HEADERS = { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' } as const;

/** Starts kube-proxy's health servers in the node's namespace (a hostNetwork pod). Throws when 10256 is taken. */
export function kubeProxyHealth(
  ns: Namespace,
  store: Store,
  options: KubeProxyHealthOptions,
): KubeProxyHealth {
  const healthTimeoutNs = (options.healthTimeoutSeconds ?? 60) * 1e9;
  const epochMs = options.epochMs ?? 1_700_000_000_000;
  /** Go's monotonic clock reads from the process start (`m=+…`). */
  const startNs = ns.sim.now;
  /** lastUpdated, or -1 for Go's zero time (never synced). */
  let lastUpdated = -1;
  /** oldestPendingQueued, or -1 when nothing is pending. */
  let oldestPending = -1;
  let nodeEligible = true;
  const services = new Map<string, ServiceHealth>();

  const goTime = (atNs: number): string =>
    atNs < 0 ? '0001-01-01 00:00:00 +0000 UTC' : formatGoTime(epochMs, atNs, atNs - startNs);
  /** proxierHealthServer.isHealthy. */
  const isHealthy = (): boolean => oldestPending < 0 || ns.sim.now - oldestPending < healthTimeoutNs;

  /** healthzHandler and livezHandler: livez leaves the node's eligibility out. */
  const proxierReply = (withNode: boolean): HttpDynamicReply => {
    const now = ns.sim.now;
    const healthy = isHealthy() && (!withNode || nodeEligible);
    const shown = healthy ? now : lastUpdated;
    const times = `{"lastUpdated": "${goTime(shown)}","currentTime": "${goTime(now)}"`;
    return {
      status: healthy ? 200 : 503,
      body: withNode ? `${times}, "nodeEligible": ${nodeEligible}}` : `${times}}`,
      headers: JSON_HEADERS,
    };
  };
  const healthz = httpServer(ns, {
    port: options.healthzPort ?? 10256,
    routes: {
      '/healthz': { respond: () => proxierReply(true) },
      '/livez': { respond: () => proxierReply(false) },
    },
    epochMs,
  });

  /** hcHandler.ServeHTTP: the body is the dedented, trimmed template (tabs, no final newline). */
  const serviceReply = (namespace: string, name: string, endpoints: number): HttpDynamicReply => {
    const proxyHealthy = isHealthy();
    return {
      status: endpoints !== 0 && proxyHealthy ? 200 : 503,
      body: [
        '{',
        '\t"service": {',
        `\t\t"namespace": "${namespace}",`,
        `\t\t"name": "${name}"`,
        '\t},',
        `\t"localEndpoints": ${endpoints},`,
        `\t"serviceProxyHealthy": ${proxyHealthy}`,
        '}',
      ].join('\n'),
      headers: JSON_HEADERS,
    };
  };

  /** SyncServices then SyncEndpoints, from the Store as it is now. */
  const syncServers = (): void => {
    const wanted = healthCheckNodePorts(store.list('Service'));
    for (const [key, entry] of services)
      if (wanted.get(key) !== entry.port) {
        entry.server.close();
        services.delete(key);
      }
    for (const [key, port] of wanted) {
      if (services.has(key)) continue;
      const [namespace, name] = key.split('/') as [string, string];
      const count = { endpoints: 0 };
      let server: HttpServer;
      try {
        server = httpServer(ns, {
          port,
          routes: {},
          defaultRoute: { respond: () => serviceReply(namespace, name, count.endpoints) },
          epochMs,
        });
      } catch {
        // The port is taken (another listener): kube-proxy logs "failed to start healthcheck" and skips it.
        continue;
      }
      services.set(key, { port, server, count });
    }
    const counts = localReadyEndpoints(store.list('EndpointSlice'), options.nodeName);
    for (const [key, entry] of services) entry.count.endpoints = counts.get(key) ?? 0;
  };

  const health: KubeProxyHealth = {
    queuedUpdate() {
      if (oldestPending < 0) oldestPending = ns.sim.now;
    },
    synced() {
      oldestPending = -1;
      lastUpdated = ns.sim.now;
      syncServers();
    },
    localEndpoints() {
      const counts = new Map<string, number>();
      for (const [key, entry] of services) counts.set(key, entry.count.endpoints);
      return counts;
    },
    servicePorts() {
      const ports = new Map<string, number>();
      for (const [key, entry] of services) ports.set(key, entry.port);
      return ports;
    },
    close() {
      for (const stop of stops) stop();
      healthz.close();
      for (const entry of services.values()) entry.server.close();
      services.clear();
    },
  };

  const onChange = (): void => {
    health.queuedUpdate();
    if ((options.syncs ?? 'store') === 'store') health.synced();
  };
  /** NodeEligibleHandler → SyncNode: a node being deleted or tainted for deletion is not eligible. */
  const syncNode = (node: Node | undefined): void => {
    nodeEligible =
      node !== undefined &&
      node.metadata.deletionTimestamp === undefined &&
      !node.spec.taints.some((taint) => taint.key === TO_BE_DELETED_TAINT);
  };
  const stops = [
    store.watch('Service', onChange),
    store.watch('EndpointSlice', onChange),
    store.watch('Node', (event) => {
      if (event.object.metadata.name !== options.nodeName) return;
      syncNode(event.type === 'DELETED' ? undefined : event.object);
    }),
  ];
  const node = store.get('Node', '', options.nodeName);
  if (node !== undefined) syncNode(node);
  if ((options.syncs ?? 'store') === 'store') health.synced();
  return health;
}

/** ServicePortMap.HealthCheckNodePorts: LoadBalancer Services with Local traffic and a healthCheckNodePort. */
function healthCheckNodePorts(services: readonly Service[]): Map<string, number> {
  const ports = new Map<string, number>();
  for (const service of services)
    if (
      service.spec.type === 'LoadBalancer' &&
      service.spec.externalTrafficPolicy === 'Local' &&
      service.spec.healthCheckNodePort !== 0
    )
      ports.set(`${service.metadata.namespace}/${service.metadata.name}`, service.spec.healthCheckNodePort);
  return ports;
}

/**
 * EndpointsMap.LocalReadyEndpoints: per Service, the distinct `ip:port` of ready endpoints on this node (an
 * endpoint behind two ports counts twice, as kube-proxy counts it).
 */
export function localReadyEndpoints(slices: readonly EndpointSlice[], nodeName: string): Map<string, number> {
  const sets = new Map<string, Set<string>>();
  for (const slice of slices) {
    const key = `${slice.metadata.namespace}/${slice.metadata.labels[SERVICE_NAME_LABEL] ?? ''}`;
    for (const endpoint of slice.endpoints) {
      if (!endpoint.conditions.ready || endpoint.nodeName !== nodeName) continue;
      let set = sets.get(key);
      if (set === undefined) {
        set = new Set();
        sets.set(key, set);
      }
      for (const addr of endpoint.addresses) for (const port of slice.ports) set.add(`${addr}:${port.port}`);
    }
  }
  const counts = new Map<string, number>();
  for (const [key, set] of sets) counts.set(key, set.size);
  return counts;
}

/**
 * Go's time.Time.String for a UTC time with a monotonic reading: `2023-11-14 22:13:20.5 +0000 UTC m=+0.500000000`
 * (fraction without trailing zeros, none when whole; the monotonic seconds with 9 digits).
 */
export function formatGoTime(epochMs: number, atNs: number, monotonicNs: number): string {
  const nsInSecond = (epochMs % 1000) * 1e6 + (atNs % 1e9);
  const seconds = Math.floor(epochMs / 1000) + Math.floor(atNs / 1e9) + Math.floor(nsInSecond / 1e9);
  const nanos = nsInSecond % 1e9;
  const days = Math.floor(seconds / 86400);
  const date = civilFromDays(days);
  const inDay = seconds - days * 86400;
  const two = (n: number): string => String(n).padStart(2, '0');
  const clock = `${two(Math.floor(inDay / 3600))}:${two(Math.floor((inDay % 3600) / 60))}:${two(inDay % 60)}`;
  const fraction = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  const mono = `${Math.floor(monotonicNs / 1e9)}.${String(monotonicNs % 1e9).padStart(9, '0')}`;
  return `${date.year}-${two(date.month)}-${two(date.day)} ${clock}${fraction} +0000 UTC m=+${mono}`;
}
