// Bytes per VXLAN peer (a route, a neighbour and an FDB entry, installed as flannel's vxlan backend installs them) and the per-packet lookups of a peer against a Map-of-strings baseline.
//
// Run: npm run bench -- vxlan-peers. Goal (issue 13): <= 64 bytes per peer. For each remote node flannel runs the
// equivalent of `ip route replace 10.244.N.0/24 via 10.244.N.0 dev flannel.1 onlink`,
// `ip neigh replace 10.244.N.0 lladdr MAC dev flannel.1 nud permanent` and
// `bridge fdb append MAC dev flannel.1 dst NODE_IP` (flannel pkg/backend/vxlan: AddARP, AddFDB, route.Add); here the
// real commands run through exec(). Bytes per peer: what the node retains after adding N peers (heap and array
// buffers after a full GC), divided by N; the commands' garbage is collected first.
// The lookup case does per packet what the path does for a cross-node frame: the route (fib lookup), the neighbour
// of its gateway, the FDB entry of the neighbour's MAC. Its baseline is the same three lookups in Maps keyed by
// strings built per packet (what the issue calls the string-keyed design).

import { defineSuite } from '../../src/cli/bench/suite.ts';
import type { Vxlan } from '../../src/link/vxlan.ts';
import { newFlowKey } from '../../src/net/fib.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { execOrThrow } from '../../src/tools/exec.ts';
import { formatIpv4, formatMac } from '../../src/wire/address.ts';
import { retainedOrRough } from '../support/retained.ts';
import { xorshift32 } from '../support/xorshift.ts';

const LOOKUPS = 4096;

function node(): Namespace {
  const sim = new Simulation({ seed: 'vxlan-peers' });
  const ns = sim.addNamespace('node');
  sim.addNamespace('peer');
  for (const line of [
    'ip link set lo up',
    'ip link add eth0 type veth peer name eth0 netns peer',
    'ip addr add 172.16.0.1/12 dev eth0',
    'ip link add flannel.1 type vxlan id 1 local 172.16.0.1 dev eth0 dstport 8472 nolearning',
    'ip link set eth0 up',
    'ip link set flannel.1 up',
    'ip addr add 10.0.0.0/32 dev flannel.1',
  ])
    execOrThrow(ns, line);
  return ns;
}

/** Peer i: pod subnet 10.(i >> 8).(i & 255).0/24 (skipping 10.0.0.0), VTEP MAC 9e:00:..:i, node IP 172.16.0.0 + i + 2. */
function peer(i: number): { subnet: string; gateway: string; mac: string; nodeIp: string } {
  const n = i + 1;
  const gateway = formatIpv4((0x0a00_0000 + n * 256) >>> 0);
  return {
    subnet: `${gateway}/24`,
    gateway,
    mac: formatMac(0x9e00_0000_0000 + n),
    nodeIp: formatIpv4((0xac10_0000 + n + 1) >>> 0),
  };
}

function addPeers(ns: Namespace, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const p = peer(i);
    execOrThrow(ns, `ip route replace ${p.subnet} via ${p.gateway} dev flannel.1 onlink`);
    execOrThrow(ns, `ip neigh replace ${p.gateway} lladdr ${p.mac} dev flannel.1 nud permanent`);
    execOrThrow(ns, `bridge fdb append ${p.mac} dev flannel.1 dst ${p.nodeIp}`);
  }
}

function label(size: number): string {
  return size >= 1000 ? `${size / 1000}k` : String(size);
}

export default defineSuite({
  name: 'vxlan-peers',
  title: 'bytes per VXLAN peer (route + neighbour + FDB entry) and the lookups of one peer per packet',
  build(options) {
    const peers = options.quick ? 200 : 10_000;
    const ns = node();
    // The first peers make every table, device and index exist, so the measured ones cost only themselves.
    addPeers(ns, 0, 16);
    const { bytes } = retainedOrRough(() => addPeers(ns, 16, peers));
    const perPeer = bytes / (peers - 16);
    const vxlan = ns.byName('flannel.1') as Vxlan;
    const fib = ns.fib;
    const neighbours = ns.ipv4.neighbours;
    const next = xorshift32(0x7e57);
    const dsts = new Uint32Array(LOOKUPS);
    for (let i = 0; i < LOOKUPS; i++)
      dsts[i] = (0x0a00_0000 + (1 + (next() % peers)) * 256 + 2 + (next() % 200)) >>> 0;
    // The string-keyed baseline holds the same peers.
    const routeByKey = new Map<string, number>();
    const neighByKey = new Map<string, number>();
    const fdbByKey = new Map<string, number>();
    for (let i = 0; i < peers; i++) {
      const n = i + 1;
      const gateway = (0x0a00_0000 + n * 256) >>> 0;
      routeByKey.set(`${formatIpv4(gateway)}/24`, gateway);
      neighByKey.set(`${vxlan.ifindex} ${formatIpv4(gateway)}`, 0x9e00_0000_0000 + n);
      fdbByKey.set(formatMac(0x9e00_0000_0000 + n), (0xac10_0000 + n + 1) >>> 0);
    }
    const flow = newFlowKey({ iif: 1 });
    const sink = new Float64Array(1);
    let i = 0;
    let j = 0;
    const cases = [
      {
        name: `string maps ${label(peers)} peers`,
        fn: () => {
          const dst = dsts[i++ & (LOOKUPS - 1)]!;
          const gateway = routeByKey.get(`${formatIpv4((dst & 0xffff_ff00) >>> 0)}/24`)!;
          const mac = neighByKey.get(`${vxlan.ifindex} ${formatIpv4(gateway)}`)!;
          sink[0] = fdbByKey.get(formatMac(mac))!;
        },
      },
      {
        name: `packetlab ${label(peers)} peers`,
        baseline: `string maps ${label(peers)} peers`,
        fn: () => {
          flow.dstAddr = dsts[j++ & (LOOKUPS - 1)]!;
          const result = fib.lookup(flow);
          if (!result.ok) throw new Error('vxlan-peers: no route');
          const neigh = neighbours.get(result.route.oif!, result.route.gateway!)!;
          sink[0] = vxlan.remotes.get(neigh.lladdr!)!;
        },
      },
    ];
    const metrics = [{ name: `bytes per peer at ${label(peers)}`, value: perPeer, unit: 'bytes/peer' }];
    const goals = [
      {
        name: `a VXLAN peer <= 64 bytes at ${label(peers)} peers`,
        value: (r: { metric(name: string): number }) => r.metric(`bytes per peer at ${label(peers)}`),
        op: '<=' as const,
        target: 64,
      },
    ];
    return { cases, metrics, goals };
  },
});
