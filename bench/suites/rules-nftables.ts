// kube-proxy's nftables mode at 100/1k/5k/10k Services: the first packet of a connection (conntrack new, the nat
// chains, the `service-ips` verdict map, the Service and endpoint chains, DNAT and masquerade), an established packet
// (conntrack hit: only the filter chains' `ct state new` tests), the `nft -f` load of kube-proxy's first sync, and
// the heap one loaded ruleset keeps; plus a set lookup at 10k and 100k elements against a Map of string keys.
//
// Args: `--services 100,1000,5000,10000` (quick: 100 only). The goals compare sizes measured in the same run, so they
// are set only when the run has 1k and 10k.
//
// The ruleset comes through the real path: NftablesProxier.sync renders the knftables transaction for one node from
// a ProxierView of UDP Services (each with 1-3 endpoints on other nodes, every 50th a NodePort), and the `nft -f` it
// asks for runs in the node's namespace through runArgv, as bench/support/kube-cluster.ts's nodes load theirs. The
// view is built directly (no control plane): at 10k Services the control plane's EndpointSlice controller alone
// takes minutes. A packet is a UDP datagram from the node's own socket (the OUTPUT hook), to a peer namespace at the
// other end of a veth; the op runs the simulation until the peer's device received it.
//
// History: `nft -f` of 10k Services took 80-167 s because each `add element` rebuilt the set's key index with
// JSON.stringify keys (O(N^2)); sets and maps now keep one persistent index per element list, keys packed into one
// number (src/netfilter/expr/set-index.ts), and the packet path builds no key string.

import { retainedBytes, timeOnce } from '../../src/cli/bench/measure.ts';
import { type BenchCase, type BenchGoal, type BenchMetric, defineSuite } from '../../src/cli/bench/suite.ts';
import { NftablesProxier } from '../../src/k8s/kube-proxy/nftables/proxier.ts';
import type { ProxierView } from '../../src/k8s/kube-proxy/proxier.ts';
import type { Endpoint, EndpointSlice, Service } from '../../src/k8s/objects.ts';
import { objectMeta, SERVICE_NAME_LABEL } from '../../src/k8s/objects.ts';
import { type KeyRead, SetIndex } from '../../src/netfilter/expr/set-index.ts';
import type { Constant, SetElement } from '../../src/netfilter/ir.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { execOrThrow, runArgv } from '../../src/tools/exec.ts';
import { formatIpv4, formatMac, parseIpv4 } from '../../src/wire/address.ts';
import { xorshift32 } from '../support/xorshift.ts';

const NODE_IP = '10.250.0.1';
const PEER_IP = '10.250.0.2';
/** The Service the established flow uses: its one endpoint is the peer, which answers once. */
const PROBE_IP = '10.111.255.254';
const PAYLOAD = new Uint8Array(64);
/** Distinct Services the first-packet case cycles through. */
const TARGETS = 256;
/** Packets sent before a packet case is timed (the JIT's first tiers, the first conntrack flush). */
const WARM_UP = 2048;
/** Lookups one call of a set-lookup case makes, at keys in random order. */
const LOOKUPS = 4096;
/** Connections the first-packet case opens between two conntrack flushes. */
const FLUSH_EVERY = 1024;

function label(count: number): string {
  return count >= 1000 && count % 1000 === 0 ? `${count / 1000}k` : String(count);
}

const clusterIp = (i: number): string => formatIpv4((parseIpv4('10.96.0.0')! + 1 + i) >>> 0);
const podIp = (k: number): string => formatIpv4((parseIpv4('10.244.0.0')! + 2 + k) >>> 0);

function slice(service: string, endpoints: readonly Endpoint[]): EndpointSlice {
  return {
    kind: 'EndpointSlice',
    metadata: objectMeta('default', `${service}-1`, `uid-${service}-1`, { [SERVICE_NAME_LABEL]: service }),
    addressType: 'IPv4',
    endpoints,
    ports: [{ name: '', port: 8080, protocol: 'UDP' }],
  };
}

function endpoint(address: string, nodeName: string): Endpoint {
  return {
    addresses: [address],
    conditions: { ready: true, serving: true, terminating: false },
    nodeName,
    targetRef: { kind: 'Pod', namespace: 'default', name: `pod-${address}` },
  };
}

function udpService(name: string, ip: string, nodePort: number): Service {
  return {
    kind: 'Service',
    metadata: objectMeta('default', name, `uid-${name}`),
    spec: {
      type: nodePort === 0 ? 'ClusterIP' : 'NodePort',
      clusterIP: ip,
      ports: [{ name: '', protocol: 'UDP', port: 80, targetPort: 8080, nodePort }],
      selector: { app: name },
      sessionAffinity: 'None',
      sessionAffinityTimeoutSeconds: 10800,
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 0,
      externalIPs: [],
      loadBalancerSourceRanges: [],
    },
    status: { loadBalancerIngress: [] },
  };
}

/** `count` UDP Services plus the probe Service, as the node `bench-node` sees them. */
export function serviceView(count: number): ProxierView {
  const next = xorshift32(13);
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  let pods = 0;
  for (let i = 0; i < count; i++) {
    const name = `svc-${i}`;
    services.push(udpService(name, clusterIp(i), i % 50 === 49 ? 30000 + Math.floor(i / 50) : 0));
    const endpoints: Endpoint[] = [];
    for (let e = 1 + (next() % 3); e > 0; e--) endpoints.push(endpoint(podIp(pods++), `node-${next() % 64}`));
    endpointSlices.push(slice(name, endpoints));
  }
  services.push(udpService('probe', PROBE_IP, 0));
  endpointSlices.push(slice('probe', [endpoint(PEER_IP, 'peer')]));
  return {
    nodeName: 'bench-node',
    nodeIps: [NODE_IP],
    clusterCidr: '10.244.0.0/16',
    masqueradeBit: 14,
    services,
    endpointSlices,
  };
}

interface Node {
  readonly sim: Simulation;
  readonly node: Namespace;
  readonly peer: Namespace;
  /** Frames the peer's eth0 received so far. */
  arrived(): number;
  /** Whether the peer answers the datagrams that reach its port 8080. */
  echo: boolean;
}

function nodeWithPeer(): Node {
  const sim = new Simulation({ seed: 'rules-nftables' });
  const node = sim.addNamespace('bench-node');
  const peer = sim.addNamespace('peer');
  execOrThrow(node, 'ip link add eth0 type veth peer name eth0 netns peer');
  execOrThrow(node, `ip addr add ${NODE_IP}/24 dev eth0`);
  execOrThrow(peer, `ip addr add ${PEER_IP}/24 dev eth0`);
  execOrThrow(node, 'ip link set eth0 up');
  execOrThrow(peer, 'ip link set eth0 up');
  execOrThrow(node, `ip route add default via ${PEER_IP}`);
  const peerMac = formatMac(peer.byName('eth0')!.mac);
  execOrThrow(node, `ip neigh add ${PEER_IP} lladdr ${peerMac} dev eth0 nud permanent`);
  const nodeMac = formatMac(node.byName('eth0')!.mac);
  execOrThrow(peer, `ip neigh add ${NODE_IP} lladdr ${nodeMac} dev eth0 nud permanent`);
  let arrived = 0;
  peer.byName('eth0')!.taps.push((_device, _pkt, dir) => {
    if (dir === 'rx') arrived++;
  });
  const state: Node = { sim, node, peer, arrived: () => arrived, echo: false };
  peer.udp.bind(0, 8080, (datagram) => {
    if (state.echo)
      peer.udp.send({ dst: datagram.srcAddr, dstPort: datagram.srcPort, srcPort: 8080, payload: PAYLOAD });
  });
  return state;
}

/** kube-proxy's first sync on the node: every `nft -f` it asks for, through the command facade. */
function load(node: Node, view: ProxierView): void {
  for (const command of new NftablesProxier().sync(node.node.name, view, true)) {
    const argv = command.argv.map((word) => {
      if (typeof word === 'string') return word;
      if ('ns' in word) return word.ns;
      const path = `/run/bench/${word.file}`;
      node.sim.files.set(path, new TextEncoder().encode(word.text));
      return path;
    });
    const result = runArgv(node.node, argv, command.stdin ?? '');
    if (result.exitCode !== 0) throw new Error(`${argv.join(' ')}: ${result.stderr}`);
    for (const word of command.argv)
      if (typeof word !== 'string' && 'file' in word) node.sim.files.delete(`/run/bench/${word.file}`);
  }
}

/** Sends one datagram from the node and runs the simulation until the peer's device received it. */
function sender(node: Node): (dst: number, srcPort: number) => void {
  const sim = node.sim;
  const udp = node.node.udp;
  const options = { dst: 0, dstPort: 80, srcPort: 0, payload: PAYLOAD };
  return (dst, srcPort) => {
    const before = node.arrived();
    options.dst = dst;
    options.srcPort = srcPort;
    udp.send(options);
    while (node.arrived() === before && sim.scheduler.runNext()) {}
  };
}

function rulesetCases(count: number, warmUp: number, cases: BenchCase[], metrics: BenchMetric[]): void {
  const size = label(count);
  const view = serviceView(count);
  const node = nodeWithPeer();
  const loaded = retainedBytes(() => timeOnce(() => load(node, view)));
  metrics.push({ name: `nft -f load ${size} Services`, value: loaded.value.ms, unit: 'ms' });
  metrics.push({ name: `heap per ruleset ${size} Services`, value: loaded.bytes, unit: 'bytes' });
  metrics.push({
    name: `heap per Service ${size} Services`,
    value: Math.round(loaded.bytes / count),
    unit: 'bytes/Service',
  });
  const send = sender(node);
  const targets = new Uint32Array(TARGETS);
  for (let t = 0; t < TARGETS; t++) targets[t] = parseIpv4(clusterIp(Math.floor((t * count) / TARGETS)))!;
  const conntrack = node.node.netfilter.conntrack;
  let port = 1024;
  let opened = 0;
  const before = node.arrived();
  send(targets[0]!, 999);
  if (node.arrived() === before) throw new Error(`${size}: a first packet did not reach the peer`);
  // The connection was DNATed to one of the Service's endpoints (its reply comes from a pod address).
  if (!/src=10\.244\.\d+\.\d+ dst=10\.250\.0\.1 sport=8080 /.test(execOrThrow(node.node, 'conntrack -L')))
    throw new Error(`${size}: the first packet was not DNATed to an endpoint`);
  const firstPacket = (): void => {
    send(targets[opened & (TARGETS - 1)]!, port);
    port = port === 60999 ? 1024 : port + 1;
    if (++opened % FLUSH_EVERY === 0) conntrack.flush(node.sim.scheduler.now);
  };
  for (let i = 0; i < warmUp; i++) firstPacket();
  cases.push({ name: `first packet ${size} Services`, fn: firstPacket });
  // The established flow: the peer answers its first datagram, so conntrack has seen a reply.
  const probe = parseIpv4(PROBE_IP)!;
  let replies = 0;
  node.node.udp.bind(0, 40000, () => replies++);
  node.echo = true;
  send(probe, 40000);
  while (replies === 0 && node.sim.scheduler.runNext()) {}
  node.echo = false;
  if (replies !== 1) throw new Error(`${size}: the probe Service's endpoint did not answer`);
  if (!/src=10\.250\.0\.2 dst=10\.250\.0\.1 sport=8080 /.test(execOrThrow(node.node, 'conntrack -L')))
    throw new Error(`${size}: the established flow is not the probe Service's connection`);
  const established = (): void => send(probe, 40000);
  for (let i = 0; i < warmUp; i++) established();
  cases.push({ name: `established packet ${size} Services`, fn: established });
}

/** A set of `ipv4_addr . inet_proto . inet_service` keys (kube-proxy's service-ips) and a Map of the keys as text. */
function lookupCases(count: number, cases: BenchCase[]): void {
  const size = label(count);
  const elements: SetElement[] = [];
  const strings = new Map<string, SetElement>();
  const base = parseIpv4('10.96.0.0')!;
  for (let i = 0; i < count; i++) {
    const parts: Constant[] = [
      { kind: 'number', value: (base + i) >>> 0 },
      { kind: 'number', value: 17 },
      { kind: 'number', value: 80 + (i % 3) },
    ];
    const element: SetElement = { key: { kind: 'concat', parts }, data: { kind: 'accept' } };
    elements.push(element);
    strings.set(`${(base + i) >>> 0}.17.${80 + (i % 3)}`, element);
  }
  const index = new SetIndex(elements);
  const next = xorshift32(5);
  const probes = new Uint32Array(LOOKUPS);
  for (let p = 0; p < probes.length; p++) probes[p] = next() % count;
  const reads: KeyRead[] = [0, 17, 0];
  let found = 0;
  // LOOKUPS per call: one call of a case's function costs more than one lookup.
  cases.push({
    name: `Map<string> lookup ${size} elements`,
    batch: LOOKUPS,
    fn: () => {
      for (let k = 0; k < LOOKUPS; k++) {
        const i = probes[k]!;
        if (strings.get(`${(base + i) >>> 0}.17.${80 + (i % 3)}`) !== undefined) found++;
      }
    },
  });
  cases.push({
    name: `set index lookup ${size} elements`,
    baseline: `Map<string> lookup ${size} elements`,
    batch: LOOKUPS,
    fn: () => {
      for (let k = 0; k < LOOKUPS; k++) {
        const i = probes[k]!;
        reads[0] = (base + i) >>> 0;
        reads[2] = 80 + (i % 3);
        if (index.findReads(reads, 3) !== undefined) found++;
      }
    },
  });
  if (found < 0) throw new Error('unreachable');
}

export default defineSuite({
  name: 'rules-nftables',
  title: "kube-proxy's nftables mode: first and established packet, nft -f load, heap, set lookups",
  async build(options) {
    const sizes = options.quick
      ? [100]
      : (options.args.services ?? '100,1000,5000,10000').split(',').map((text) => Number(text));
    const cases: BenchCase[] = [];
    const metrics: BenchMetric[] = [];
    for (const count of sizes) {
      options.progress?.(`rules-nftables: loading ${label(count)} Services`);
      rulesetCases(count, options.quick ? 16 : WARM_UP, cases, metrics);
    }
    for (const count of options.quick ? [10_000] : [10_000, 100_000]) lookupCases(count, cases);
    const goals: BenchGoal[] = [];
    if (sizes.includes(1000) && sizes.includes(10_000)) {
      goals.push({
        name: 'first packet: cost at 10k Services / at 1k <= 1.5',
        value: (results) =>
          results.result('first packet 1k Services').hz / results.result('first packet 10k Services').hz,
        op: '<=',
        target: 1.5,
      });
      goals.push({
        name: 'established packet flat: cost at 10k Services / at 1k <= 1.2',
        value: (results) =>
          results.result('established packet 1k Services').hz /
          results.result('established packet 10k Services').hz,
        op: '<=',
        target: 1.2,
      });
      goals.push({
        name: 'nft -f load linear: time at 10k Services / at 1k <= 12',
        value: (results) =>
          results.metric('nft -f load 10k Services') / results.metric('nft -f load 1k Services'),
        op: '<=',
        target: 12,
      });
    }
    return { cases, metrics, goals };
  },
});
