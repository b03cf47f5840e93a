// The external load balancer's controller (what cloud-provider-kind or MetalLB plus a cloud L4 LB are to a kind
// cluster): for every LoadBalancer Service it takes an address from its pool, writes it to status.loadBalancer.ingress
// through the Store, holds it in the LB's namespace, health-checks the nodes (the Service's healthCheckNodePort for
// externalTrafficPolicy Local, kube-proxy's 10256/healthz for Cluster, as KEP-3458 has cloud providers do) and spreads
// new connections over the NodePorts of the nodes in rotation with equal weight — by nft DNAT rules it rewrites on
// every change (`passthrough`, client address kept), by a TCP proxy (`proxy`, optional PROXY v2) or by an HTTP proxy
// that appends X-Forwarded-For (`http`, HAProxy's `option forwardfor`). Nodes labelled
// node.kubernetes.io/exclude-from-external-load-balancers (kind's control plane) are left out. No IPv6, no
// loadBalancerSourceRanges, no UDP in proxy mode, no spec.loadBalancerIP requests.

import ipaddr from 'ipaddr.js';
import type { Namespace } from '../../netns/namespace.ts';
import { exec } from '../../tools/exec.ts';
import type { Node, Service } from '../objects.ts';
import type { Store } from '../store.ts';
import { HealthChecker, type HealthCheckOptions } from './health-checker.ts';
import { PASSTHROUGH_TABLE, type PassthroughFrontend, renderPassthrough } from './passthrough-rules.ts';
import { TcpProxy } from './tcp-proxy.ts';

export type LoadBalancerMode = 'passthrough' | 'proxy' | 'http';

export interface LoadBalancerOptions {
  readonly mode: LoadBalancerMode;
  /** The LB namespace's device the load-balancer addresses are added to (/32), where clients reach it. */
  readonly device: string;
  /** The address pool, `first-last` (default kind's cloud-provider-kind-like `172.18.255.200-172.18.255.250`). */
  readonly pool?: string;
  /** `proxy` mode: a PROXY protocol v2 header on every connection toward the nodes. */
  readonly proxyProtocol?: boolean;
  readonly healthCheck?: LoadBalancerHealthCheck;
}

export interface LoadBalancerHealthCheck extends HealthCheckOptions {
  /**
   * A fixed port to check on every node, whatever the Service (e.g. 10256, kube-proxy's /healthz: "is the node up"),
   * instead of a Local Service's healthCheckNodePort: the misconfiguration behind Local's lost requests.
   */
  readonly port?: number;
}

/** kube-proxy's healthz port: the target for Services with externalTrafficPolicy Cluster. */
const KUBE_PROXY_HEALTHZ_PORT = 10256;
/** The label kind puts on its control-plane node. */
export const EXCLUDE_FROM_LB_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';

/** One Service's frontends as the data plane sees them. */
export interface LoadBalancerView {
  readonly namespace: string;
  readonly name: string;
  readonly ingress: string;
  /** Node names in rotation, in the Store's node order. */
  readonly inRotation: readonly string[];
}

export interface LoadBalancerController {
  readonly mode: LoadBalancerMode;
  readonly health: HealthChecker;
  /** What each LoadBalancer Service has, in the Store's order. */
  views(): readonly LoadBalancerView[];
  /** The port every node is probed on, whatever the Service; undefined: the Service's own (see `healthCheck.port`). */
  readonly healthCheckPort: number | undefined;
  /**
   * Changes the health check's port (a load balancer reconfigured by hand): a number probes that port on every
   * node for every Service; undefined goes back to each Service's healthCheckNodePort or 10256. New targets start
   * out of rotation until their first probe passes.
   */
  setHealthCheckPort(port: number | undefined): void;
  /** The last ruleset loaded (`passthrough`), '' before the first. */
  ruleset(): string;
  /** The proxy serving `address:port` (`proxy` mode). */
  proxy(address: string, port: number): TcpProxy | undefined;
  close(): void;
}

/** Starts the controller; the LB namespace must already be wired (its device up, routes to the nodes). */
export function loadBalancerController(
  ns: Namespace,
  store: Store,
  options: LoadBalancerOptions,
): LoadBalancerController {
  const pool = parsePool(options.pool ?? '172.18.255.200-172.18.255.250');
  /** Ingress by `namespace/name`, and the addresses held on the device. */
  const assigned = new Map<string, string>();
  const held = new Set<string>();
  const proxies = new Map<string, TcpProxy>();
  let lastRuleset = '';
  let views: LoadBalancerView[] = [];
  let reconciling = false;
  let again = false;
  const health = new HealthChecker(ns, options.healthCheck ?? {}, () => reconcile());
  if (options.mode === 'passthrough') run(ns, 'sysctl -qw net.ipv4.ip_forward=1');

  const lbServices = (): Service[] =>
    store.list('Service').filter((service) => service.spec.type === 'LoadBalancer');
  const eligibleNodes = (): { node: Node; addr: string }[] => {
    const nodes: { node: Node; addr: string }[] = [];
    for (const node of store.list('Node')) {
      if (node.metadata.labels[EXCLUDE_FROM_LB_LABEL] !== undefined) continue;
      const internal = node.status.addresses.find((address) => address.type === 'InternalIP');
      if (internal !== undefined) nodes.push({ node, addr: internal.address });
    }
    return nodes;
  };
  let fixedHealthPort = options.healthCheck?.port;
  const healthPort = (service: Service): number => {
    if (fixedHealthPort !== undefined) return fixedHealthPort;
    return service.spec.externalTrafficPolicy === 'Local' && service.spec.healthCheckNodePort !== 0
      ? service.spec.healthCheckNodePort
      : KUBE_PROXY_HEALTHZ_PORT;
  };

  /** Pool addresses in order: the first one no Service holds. */
  const allocate = (): string | undefined => {
    const used = new Set(assigned.values());
    for (let addr = pool.first; addr <= pool.last; addr++) {
      const text = formatAddr(addr);
      if (!used.has(text)) return text;
    }
    return undefined;
  };

  function reconcile(): void {
    if (reconciling) {
      again = true;
      return;
    }
    reconciling = true;
    try {
      do {
        again = false;
        reconcileOnce();
      } while (again);
    } finally {
      reconciling = false;
    }
  }

  function reconcileOnce(): void {
    const services = lbServices();
    const keys = new Set(services.map((service) => keyOf(service)));
    for (const key of [...assigned.keys()]) if (!keys.has(key)) assigned.delete(key);
    for (const service of services) {
      const key = keyOf(service);
      if (!assigned.has(key)) {
        const kept = service.status.loadBalancerIngress[0];
        const addr = kept !== undefined && inPool(pool, kept) ? kept : allocate();
        if (addr === undefined) continue; // the pool is exhausted: the Service stays <pending>
        assigned.set(key, addr);
      }
    }
    // Addresses on the device follow the assignments.
    const wanted = new Set(assigned.values());
    for (const addr of [...held])
      if (!wanted.has(addr)) {
        run(ns, `ip addr del ${addr}/32 dev ${options.device}`);
        held.delete(addr);
      }
    for (const addr of wanted)
      if (!held.has(addr)) {
        run(ns, `ip addr add ${addr}/32 dev ${options.device}`);
        held.add(addr);
      }
    // Health-check targets: every eligible node on every port some Service needs.
    const nodes = eligibleNodes();
    const targets = new Map<string, { addr: string; port: number }>();
    for (const service of services)
      for (const { addr } of nodes)
        targets.set(`${addr}:${healthPort(service)}`, { addr, port: healthPort(service) });
    health.setTargets([...targets.values()]);
    // The data plane.
    const frontends: PassthroughFrontend[] = [];
    const nextViews: LoadBalancerView[] = [];
    const liveProxies = new Set<string>();
    for (const service of services) {
      const ingress = assigned.get(keyOf(service));
      if (ingress === undefined) continue;
      const rotation = nodes.filter(({ addr }) => health.isHealthy(addr, healthPort(service)));
      nextViews.push({
        namespace: service.metadata.namespace,
        name: service.metadata.name,
        ingress,
        inRotation: rotation.map(({ node }) => node.metadata.name),
      });
      for (const port of service.spec.ports) {
        if (port.nodePort === 0) continue;
        if (options.mode === 'passthrough') {
          frontends.push({
            id: `${service.metadata.namespace}-${service.metadata.name}-${port.port}`,
            addr: ingress,
            port: port.port,
            protocol: port.protocol,
            backends: rotation.map(({ node, addr }) => ({
              node: node.metadata.name,
              addr,
              nodePort: port.nodePort,
            })),
          });
          continue;
        }
        if (port.protocol !== 'TCP') continue;
        const proxyKey = `${ingress}:${port.port}`;
        liveProxies.add(proxyKey);
        let proxy = proxies.get(proxyKey);
        if (proxy === undefined) {
          proxy = new TcpProxy(ns, {
            addr: ingress,
            port: port.port,
            proxyProtocol: options.mode === 'proxy' && (options.proxyProtocol ?? false),
            forwardedFor: options.mode === 'http',
          });
          proxies.set(proxyKey, proxy);
        }
        proxy.setBackends(rotation.map(({ addr }) => ({ addr, port: port.nodePort })));
      }
    }
    for (const [key, proxy] of proxies)
      if (!liveProxies.has(key)) {
        proxy.close();
        proxies.delete(key);
      }
    views = nextViews;
    if (options.mode === 'passthrough') {
      const text = renderPassthrough(frontends);
      if (text !== lastRuleset) {
        const path = `/run/packetlab-lb/${ns.name}.nft`;
        ns.sim.files.set(path, new TextEncoder().encode(text));
        run(ns, `nft -f ${path}`);
        lastRuleset = text;
      }
    }
    // status.loadBalancer.ingress through the Store (a MODIFIED event brings us back here, with nothing to change).
    for (const service of services) {
      const ingress = assigned.get(keyOf(service));
      const want = ingress === undefined ? [] : [ingress];
      const have = service.status.loadBalancerIngress;
      if (have.length === want.length && have.every((addr, i) => addr === want[i])) continue;
      store.update({ ...service, status: { ...service.status, loadBalancerIngress: want } });
    }
  }

  // Watch events are delivered synchronously and our own status update is a Store write: react on the scheduler
  // (coalesced, at the same virtual instant), so every watcher sees the event that woke us before our MODIFIED.
  let queued = -1;
  const later = (): void => {
    if (queued !== -1) return;
    queued = ns.sim.scheduler.schedule(0, () => {
      queued = -1;
      reconcile();
    });
  };
  const stops = [store.watch('Service', later), store.watch('Node', later)];
  reconcile();
  return {
    mode: options.mode,
    health,
    views: () => views,
    get healthCheckPort() {
      return fixedHealthPort;
    },
    setHealthCheckPort(port) {
      fixedHealthPort = port;
      reconcile();
    },
    ruleset: () => lastRuleset,
    proxy: (address, port) => proxies.get(`${address}:${port}`),
    /** Stops, and leaves the namespace as it found it: no address held, no table (another controller may follow). */
    close() {
      for (const stop of stops) stop();
      if (queued !== -1) ns.sim.scheduler.cancel(queued);
      health.stop();
      for (const proxy of proxies.values()) proxy.close();
      proxies.clear();
      for (const addr of held) run(ns, `ip addr del ${addr}/32 dev ${options.device}`);
      held.clear();
      if (lastRuleset !== '') run(ns, `nft delete table ip ${PASSTHROUGH_TABLE}`);
      lastRuleset = '';
    },
  };
}

function keyOf(service: Service): string {
  return `${service.metadata.namespace}/${service.metadata.name}`;
}

/** A command the controller's own input makes valid: a failure is a programmer error. */
function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`loadBalancerController: ${line}: ${result.stderr}`);
}

interface Pool {
  readonly first: number;
  readonly last: number;
}

/** `first-last`, parsed with ipaddr.js at the edge; a bad pool is a programmer error. */
function parsePool(text: string): Pool {
  const [first, last] = text.split('-');
  if (
    first === undefined ||
    last === undefined ||
    !ipaddr.IPv4.isValidFourPartDecimal(first) ||
    !ipaddr.IPv4.isValidFourPartDecimal(last)
  )
    throw new Error(`loadBalancerController: not an address range: ${text}`);
  const pool = { first: toInt(first), last: toInt(last) };
  if (pool.first > pool.last) throw new Error(`loadBalancerController: empty range: ${text}`);
  return pool;
}

function inPool(pool: Pool, text: string): boolean {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return false;
  const addr = toInt(text);
  return addr >= pool.first && addr <= pool.last;
}

function toInt(text: string): number {
  const bytes = ipaddr.IPv4.parse(text).toByteArray();
  return ((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!;
}

function formatAddr(addr: number): string {
  return `${addr >>> 24}.${(addr >>> 16) & 0xff}.${(addr >>> 8) & 0xff}.${addr & 0xff}`;
}
