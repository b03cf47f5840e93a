// An egress gateway with dedicated addresses: the traffic of selected pods to chosen destinations leaves the cluster
// through one gateway node, source-translated to one or more egress addresses that the gateway holds on its eth0,
// instead of being masqueraded to each pod's own node address. Not supported: several gateways per policy (HA),
// IPv6, gateways that are not cluster nodes, pods with hostNetwork (they are the node), cleaning up on stop().
//
// The datapath is the one Cilium's egress gateway builds in eBPF (pkg/egressgateway: the pod's node sends matching
// packets over the tunnel to the gateway node, which SNATs them to the egressIP) and Calico's in iptables and policy
// routing (egress traffic marked, an `ip rule fwmark` into a table routing to the gateway), written with the tools a
// node has so the kernel can run the same commands:
// - every node but the gateway: mangle PREROUTING marks (`--set-xmark MARK/MARK`, one bit, so other marks survive)
//   packets from a selected pod to a destination CIDR; `ip rule fwmark MARK/MARK lookup TABLE` sends them to a
//   table whose default route leads to the gateway node the way the CNI reaches that node's pods (VXLAN:
//   `via 10.244.G.0 dev flannel.1 onlink`, so the gateway sees them arrive on the tunnel; host-gw and kindnet:
//   `via NODE dev eth0`); nat POSTROUTING's first rule accepts marked packets, so the CNI's masquerade leaves them
//   alone and the gateway sees the pod's address; the table throws the node network back to `main` (see nodeSetup);
// - the gateway: the egress addresses added to eth0 (the Docker host answers ARP for them), and nat POSTROUTING's
//   first rule sends selected pods' packets to a pool chain that spreads new connections over the addresses with
//   `-m statistic --mode nth` (one counter, the kube-proxy-before-random way: rule i takes every (N-i)th of what is
//   left). A single `SNAT --to-source A-B` would not spread one pod's storm: nf_nat_core.c:find_best_ips picks the
//   address from a hash of (source, destination), so one pod talking to one API always gets the same address.
// Rewriting the gateway's chains (a selected pod came or went) replaces the nth matches, whose counters start again:
// the next new connection takes the first address. The ports per address are NAT's own, 1024-65535 (nf_nat_l4proto_unique_tuple; not ip_local_port_range), or the
// policy's `ports` range (TCP and UDP; other protocols get the first address without a range).

import type { Scheduler } from '../core/scheduler.ts';
import type { Cluster } from './cluster.ts';
import type { NodeNetwork } from './cni/cni.ts';
import type { Pod } from './objects.ts';
import type { Command } from './plan.ts';
import type { Store } from './store.ts';

export interface EgressGatewayPolicy {
  /** Names the rules' comments (`NAMESPACE/NAME`). */
  readonly name: string;
  /** The selected pods' namespace (default `default`). */
  readonly namespace?: string;
  /** Pods whose labels include all of these. */
  readonly podSelector: Readonly<Record<string, string>>;
  /** Where their traffic goes through the gateway (`203.0.113.0/24`); other destinations are left as they are. */
  readonly destinationCidrs: readonly string[];
  readonly gatewayNode: string;
  /** The dedicated addresses, on the gateway's eth0 network (`172.18.0.100`). */
  readonly egressIps: readonly string[];
  /** An SNAT port range `FIRST-LAST` per address (default NAT's 1024-65535). */
  readonly ports?: string;
}

/** The cluster's side: its nodes' networks and a way to run a command in a node. */
export interface EgressGatewayHost {
  readonly store: Store;
  readonly scheduler: Scheduler;
  /** The nodes as they are now. */
  nodes(): readonly NodeNetwork[];
  /** The CNI by name (`flannel-vxlan` routes to the gateway over the tunnel). */
  readonly cniName: string;
  run(command: Command): { readonly exitCode: number; readonly stderr: string };
}

export interface EgressGatewaySync {
  /** Virtual ns. */
  readonly at: number;
  readonly node: string;
  readonly commands: number;
  readonly errors: readonly string[];
}

/** The fwmark bit (kube-proxy holds 0x4000 and 0x8000). */
export const EGRESS_MARK = 0x2000;
/** The policy routing table and the rule's priority (before `main` at 32766). */
export const EGRESS_TABLE = 2000;
export const EGRESS_RULE_PRIORITY = 100;
export const MARK_CHAIN = 'EGRESS-GW-MARK';
export const SNAT_CHAIN = 'EGRESS-GW-SNAT';
export const POOL_CHAIN = 'EGRESS-GW-POOL';

const IPTABLES_RESTORE = ['iptables-restore', '-w', '5', '--noflush'];
const MARK = `0x${EGRESS_MARK.toString(16)}/0x${EGRESS_MARK.toString(16)}`;

/**
 * The controller: watches Pods and Nodes, and after each change (one scheduler turn later, coalesced) rewrites on
 * every node the chains it owns with one `iptables-restore --noflush`, when the node's text changed; a node seen for
 * the first time gets its jumps, policy rule and route (the gateway: its addresses) first.
 */
export class EgressGateway {
  private readonly set = new Map<string, string>();
  private unwatch: (() => void)[] = [];
  private pending = false;
  readonly syncs: EgressGatewaySync[] = [];

  constructor(
    private readonly host: EgressGatewayHost,
    readonly policy: EgressGatewayPolicy,
  ) {
    if (policy.egressIps.length === 0) throw new Error(`egress gateway ${policy.name}: no egress address`);
  }

  start(): void {
    const { store } = this.host;
    this.unwatch = [store.watch('Pod', () => this.request()), store.watch('Node', () => this.request())];
    this.sync();
  }

  stop(): void {
    for (const off of this.unwatch) off();
    this.unwatch = [];
  }

  /** The selected pods' addresses, sorted (running or terminating pods that have one). */
  sources(): string[] {
    const { namespace = 'default', podSelector } = this.policy;
    return this.host.store
      .list('Pod', namespace)
      .filter((pod) => selected(pod, podSelector))
      .map((pod) => pod.status.podIP)
      .sort(compareAddresses);
  }

  private request(): void {
    if (this.pending) return;
    this.pending = true;
    this.host.scheduler.schedule(0, () => {
      this.pending = false;
      this.sync();
    });
  }

  private sync(): void {
    const nodes = this.host.nodes();
    const gateway = nodes.find((node) => node.name === this.policy.gatewayNode);
    const sources = this.sources();
    for (const known of [...this.set.keys()])
      if (!nodes.some((node) => node.name === known)) this.set.delete(known);
    for (const node of nodes) {
      const commands: Command[] = [];
      const isGateway = node.name === this.policy.gatewayNode;
      if (!this.set.has(node.name)) {
        if (!isGateway && gateway === undefined) continue;
        commands.push(
          ...(isGateway ? gatewaySetup(node, this.policy) : nodeSetup(node, gateway!, this.host.cniName)),
        );
      }
      const text = isGateway ? gatewayRules(this.policy, sources) : nodeRules(this.policy, sources);
      if (this.set.get(node.name) !== text)
        commands.push({ ns: node.ns, argv: IPTABLES_RESTORE, stdin: text });
      if (commands.length === 0) continue;
      const errors: string[] = [];
      for (const command of commands) {
        const result = this.host.run(command);
        if (result.exitCode !== 0) errors.push(result.stderr.trim());
      }
      this.set.set(node.name, errors.length === 0 ? text : '');
      this.syncs.push({ at: this.host.scheduler.now, node: node.name, commands: commands.length, errors });
    }
  }
}

function selected(pod: Pod, selector: Readonly<Record<string, string>>): boolean {
  if (pod.spec.hostNetwork || pod.status.podIP === '') return false;
  return Object.entries(selector).every(([key, value]) => pod.metadata.labels[key] === value);
}

function compareAddresses(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 4; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function comment(policy: EgressGatewayPolicy): string {
  return `"${policy.namespace ?? 'default'}/${policy.name}"`;
}

/** A node that is not the gateway: its chains and jumps, the policy rule, the route to the gateway. */
export function nodeSetup(node: NodeNetwork, gateway: NodeNetwork, cniName: string): Command[] {
  const ns = node.ns;
  const route =
    cniName === 'flannel-vxlan'
      ? ['via', gateway.podCidr.split('/')[0]!, 'dev', 'flannel.1', 'onlink']
      : ['via', gateway.address, 'dev', node.ifname];
  return [
    { ns, argv: ['iptables', '-w', '5', '-t', 'mangle', '-N', MARK_CHAIN] },
    { ns, argv: ['iptables', '-w', '5', '-t', 'mangle', '-I', 'PREROUTING', '1', '-j', MARK_CHAIN] },
    { ns, argv: ['iptables', '-w', '5', '-t', 'nat', '-N', SNAT_CHAIN] },
    { ns, argv: ['iptables', '-w', '5', '-t', 'nat', '-I', 'POSTROUTING', '1', '-j', SNAT_CHAIN] },
    {
      ns,
      argv: [
        'ip',
        'rule',
        'add',
        'fwmark',
        MARK,
        'lookup',
        String(EGRESS_TABLE),
        'pref',
        String(EGRESS_RULE_PRIORITY),
      ],
    },
    { ns, argv: ['ip', 'route', 'replace', 'default', ...route, 'table', String(EGRESS_TABLE)] },
    // VXLAN routes its outer packet with the inner one's mark (vxlan_get_route: flowi4_mark = skb->mark): the node
    // network throws back to `main`, or the outer packet would be sent into the tunnel again.
    {
      ns,
      argv: ['ip', 'route', 'replace', 'throw', networkOf(node), 'table', String(EGRESS_TABLE)],
    },
  ];
}

/** The node's eth0 network (`172.18.0.0/16`). */
function networkOf(node: NodeNetwork): string {
  const value = node.address.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
  const size = 2 ** (32 - node.prefixLength);
  const base = value - (value % size);
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(base / 2 ** shift) % 256);
  return `${octets.join('.')}/${node.prefixLength}`;
}

/** The gateway: the egress addresses on eth0 and its NAT chains. */
export function gatewaySetup(node: NodeNetwork, policy: EgressGatewayPolicy): Command[] {
  const ns = node.ns;
  return [
    ...policy.egressIps.map((address) => ({
      ns,
      argv: ['ip', 'addr', 'add', `${address}/${node.prefixLength}`, 'dev', node.ifname],
    })),
    { ns, argv: ['iptables', '-w', '5', '-t', 'nat', '-N', SNAT_CHAIN] },
    { ns, argv: ['iptables', '-w', '5', '-t', 'nat', '-N', POOL_CHAIN] },
    { ns, argv: ['iptables', '-w', '5', '-t', 'nat', '-I', 'POSTROUTING', '1', '-j', SNAT_CHAIN] },
  ];
}

/** A pod's node: mark the selected pods' packets to the destinations; keep them from the CNI's masquerade. */
export function nodeRules(policy: EgressGatewayPolicy, sources: readonly string[]): string {
  const lines = ['*mangle', `:${MARK_CHAIN} - [0:0]`];
  for (const source of sources)
    for (const cidr of policy.destinationCidrs)
      lines.push(
        `-A ${MARK_CHAIN} -s ${source}/32 -d ${cidr} -m comment --comment ${comment(policy)} -j MARK --set-xmark ${MARK}`,
      );
  lines.push('COMMIT', '*nat', `:${SNAT_CHAIN} - [0:0]`);
  lines.push(`-A ${SNAT_CHAIN} -m mark --mark ${MARK} -m comment --comment ${comment(policy)} -j ACCEPT`);
  lines.push('COMMIT', '');
  return lines.join('\n');
}

/** The gateway: the selected pods' packets to the destinations go to the pool, which spreads them over the addresses. */
export function gatewayRules(policy: EgressGatewayPolicy, sources: readonly string[]): string {
  const lines = ['*nat', `:${SNAT_CHAIN} - [0:0]`, `:${POOL_CHAIN} - [0:0]`];
  for (const source of sources)
    for (const cidr of policy.destinationCidrs)
      lines.push(
        `-A ${SNAT_CHAIN} -s ${source}/32 -d ${cidr} -m comment --comment ${comment(policy)} -j ${POOL_CHAIN}`,
      );
  const addresses = policy.egressIps;
  const protocols = policy.ports === undefined ? [undefined] : ['tcp', 'udp'];
  for (const protocol of protocols) {
    addresses.forEach((address, i) => {
      const left = addresses.length - i;
      const nth = left > 1 ? ` -m statistic --mode nth --every ${left} --packet 0` : '';
      const proto = protocol === undefined ? '' : ` -p ${protocol}`;
      const to = protocol === undefined ? address : `${address}:${policy.ports}`;
      lines.push(`-A ${POOL_CHAIN}${proto}${nth} -j SNAT --to-source ${to}`);
    });
  }
  if (policy.ports !== undefined) lines.push(`-A ${POOL_CHAIN} -j SNAT --to-source ${addresses[0]}`);
  lines.push('COMMIT', '');
  return lines.join('\n');
}

/** An egress gateway on a `cluster()`, started: its nodes, CNI and plan runner. */
export function clusterEgressGateway(cluster: Cluster, policy: EgressGatewayPolicy): EgressGateway {
  const gateway = new EgressGateway(
    {
      store: cluster.store,
      scheduler: cluster.sim.scheduler,
      nodes: () => cluster.nodeList().map((node) => node.network),
      cniName: cluster.cni.name,
      run: (command) => cluster.runner.run(command),
    },
    policy,
  );
  gateway.start();
  return gateway;
}
