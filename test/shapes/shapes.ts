// The real rule shapes of common CNIs and agents (test/fixtures/shapes/, docs/shapes.md) loaded unchanged on a node
// of the lesson's cluster together with kube-proxy's own rules (src/k8s/kube-proxy/), as harness scenarios: the
// packetlab tests (test/shapes/) run them with runPacketlab, the kernel cases (test/linux/shapes-*.test.ts) with
// differential(). Each scenario traces its packets (`nft monitor trace`, a prerouting chain at -301 as the incident
// did) and observes the node's counters. Does not build a whole cluster: kube-proxy runs on the one node that
// matters (w1), and the other components' agents are replaced by the rules they leave.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Observed } from '../../src/harness/observed.ts';
import { ScenarioBuilder } from '../../src/harness/scenario.ts';
import { lesson } from '../../src/harness/topologies.ts';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import { NftablesProxier } from '../../src/k8s/kube-proxy/nftables/proxier.ts';
import type { Proxier, ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import type { Service } from '../../src/k8s/objects.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../support/k8s-objects.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/shapes/', import.meta.url));

/** A fixture's text, byte for byte as the component leaves it on a node. */
export function fixture(name: string): string {
  return readFileSync(`${FIXTURES}${name}`, 'utf8');
}

/** kube-proxy's masquerade bit (--iptables-masquerade-bit 14). */
export const KUBE_MASQ_MARK = 0x4000;

/** The incident's trace chain, before the raw table: every packet to the ports is traced. */
export function traceRuleset(ports: readonly number[]): string {
  const dports = ports.length === 1 ? String(ports[0]) : `{ ${ports.join(', ')} }`;
  return `table inet debug {
\tchain trace {
\t\ttype filter hook prerouting priority -301;
\t\ttcp dport ${dports} meta nftrace set 1
\t}
}
`;
}

/** One component's bits of the packet mark: their mask, and the value they mean when it is not the mask itself. */
export interface MarkBits {
  readonly mask: number;
  readonly value?: number;
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/**
 * A table of counting rules that shows where each component's mark bits stand as a packet enters the forward hook
 * (priority -1: after DNAT, before every filter), after its filters (priority 500) and before source NAT
 * (postrouting, priority 90: after mangle, before KUBE-POSTROUTING and netbird's srcnat - 1): one rule per
 * component, `meta mark & MASK == VALUE counter`. `nft monitor trace` prints the rules a traced packet matches and,
 * on each chain's policy line, the whole mark; `nft list table inet probe` gives the counters.
 */
export function markProbe(bits: readonly MarkBits[]): string {
  const rules = bits
    .map((b) => `\t\tmeta mark & ${hex(b.mask)} == ${hex(b.value ?? b.mask)} counter\n`)
    .join('');
  return `table inet probe {
\tchain prefilter {
\t\ttype filter hook forward priority -1; policy accept;
${rules}\t}
\tchain forward {
\t\ttype filter hook forward priority 500; policy accept;
${rules}\t}
\tchain postrouting {
\t\ttype filter hook postrouting priority 90; policy accept;
${rules}\t}
}
`;
}

interface NodePortSpec {
  readonly name: string;
  readonly clusterIP: string;
  readonly nodePort: number;
  /** The endpoint's address and node (formation-worker is w1, formation-worker2 is w2). */
  readonly endpoint: string;
  readonly node: string;
  readonly local?: boolean;
}

/** A TCP NodePort Service (port 80 → 8000) with one ready endpoint. */
function nodePortService(spec: NodePortSpec): {
  service: Service;
  slice: ReturnType<typeof makeEndpointSlice>;
} {
  const service = makeService('default', spec.name, (svc) => {
    svc.type = 'NodePort';
    svc.clusterIP = spec.clusterIP;
    svc.ports = [servicePort({ name: 'http', port: 80, targetPort: 8000, nodePort: spec.nodePort })];
    if (spec.local === true) svc.externalTrafficPolicy = 'Local';
  });
  const slice = makeEndpointSlice(
    'default',
    spec.name,
    1,
    [endpoint(spec.endpoint, { nodeName: spec.node })],
    [{ name: 'http', port: 8000, protocol: 'TCP' }],
  );
  return { service, slice };
}

/** `default/signalements`: ClusterIP 10.96.40.12, NodePort 30080, its endpoint the pod remote (10.244.2.7 on w2). */
export const SIGNALEMENTS: NodePortSpec = {
  name: 'signalements',
  clusterIP: '10.96.40.12',
  nodePort: 30080,
  endpoint: '10.244.2.7',
  node: 'formation-worker2',
};

/** What kube-proxy on w1 (formation-worker, 172.18.0.2) sees. */
export function nodeView(specs: readonly NodePortSpec[], nodeIp = '172.18.0.2'): ProxierView {
  const objects = specs.map(nodePortService);
  return {
    nodeName: 'formation-worker',
    nodeIps: [nodeIp],
    clusterCidr: '10.244.0.0/16',
    masqueradeBit: 14,
    services: objects.map((o) => o.service),
    endpointSlices: objects.map((o) => o.slice),
  };
}

/**
 * kube-proxy's first sync on `ns`, as traffic-phase commands whose outputs are compared (iptables 1.8.9 prints a
 * notice for -W, so they cannot be silent set-up).
 */
export function withKubeProxy(
  builder: ScenarioBuilder,
  ns: string,
  view: ProxierView,
  mode: 'iptables' | 'nftables' = 'iptables',
): ScenarioBuilder {
  const proxier: Proxier = mode === 'iptables' ? new IptablesProxier() : new NftablesProxier();
  for (const command of proxier.sync(ns, view, true))
    builder.actCommand(command.ns, command.argv, command.stdin);
  return builder;
}

/** The lesson's two nodes (direct routes, pods on cni0) and the outside client 172.18.0.100. */
export function cluster(name: string): ScenarioBuilder {
  return lesson(name, { pods: 'bridge', nodes: 'direct', client: true });
}

/**
 * A VPN peer of w1 behind a point-to-point link named like the agent's device (`tailscale0`, `wt0`): a veth whose
 * w1 end has `nodeAddr` and whose far end, in namespace `peer`, has `peerAddr` and a default route through w1. The
 * tunnel's encryption is not modelled; what the rules see (the input device, the peer's address) is the same.
 */
export function vpnPeer(
  builder: ScenarioBuilder,
  options: { device: string; nodeAddr: string; peerAddr: string; gateway: string },
): ScenarioBuilder {
  return builder
    .namespace('peer')
    .veth('w1', options.device, 'peer', 'eth0')
    .addr('w1', options.nodeAddr, options.device)
    .addr('peer', options.peerAddr, 'eth0')
    .up('w1', options.device)
    .up('peer', 'eth0')
    .route('peer', 'add', 'default', 'via', options.gateway);
}

/** The output of a traffic or observe command by its label's start (`w1: iptables-save`). */
export function output(run: Observed, labelStart: string): string {
  const found = [...run.traffic, ...run.observe].find((o) => o.label.startsWith(labelStart));
  if (found === undefined) throw new Error(`no output labelled ${labelStart}`);
  return `${found.stdout}${found.stderr}`;
}

/** The set-up commands that failed (none should: every fixture loads unchanged). */
export function failedSetup(run: Observed): string[] {
  return [...run.setup, ...run.traffic.filter((o) => !/: (tcp|udp) /.test(o.label))]
    .filter((o) => o.exitCode !== 0)
    .map((o) => `${o.label}: ${o.stderr}`);
}

/**
 * The trace of the first packet from source port `sport` with `flags`: its lines without the `trace id ID ` prefix
 * and without the `packet:` dumps, in order (`ip filter FORWARD rule ... (verdict accept)`).
 */
export function tracePath(trace: string, sport: number, flags = 'syn'): string[] {
  const lines = trace.split('\n');
  const first = lines.find((l) => l.includes(` tcp sport ${sport} `) && l.includes(`tcp flags == ${flags} `));
  if (first === undefined) throw new Error(`no traced packet from port ${sport}`);
  const id = first.split(' ')[2];
  return lines
    .filter((l) => l.startsWith(`trace id ${id} `) && !l.includes(' packet: '))
    .map((l) => l.slice(`trace id ${id} `.length).trimEnd());
}

/** The mark bits a trace's lines show, in order of appearance (`meta mark 0x00004000` → 0x4000). */
export function marksIn(trace: string): number[] {
  return [...trace.matchAll(/meta mark (0x[0-9a-f]{8})/g)].map((m) => Number(m[1]));
}

/**
 * The `[packets:bytes]` of the first iptables-save -c line whose rule is `rule`, or of a chain's policy line given
 * as its start (`:FORWARD DROP`; `:POSTROUTING ACCEPT` is the first table's with such a chain).
 */
export function countersOf(save: string, rule: string): string {
  for (const line of save.split('\n')) {
    if (rule.startsWith(':') && line.startsWith(`${rule} `)) return line.split(' ').at(-1) ?? '';
    const m = /^\[(\d+:\d+)\] (.*)$/.exec(line);
    if (m !== null && m[2] === rule) return `[${m[1]}]`;
  }
  throw new Error(`no line ${rule} in\n${save}`);
}

export { ScenarioBuilder };
