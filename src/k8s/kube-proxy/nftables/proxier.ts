// kube-proxy's nftables mode (Kubernetes v1.31, pkg/proxy/nftables/proxier.go): from a node's view of Services and
// EndpointSlices, the knftables transaction syncProxyRules runs on table `ip kube-proxy` — setupNFTables on a full
// sync, then per-ServicePort chains, verdict-map elements and affinity sets — loaded with one `nft -f` per sync.
// IPv4 only; no topology-aware hints (every ready endpoint is used), no ServiceCIDR objects (serviceCidrs is a
// constructor option), no conntrack cleanup (the controller runs it), no metrics or health-check servers.

import ipaddr from 'ipaddr.js';
import type { Endpoint, EndpointSlice, Service, ServicePort } from '../../objects.ts';
import { SERVICE_NAME_LABEL } from '../../objects.ts';
import type { Command } from '../../plan.ts';
import type { Proxier, ProxierView } from '../proxier.ts';
import {
  CHAIN_PREFIX,
  type ServicePortName,
  servicePortChainNameBase,
  servicePortEndpointChainNameBase,
} from './names.ts';
import {
  type BaseChainSpec,
  type ElementObject,
  type Operation,
  type SetObject,
  TableModel,
  transactionText,
} from './transaction.ts';

/** How kube-proxy was started on the node (flags and feature-gated inputs the view does not carry). */
export interface NftablesProxierOptions {
  /** --nodeport-addresses as CIDRs; empty (the default) accepts NodePorts on every local address. */
  readonly nodePortAddresses?: readonly string[];
  /** ServiceCIDRs (MultiCIDRServiceAllocator): traffic to an unallocated ClusterIP in them is dropped. Default none. */
  readonly serviceCidrs?: readonly string[];
  /** --masquerade-all. */
  readonly masqueradeAll?: boolean;
  /** The mark as text; default `%#08x` of 1 << view.masqueradeBit (`0x004000`), as NewProxier formats it. */
  readonly masqueradeMark?: string;
  /** The node IP checked against loadBalancerSourceRanges; default view.nodeIps[0]. */
  readonly nodeIp?: string;
  /** The file name the `nft -f` word carries (default `kube-proxy.nft`). */
  readonly fileName?: string;
  /**
   * A `counter` in every rule before its statement, which kube-proxy does not write: for differential cases that
   * read every rule's hits with `nft list ruleset`.
   */
  readonly counters?: boolean;
}

// ---- the fixed part (setupNFTables) -----------------------------------------------------------------------------

/** mirrors proxier.go:nftablesBaseChains, priorities as knftables writes them (dstnat -100, srcnat 100). */
const BASE_CHAINS: readonly { readonly name: string; readonly spec: BaseChainSpec }[] = [
  { name: 'filter-prerouting', spec: { type: 'filter', hook: 'prerouting', priority: -110 } },
  { name: 'filter-input', spec: { type: 'filter', hook: 'input', priority: -110 } },
  { name: 'filter-forward', spec: { type: 'filter', hook: 'forward', priority: -110 } },
  { name: 'filter-output', spec: { type: 'filter', hook: 'output', priority: -110 } },
  { name: 'filter-output-post-dnat', spec: { type: 'filter', hook: 'output', priority: -90 } },
  { name: 'nat-prerouting', spec: { type: 'nat', hook: 'prerouting', priority: -100 } },
  { name: 'nat-output', spec: { type: 'nat', hook: 'output', priority: -100 } },
  { name: 'nat-postrouting', spec: { type: 'nat', hook: 'postrouting', priority: 100 } },
];

/** mirrors proxier.go:nftablesJumpChains — [destination, source, extra match]. */
const JUMP_CHAINS: readonly (readonly [string, string, string])[] = [
  ['nodeport-endpoints-check', 'filter-input', 'ct state new'],
  ['service-endpoints-check', 'filter-input', 'ct state new'],
  ['service-endpoints-check', 'filter-forward', 'ct state new'],
  ['service-endpoints-check', 'filter-output', 'ct state new'],
  ['firewall-check', 'filter-prerouting', 'ct state new'],
  ['firewall-check', 'filter-output', 'ct state new'],
  ['services', 'nat-output', ''],
  ['services', 'nat-prerouting', ''],
  ['masquerading', 'nat-postrouting', ''],
  ['cluster-ips-check', 'filter-forward', 'ct state new'],
  ['cluster-ips-check', 'filter-output-post-dnat', 'ct state new'],
];

const PORT_MAP_TYPE = 'ipv4_addr . inet_proto . inet_service : verdict';
const NODEPORT_MAP_TYPE = 'inet_proto . inet_service : verdict';

/** The six containers kube-proxy refills (each an nftElementStorage). */
const CONTAINERS: readonly SetObject[] = [
  { kind: 'set', name: 'cluster-ips', type: 'ipv4_addr', comment: 'Active ClusterIPs' },
  {
    kind: 'map',
    name: 'service-ips',
    type: PORT_MAP_TYPE,
    comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic',
  },
  {
    kind: 'map',
    name: 'firewall-ips',
    type: PORT_MAP_TYPE,
    comment: 'destinations that are subject to LoadBalancerSourceRanges',
  },
  {
    kind: 'map',
    name: 'no-endpoint-services',
    type: PORT_MAP_TYPE,
    comment: 'vmap to drop or reject packets to services with no endpoints',
  },
  {
    kind: 'map',
    name: 'no-endpoint-nodeports',
    type: NODEPORT_MAP_TYPE,
    comment: 'vmap to drop or reject packets to service nodeports with no endpoints',
  },
  { kind: 'map', name: 'service-nodeports', type: NODEPORT_MAP_TYPE, comment: 'NodePort traffic' },
];

const CONTAINER = Object.fromEntries(CONTAINERS.map((set) => [set.name, set])) as Record<string, SetObject>;

// ---- one ServicePort and its endpoints -------------------------------------------------------------------------

/** One endpoint of a ServicePort, as pkg/proxy's BaseEndpointInfo sees it. */
interface EndpointInfo {
  readonly ip: string;
  readonly port: number;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
  readonly local: boolean;
  readonly chainName: string;
  readonly affinitySetName: string;
}

/** One ServicePort as pkg/proxy's BaseServicePortInfo and newServiceInfo see it. */
interface ServicePortInfo {
  /** `ns/name:port` (ServicePortName.String()), or `ns/name` for an unnamed port. */
  readonly nameString: string;
  readonly protocol: string;
  readonly clusterIp: string;
  readonly port: number;
  readonly nodePort: number;
  readonly externalIps: readonly string[];
  readonly loadBalancerVips: readonly string[];
  readonly sourceRanges: readonly string[];
  readonly affinityTimeout: number | undefined;
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
  readonly clusterPolicyChain: string;
  readonly localPolicyChain: string;
  readonly externalChain: string;
  readonly firewallChain: string;
  readonly endpoints: readonly EndpointInfo[];
}

function externallyAccessible(svc: ServicePortInfo): boolean {
  return svc.nodePort !== 0 || svc.loadBalancerVips.length > 0 || svc.externalIps.length > 0;
}

/**
 * mirrors pkg/proxy/serviceport.go:UsesClusterEndpoints — an externally accessible port needs its Cluster
 * endpoints even with externalTrafficPolicy Local, for the short-circuits of pod and host traffic.
 */
function usesClusterEndpoints(svc: ServicePortInfo): boolean {
  return !svc.internalPolicyLocal || externallyAccessible(svc);
}

/** mirrors pkg/proxy/serviceport.go:UsesLocalEndpoints */
function usesLocalEndpoints(svc: ServicePortInfo): boolean {
  return svc.internalPolicyLocal || (externallyAccessible(svc) && svc.externalPolicyLocal);
}

interface Categorized {
  readonly cluster: readonly EndpointInfo[];
  readonly local: readonly EndpointInfo[];
  readonly allReachable: readonly EndpointInfo[];
  readonly hasAny: boolean;
}

/** mirrors pkg/proxy/topology.go:CategorizeEndpoints, without topology hints. */
function categorizeEndpoints(svc: ServicePortInfo): Categorized {
  const endpoints = svc.endpoints;
  let cluster: readonly EndpointInfo[] = [];
  let hasAny = false;
  if (usesClusterEndpoints(svc)) {
    cluster = endpoints.filter((ep) => ep.ready);
    // No ready endpoint anywhere: fall back to serving terminating ones.
    if (cluster.length === 0) cluster = endpoints.filter((ep) => ep.serving && ep.terminating);
    if (cluster.length > 0) hasAny = true;
  }
  if (!usesLocalEndpoints(svc)) return { cluster, local: [], allReachable: cluster, hasAny };
  let localReady = false;
  let localServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAny = true;
      if (ep.local) localReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAny = true;
      if (ep.local) localServingTerminating = true;
    }
  }
  let local: readonly EndpointInfo[] = [];
  if (localReady) local = endpoints.filter((ep) => ep.local && ep.ready);
  else if (localServingTerminating)
    local = endpoints.filter((ep) => ep.local && ep.serving && ep.terminating);
  if (!usesClusterEndpoints(svc)) return { cluster, local, allReachable: local, hasAny };
  const merged = new Map<string, EndpointInfo>();
  for (const ep of [...cluster, ...local]) merged.set(`${ep.ip}:${ep.port}`, ep);
  return { cluster, local, allReachable: sortEndpoints([...merged.values()]), hasAny };
}

/** Endpoints in the order pkg/proxy's endpoint cache keeps them: by `ip:port` as text. */
function sortEndpoints(endpoints: EndpointInfo[]): EndpointInfo[] {
  return endpoints.sort((a, b) => {
    const x = `${a.ip}:${a.port}`;
    const y = `${b.ip}:${b.port}`;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** The ServicePorts kube-proxy tracks (ServiceChangeTracker: headless Services skipped), sorted by name. */
function servicePorts(view: ProxierView): ServicePortInfo[] {
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const slice of view.endpointSlices) {
    const owner = slice.metadata.labels[SERVICE_NAME_LABEL];
    if (owner === undefined) continue;
    const key = `${slice.metadata.namespace}/${owner}`;
    const list = slicesByService.get(key) ?? [];
    list.push(slice);
    slicesByService.set(key, list);
  }
  const out: ServicePortInfo[] = [];
  for (const service of view.services) {
    if (service.spec.clusterIP === '' || service.spec.clusterIP === 'None') continue;
    const slices = slicesByService.get(`${service.metadata.namespace}/${service.metadata.name}`) ?? [];
    for (const port of service.spec.ports) out.push(servicePortInfo(view, service, port, slices));
  }
  return out.sort((a, b) => (a.nameString < b.nameString ? -1 : a.nameString > b.nameString ? 1 : 0));
}

function servicePortInfo(
  view: ProxierView,
  service: Service,
  port: ServicePort,
  slices: readonly EndpointSlice[],
): ServicePortInfo {
  const protocol = port.protocol.toLowerCase();
  const name: ServicePortName = {
    namespace: service.metadata.namespace,
    name: service.metadata.name,
    protocol,
    port: port.name,
  };
  const base = servicePortChainNameBase(name);
  const endpoints = new Map<string, EndpointInfo>();
  for (const slice of slices)
    for (const slicePort of slice.ports) {
      if (slicePort.name !== port.name || slicePort.protocol !== port.protocol) continue;
      for (const endpoint of slice.endpoints) {
        const info = endpointInfo(view, name, endpoint, slicePort.port);
        if (info !== undefined && !endpoints.has(`${info.ip}:${info.port}`))
          endpoints.set(`${info.ip}:${info.port}`, info);
      }
    }
  const lb = service.spec.type === 'LoadBalancer' ? service.status.loadBalancerIngress : [];
  const namespaced = `${service.metadata.namespace}/${service.metadata.name}`;
  return {
    nameString: port.name === '' ? namespaced : `${namespaced}:${port.name}`,
    protocol,
    clusterIp: service.spec.clusterIP,
    port: port.port,
    nodePort: service.spec.type === 'ClusterIP' ? 0 : port.nodePort,
    externalIps: service.spec.externalIPs,
    loadBalancerVips: lb,
    // The API keeps the user's spelling; kube-proxy parses each range (surrounding spaces ignored).
    sourceRanges: lb.length > 0 ? service.spec.loadBalancerSourceRanges.map((range) => range.trim()) : [],
    affinityTimeout:
      service.spec.sessionAffinity === 'ClientIP' ? service.spec.sessionAffinityTimeoutSeconds : undefined,
    externalPolicyLocal:
      service.spec.externalTrafficPolicy === 'Local' &&
      ((service.spec.type !== 'ClusterIP' && port.nodePort !== 0) ||
        lb.length > 0 ||
        service.spec.externalIPs.length > 0),
    internalPolicyLocal: service.spec.internalTrafficPolicy === 'Local',
    clusterPolicyChain: CHAIN_PREFIX.cluster + base,
    localPolicyChain: CHAIN_PREFIX.local + base,
    externalChain: CHAIN_PREFIX.external + base,
    firewallChain: CHAIN_PREFIX.firewall + base,
    endpoints: sortEndpoints([...endpoints.values()]),
  };
}

function endpointInfo(
  view: ProxierView,
  name: ServicePortName,
  endpoint: Endpoint,
  port: number,
): EndpointInfo | undefined {
  const ip = endpoint.addresses[0];
  if (ip === undefined) return undefined;
  const base = servicePortEndpointChainNameBase(name, ip, port);
  return {
    ip,
    port,
    ready: endpoint.conditions.ready,
    serving: endpoint.conditions.serving,
    terminating: endpoint.conditions.terminating,
    local: endpoint.nodeName !== '' && endpoint.nodeName === view.nodeName,
    chainName: CHAIN_PREFIX.endpoint + base,
    affinitySetName: CHAIN_PREFIX.affinity + base,
  };
}

// ---- the element storage (nftElementStorage) -------------------------------------------------------------------

/** mirrors proxier.go:nftElementStorage — what a set or map holds, so a partial sync writes only differences. */
class ElementStorage {
  private readonly elements = new Map<string, string>();
  private readonly leftover = new Set<string>();

  constructor(private readonly set: SetObject) {}

  reset(ops: Operation[]): void {
    this.elements.clear();
    ops.push({ verb: 'flush', object: 'set', set: this.set });
    this.leftover.clear();
  }

  ensure(
    ops: Operation[],
    key: readonly string[],
    value: readonly string[] | undefined,
    comment?: string,
  ): void {
    const element: ElementObject = { kind: this.set.kind, container: this.set.name, key, value, comment };
    const keyText = key.join(' . ');
    const valueText = (value ?? []).join(' . ');
    const existing = this.elements.get(keyText);
    if (existing === undefined) {
      ops.push({ verb: 'add', object: 'element', element });
      this.elements.set(keyText, valueText);
      return;
    }
    if (existing !== valueText) {
      ops.push({ verb: 'delete', object: 'element', element });
      ops.push({ verb: 'add', object: 'element', element });
      this.elements.set(keyText, valueText);
    }
    this.leftover.delete(keyText);
  }

  cleanup(ops: Operation[]): void {
    for (const keyText of this.leftover) {
      ops.push({
        verb: 'delete',
        object: 'element',
        element: { kind: this.set.kind, container: this.set.name, key: keyText.split(' . ') },
      });
      this.elements.delete(keyText);
    }
    this.leftover.clear();
    for (const keyText of this.elements.keys()) this.leftover.add(keyText);
  }
}

// ---- per-node state and the sync -------------------------------------------------------------------------------

/** What kube-proxy remembers between syncs on one node. */
interface NodeState {
  /** The base chains were added and deleted once (proxier.flushed). */
  flushed: boolean;
  needFullSync: boolean;
  readonly storage: Map<string, ElementStorage>;
  /** The chains and sets in the kernel's table after the last sync (what `nft list chains/sets` would say). */
  readonly table: TableModel;
  /** Service chains flushed by the last sync, deleted by the next one (staleChains; the 1 s wait assumed over). */
  staleChains: Set<string>;
  /** Each Service's ports and endpoints at the last sync, as text: unchanged ones are skipped in a partial sync. */
  fingerprints: Map<string, string>;
}

/** One sync's transactions: the stale-chain deletion (if any), then the main one. */
export interface NftablesSync {
  readonly transactions: readonly (readonly Operation[])[];
}

/** kube-proxy in nftables mode: the Proxier of the v1.31 nftables backend. */
export class NftablesProxier implements Proxier {
  readonly mode = 'nftables' as const;
  private readonly nodes = new Map<string, NodeState>();

  constructor(private readonly options: NftablesProxierOptions = {}) {}

  sync(ns: string, view: ProxierView, first: boolean): readonly Command[] {
    const fileName = this.options.fileName ?? 'kube-proxy.nft';
    return this.transactions(ns, view, first).transactions.map((ops) => ({
      ns,
      argv: ['nft', '-f', { file: fileName, text: transactionText(ops) }],
    }));
  }

  /** The transactions of one sync as operations (what `sync` writes as `nft -f` files). */
  transactions(ns: string, view: ProxierView, first: boolean): NftablesSync {
    let state = this.nodes.get(ns);
    if (first || state === undefined) {
      // A new kube-proxy process: nothing remembered but the kernel's table, whose leftover service chains the
      // first sync finds (`nft list chains`) and flushes as stale.
      state = {
        flushed: false,
        needFullSync: true,
        storage: new Map(CONTAINERS.map((set) => [set.name, new ElementStorage(set)])),
        table: state?.table ?? new TableModel(),
        staleChains: new Set(),
        fingerprints: new Map(),
      };
      this.nodes.set(ns, state);
    }
    const transactions: Operation[][] = [];
    if (state.staleChains.size > 0) {
      const stale: Operation[] = [...state.staleChains].map((name) => ({
        verb: 'delete',
        object: 'chain',
        chain: { name },
      }));
      state.table.apply(stale);
      transactions.push(stale);
      state.staleChains = new Set();
    }
    const ops: Operation[] = [];
    const fullSync = state.needFullSync;
    if (fullSync) this.setupNFTables(ops, state, view);
    this.syncServices(ops, state, view, fullSync);
    state.table.apply(ops);
    state.needFullSync = false;
    // knftables runs nothing for an empty transaction (a partial sync with nothing changed).
    if (ops.length > 0) transactions.push(ops);
    return { transactions };
  }

  /** The table as knftables' Fake.Dump prints it after the syncs so far on `ns` (what kube-proxy's tests compare). */
  dump(ns: string): string {
    return this.nodes.get(ns)?.table.dump() ?? '';
  }

  /** A rule's text: its matches, then (with `counters`) a counter, then its statement (knftables.Concat). */
  private ruleText(match: string, statement: string): string {
    return concat(match, this.options.counters === true ? 'counter' : '', statement);
  }

  private mark(view: ProxierView): string {
    if (this.options.masqueradeMark !== undefined) return this.options.masqueradeMark;
    // Go's %#08x: 0x and the hex digits padded with zeros to 8 characters in all.
    return `0x${(1 << view.masqueradeBit).toString(16).padStart(6, '0')}`;
  }

  /** mirrors proxier.go:setupNFTables */
  private setupNFTables(ops: Operation[], state: NodeState, view: ProxierView): void {
    const noLocalhost = 'ip daddr != 127.0.0.0/8';
    const matchAll = (this.options.nodePortAddresses ?? []).length === 0;
    ops.push({ verb: 'add', object: 'table', comment: 'rules for kube-proxy' });
    // Once per process: add and delete every base chain, so one left with other properties is made again.
    if (!state.flushed) {
      for (const base of BASE_CHAINS) {
        ops.push({ verb: 'add', object: 'chain', chain: { name: base.name } });
        ops.push({ verb: 'delete', object: 'chain', chain: { name: base.name } });
      }
      state.flushed = true;
    }
    for (const base of BASE_CHAINS) {
      const chain = { name: base.name, base: base.spec };
      ops.push({ verb: 'add', object: 'chain', chain }, { verb: 'flush', object: 'chain', chain });
    }
    const created = new Set<string>();
    const ensureChain = (name: string): void => {
      if (created.has(name)) return;
      created.add(name);
      ops.push(
        { verb: 'add', object: 'chain', chain: { name } },
        { verb: 'flush', object: 'chain', chain: { name } },
      );
    };
    const rule = (chain: string, match: string, statement: string, comment?: string): void => {
      ops.push({ verb: 'add', object: 'rule', chain, rule: this.ruleText(match, statement), comment });
    };
    for (const [destination, source, extra] of JUMP_CHAINS) {
      ensureChain(destination);
      rule(source, extra, `jump ${destination}`);
    }
    for (const name of ['services', 'cluster-ips-check', 'masquerading', 'mark-for-masquerade'])
      ensureChain(name);
    const mark = this.mark(view);
    rule('mark-for-masquerade', '', `mark set mark or ${mark}`);
    rule('masquerading', `mark and ${mark} == 0`, 'return');
    rule('masquerading', '', `mark set mark xor ${mark}`);
    rule('masquerading', '', 'masquerade fully-random');

    ops.push({ verb: 'add', object: 'set', set: CONTAINER['cluster-ips']! });
    rule(
      'cluster-ips-check',
      'ip daddr @cluster-ips',
      'reject',
      'Reject traffic to invalid ports of ClusterIPs',
    );
    const serviceCidrs = this.options.serviceCidrs ?? [];
    if (serviceCidrs.length > 0)
      rule(
        'cluster-ips-check',
        `ip daddr { ${serviceCidrs.join(',')} }`,
        'drop',
        'Drop traffic to unallocated ClusterIPs',
      );

    const nodePortIps: SetObject = {
      kind: 'set',
      name: 'nodeport-ips',
      type: 'ipv4_addr',
      comment: 'IPs that accept NodePort traffic',
    };
    ops.push({ verb: 'add', object: 'set', set: nodePortIps });
    if (matchAll) ops.push({ verb: 'delete', object: 'set', set: nodePortIps });
    else {
      ops.push({ verb: 'flush', object: 'set', set: nodePortIps });
      for (const ip of this.nodePortIps(view))
        ops.push({
          verb: 'add',
          object: 'element',
          element: { kind: 'set', container: 'nodeport-ips', key: [ip] },
        });
    }

    ops.push({ verb: 'add', object: 'set', set: CONTAINER['no-endpoint-services']! });
    ops.push({ verb: 'add', object: 'set', set: CONTAINER['no-endpoint-nodeports']! });
    const reject = {
      name: 'reject-chain',
      comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports',
    };
    ops.push(
      { verb: 'add', object: 'chain', chain: reject },
      { verb: 'flush', object: 'chain', chain: reject },
    );
    rule('reject-chain', '', 'reject');
    rule('service-endpoints-check', '', 'ip daddr . meta l4proto . th dport vmap @no-endpoint-services');
    rule(
      'nodeport-endpoints-check',
      matchAll ? noLocalhost : 'ip daddr @nodeport-ips',
      'meta l4proto . th dport vmap @no-endpoint-nodeports',
    );

    ops.push({ verb: 'add', object: 'set', set: CONTAINER['firewall-ips']! });
    ensureChain('firewall-check');
    rule('firewall-check', '', 'ip daddr . meta l4proto . th dport vmap @firewall-ips');

    ops.push({ verb: 'add', object: 'set', set: CONTAINER['service-ips']! });
    ops.push({ verb: 'add', object: 'set', set: CONTAINER['service-nodeports']! });
    rule('services', '', 'ip daddr . meta l4proto . th dport vmap @service-ips');
    rule(
      'services',
      matchAll ? `fib daddr type local ${noLocalhost}` : 'ip daddr @nodeport-ips',
      'meta l4proto . th dport vmap @service-nodeports',
    );
    for (const name of [
      'cluster-ips',
      'service-ips',
      'firewall-ips',
      'no-endpoint-services',
      'no-endpoint-nodeports',
      'service-nodeports',
    ])
      state.storage.get(name)!.reset(ops);
  }

  /** The node's addresses inside --nodeport-addresses (NodePortAddresses.GetNodeIPs), loopback left out. */
  private nodePortIps(view: ProxierView): string[] {
    const cidrs = this.options.nodePortAddresses ?? [];
    return view.nodeIps.filter((ip) => !inCidr(ip, '127.0.0.0/8') && cidrs.some((cidr) => inCidr(ip, cidr)));
  }

  /** mirrors the service loop of proxier.go:syncProxyRules */
  private syncServices(ops: Operation[], state: NodeState, view: ProxierView, fullSync: boolean): void {
    const store = (name: string): ElementStorage => state.storage.get(name)!;
    const activeChains = new Set<string>();
    const activeAffinitySets = new Set<string>();
    const localDetector = view.clusterCidr !== '';

    const ports = servicePorts(view);
    // A Service whose ports and endpoints are as at the last sync is skipped by a partial sync (skipServiceUpdate).
    const fingerprints = new Map<string, string>();
    for (const svc of ports) {
      const service = serviceOf(svc);
      fingerprints.set(service, (fingerprints.get(service) ?? '') + JSON.stringify(svc));
    }

    for (const svc of ports) {
      const { cluster, local, allReachable, hasAny: hasEndpoints } = categorizeEndpoints(svc);
      const service = serviceOf(svc);
      const skip = !fullSync && state.fingerprints.get(service) === fingerprints.get(service);
      const ensureChain = (name: string): void => {
        if (activeChains.has(name)) return;
        activeChains.add(name);
        if (skip) return;
        ops.push(
          { verb: 'add', object: 'chain', chain: { name } },
          { verb: 'flush', object: 'chain', chain: { name } },
        );
      };
      // The service's rules and affinity sets, queued after its elements as syncProxyRules queues them.
      const tail: Operation[] = [];
      const rule = (chain: string, match: string, statement: string, comment?: string): void => {
        tail.push({ verb: 'add', object: 'rule', chain, rule: this.ruleText(match, statement), comment });
      };

      for (const ep of allReachable) {
        ensureChain(ep.chainName);
        if (svc.affinityTimeout !== undefined) activeAffinitySets.add(ep.affinitySetName);
      }
      const usesClusterPolicyChain = cluster.length > 0 && usesClusterEndpoints(svc);
      if (usesClusterPolicyChain) ensureChain(svc.clusterPolicyChain);
      const usesLocalPolicyChain = local.length > 0 && usesLocalEndpoints(svc);
      if (usesLocalPolicyChain) ensureChain(svc.localPolicyChain);

      let internalTrafficChain = svc.clusterPolicyChain;
      let hasInternalEndpoints = hasEndpoints;
      if (svc.internalPolicyLocal) {
        internalTrafficChain = svc.localPolicyChain;
        if (local.length === 0) hasInternalEndpoints = false;
      }
      let externalPolicyChain = svc.clusterPolicyChain;
      let hasExternalEndpoints = hasEndpoints;
      if (svc.externalPolicyLocal) {
        externalPolicyChain = svc.localPolicyChain;
        if (local.length === 0) hasExternalEndpoints = false;
      }
      const usesExternalTrafficChain = hasEndpoints && externallyAccessible(svc);
      if (usesExternalTrafficChain) ensureChain(svc.externalChain);

      let internalVerdict = '';
      let externalVerdict = '';
      if (!hasEndpoints) {
        internalVerdict = 'goto reject-chain';
        externalVerdict = 'goto reject-chain';
      } else {
        if (!hasInternalEndpoints) internalVerdict = 'drop';
        if (!hasExternalEndpoints) externalVerdict = 'drop';
      }

      const port = String(svc.port);
      store('cluster-ips').ensure(ops, [svc.clusterIp], undefined);
      if (hasInternalEndpoints)
        store('service-ips').ensure(
          ops,
          [svc.clusterIp, svc.protocol, port],
          [`goto ${internalTrafficChain}`],
        );
      else
        store('no-endpoint-services').ensure(
          ops,
          [svc.clusterIp, svc.protocol, port],
          [internalVerdict],
          svc.nameString,
        );

      for (const ip of svc.externalIps) {
        if (hasEndpoints)
          store('service-ips').ensure(ops, [ip, svc.protocol, port], [`goto ${svc.externalChain}`]);
        if (!hasExternalEndpoints)
          store('no-endpoint-services').ensure(
            ops,
            [ip, svc.protocol, port],
            [externalVerdict],
            svc.nameString,
          );
      }

      const usesFirewallChain = svc.loadBalancerVips.length > 0 && svc.sourceRanges.length > 0;
      if (usesFirewallChain) ensureChain(svc.firewallChain);
      for (const ip of svc.loadBalancerVips) {
        if (hasEndpoints)
          store('service-ips').ensure(ops, [ip, svc.protocol, port], [`goto ${svc.externalChain}`]);
        if (usesFirewallChain)
          store('firewall-ips').ensure(ops, [ip, svc.protocol, port], [`goto ${svc.firewallChain}`]);
      }
      if (!hasExternalEndpoints)
        for (const ip of svc.loadBalancerVips)
          store('no-endpoint-services').ensure(
            ops,
            [ip, svc.protocol, port],
            [externalVerdict],
            svc.nameString,
          );

      if (svc.nodePort !== 0) {
        const key = [svc.protocol, String(svc.nodePort)];
        if (hasEndpoints) store('service-nodeports').ensure(ops, key, [`goto ${svc.externalChain}`]);
        if (!hasExternalEndpoints)
          store('no-endpoint-nodeports').ensure(ops, key, [externalVerdict], svc.nameString);
      }

      // Internal traffic: masquerade off-cluster sources (or everything with --masquerade-all).
      if (hasInternalEndpoints) {
        const destination = `ip daddr ${svc.clusterIp} ${svc.protocol} dport ${svc.port}`;
        if (this.options.masqueradeAll === true)
          rule(internalTrafficChain, destination, 'jump mark-for-masquerade');
        else if (localDetector)
          rule(
            internalTrafficChain,
            `${destination} ip saddr != ${view.clusterCidr}`,
            'jump mark-for-masquerade',
          );
      }

      if (usesExternalTrafficChain) {
        if (!svc.externalPolicyLocal) rule(svc.externalChain, '', 'jump mark-for-masquerade');
        else {
          if (localDetector)
            rule(
              svc.externalChain,
              `ip saddr ${view.clusterCidr}`,
              `goto ${svc.clusterPolicyChain}`,
              'short-circuit pod traffic',
            );
          rule(
            svc.externalChain,
            'fib saddr type local',
            'jump mark-for-masquerade',
            'masquerade local traffic',
          );
          rule(
            svc.externalChain,
            'fib saddr type local',
            `goto ${svc.clusterPolicyChain}`,
            'short-circuit local traffic',
          );
        }
        if (hasExternalEndpoints) rule(svc.externalChain, '', `goto ${externalPolicyChain}`);
      }

      if (usesFirewallChain) {
        const sources = [...svc.sourceRanges];
        const nodeIp = this.options.nodeIp ?? view.nodeIps[0] ?? '';
        const allowFromNode = svc.sourceRanges.some((range) => inCidr(nodeIp, range));
        if (allowFromNode) sources.push(...svc.loadBalancerVips);
        rule(svc.firewallChain, `ip saddr != { ${sources.join(' , ')} }`, 'drop');
      }

      if (svc.affinityTimeout !== undefined)
        for (const ep of allReachable)
          tail.push({
            verb: 'add',
            object: 'set',
            set: {
              kind: 'set',
              name: ep.affinitySetName,
              type: 'ipv4_addr',
              flags: ['dynamic', 'timeout'],
              timeout: svc.affinityTimeout,
            },
          });

      if (usesClusterPolicyChain) serviceToEndpointRules(rule, svc, svc.clusterPolicyChain, cluster);
      if (usesLocalPolicyChain) serviceToEndpointRules(rule, svc, svc.localPolicyChain, local);

      for (const ep of allReachable) {
        rule(ep.chainName, `ip saddr ${ep.ip}`, 'jump mark-for-masquerade');
        if (svc.affinityTimeout !== undefined)
          rule(ep.chainName, '', `update @${ep.affinitySetName} { ip saddr }`);
        rule(ep.chainName, `meta l4proto ${svc.protocol}`, `dnat to ${ep.ip}:${ep.port}`);
      }

      if (!skip) ops.push(...tail);
    }

    // Stale service chains: flushed now, deleted at the next sync; stale affinity sets deleted now.
    const stale = new Set<string>();
    for (const chain of state.table.chainNames())
      if (chain.includes('/') && !activeChains.has(chain)) {
        ops.push({ verb: 'flush', object: 'chain', chain: { name: chain } });
        stale.add(chain);
      }
    for (const set of state.table.setNames())
      if (set.startsWith(CHAIN_PREFIX.affinity) && !activeAffinitySets.has(set))
        ops.push({ verb: 'delete', object: 'set', set: { kind: 'set', name: set, type: 'ipv4_addr' } });
    for (const name of [
      'cluster-ips',
      'service-ips',
      'firewall-ips',
      'no-endpoint-services',
      'no-endpoint-nodeports',
      'service-nodeports',
    ])
      store(name).cleanup(ops);
    state.staleChains = stale;
    state.fingerprints = fingerprints;
  }
}

/** mirrors proxier.go:writeServiceToEndpointRules — affinity lookups, then `numgen random mod N vmap`. */
function serviceToEndpointRules(
  rule: (chain: string, match: string, statement: string) => void,
  svc: ServicePortInfo,
  chain: string,
  endpoints: readonly EndpointInfo[],
): void {
  if (svc.affinityTimeout !== undefined)
    for (const ep of endpoints) rule(chain, `ip saddr @${ep.affinitySetName}`, `goto ${ep.chainName}`);
  const elements = endpoints.map((ep, index) => `${index} : goto ${ep.chainName}`).join(' , ');
  rule(chain, '', `numgen random mod ${endpoints.length} vmap { ${elements} }`);
}

/** The Service a port belongs to (`ns/name`), the unit of a partial sync. */
function serviceOf(svc: ServicePortInfo): string {
  const colon = svc.nameString.indexOf(':');
  return colon < 0 ? svc.nameString : svc.nameString.slice(0, colon);
}

/** knftables.Concat: the non-empty words joined by spaces. */
function concat(...words: string[]): string {
  return words.filter((word) => word !== '').join(' ');
}

/**
 * Whether `ip` lies in `cidr` (a bare address is a /32), both as the API gives them, parsed with ipaddr.js; an
 * unparsable one matches nothing.
 */
function inCidr(ip: string, cidr: string): boolean {
  const range = cidr.includes('/') ? cidr : `${cidr}/32`;
  if (!ipaddr.IPv4.isValidFourPartDecimal(ip) || !ipaddr.IPv4.isValidCIDRFourPartDecimal(range)) return false;
  return ipaddr.IPv4.parse(ip).match(ipaddr.IPv4.parseCIDR(range));
}
