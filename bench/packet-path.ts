// What one packet costs end to end, measured against the simplest path in the same run: a UDP datagram across one veth
// pair (the baseline), the lesson's pod-to-pod datagram across nodes (bridge, VXLAN, underlay, br_netfilter), the same
// through a ClusterIP (kube-proxy's DNAT, conntrack), and a TCP echo exchange (ten segments per message round).
//
// Run: node --expose-gc --import tsx bench/packet-path.ts   (prints one JSON document on stdout)
//
// Each op sends, then runs the simulation until the packet (or the echo) arrived, so the figure covers
// every hop, ARP excepted (resolved before timing); timers further ahead are not run. Heap growth per op is read over a fixed number of ops with
// collections forced around them (needs --expose-gc; null without): it tells how much garbage a
// packet leaves, the thing the foundation wants near zero.
//
// Outcome that drove the first optimisations (us per op under tsx, 2 loaded cores, two runs each):
//   path                    before (2c61559)   after (slab buffers, cached sysctls, no per-packet closures)
//   veth pair               5.4-8.4            2.4-2.8
//   pod to pod (VXLAN)      16-17.5            10.5-20 (noisy)
//   pod to ClusterIP        20-23              10-17
//   TCP echo round          12.5               6.5
// Under tsx every imported binding is read through a getter and named functions are wrapped
// (__name): those still lead the profile and vanish in a bundled build.

import Benchmark from 'benchmark';
import { kubeProxyNatRules } from '../scenarios/kube-proxy-iptables.ts';
import { lessonTopology } from '../src/k8s/lesson.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { Simulation } from '../src/netns/simulation.ts';
import type { TcpSocket } from '../src/socket/tcp/socket.ts';
import { execOrThrow } from '../src/tools/exec.ts';
import { parseIpv4 } from '../src/wire/address.ts';

const PAYLOAD = new Uint8Array(64);
const HEAP_OPS = 20_000;

const must = (ns: Namespace, line: string, stdin?: string): string =>
  execOrThrow(ns, line, stdin === undefined ? {} : { stdin });

interface Path {
  readonly name: string;
  /** One operation: a datagram or a message round, to completion. */
  readonly op: () => void;
  /** How many packets one op puts on the wire (every hop counted once per packet). */
  readonly packetsPerOp: number;
}

/** A UDP sender and a sink, warmed up so ARP is resolved. */
function udpPath(name: string, sim: Simulation, from: Namespace, to: Namespace, dst: string): Path {
  const address = parseIpv4(dst)!;
  let received = 0;
  if (!to.udp.bind(0, 9000, () => received++)) throw new Error('port 9000 taken');
  const send = (): void => {
    const before = received;
    from.udp.send({ dst: address, dstPort: 9000, srcPort: 41000, payload: PAYLOAD });
    // Until it arrives: running to idle would also run every neighbour and conntrack timer ahead.
    while (received === before && sim.scheduler.runNext()) {}
  };
  send();
  if (received !== 1) throw new Error(`${name}: the datagram did not arrive`);
  return { name, op: send, packetsPerOp: 1 };
}

/** Namespaces a (10.0.0.1) and b (10.0.0.2) on one veth pair. */
function twoNamespaces(): { sim: Simulation; a: Namespace; b: Namespace } {
  const sim = new Simulation({ seed: 'bench' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  must(a, 'ip link add veth-a type veth peer name veth-b netns b');
  must(a, 'ip addr add 10.0.0.1/24 dev veth-a');
  must(b, 'ip addr add 10.0.0.2/24 dev veth-b');
  must(a, 'ip link set veth-a up');
  must(b, 'ip link set veth-b up');
  return { sim, a, b };
}

function vethPair(): Path {
  const { sim, a, b } = twoNamespaces();
  return udpPath('veth pair (baseline)', sim, a, b, '10.0.0.2');
}

function podToPod(): Path {
  const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
  return udpPath(
    'pod to pod across nodes (bridge, VXLAN)',
    lesson.sim,
    lesson.diag,
    lesson.remote,
    '10.244.2.7',
  );
}

function clusterIp(): Path {
  const lesson = lessonTopology({ pods: 'bridge', nodes: 'vxlan' });
  const rules = kubeProxyNatRules([
    {
      servicePort: 'default/bench:udp',
      protocol: 'udp',
      clusterIp: '10.96.40.12',
      port: 9000,
      nodePort: undefined,
      endpoints: ['10.244.2.7:9000'],
      clusterCidr: '10.244.0.0/16',
    },
  ]);
  must(lesson.w1, 'iptables-restore --noflush', rules);
  return udpPath(
    'pod to ClusterIP (kube-proxy DNAT, conntrack)',
    lesson.sim,
    lesson.diag,
    lesson.remote,
    '10.96.40.12',
  );
}

/** One established connection; an op is a message and its echo (segments: data, ACK or not, echo, ...). */
function tcpEcho(): Path {
  const { sim, a, b } = twoNamespaces();
  const listener = b.tcp.listen(0, 8080, (socket) => {
    socket.onData = (s, data) => s.write(data);
  });
  if (listener === 'EADDRINUSE') throw new Error('port 8080 taken');
  const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
  if (!connected.ok) throw new Error(connected.error);
  const client: TcpSocket = connected.socket;
  let echoes = 0;
  client.onData = () => echoes++;
  sim.runUntilIdle();
  const round = (): void => {
    client.write(PAYLOAD);
    // Delayed ACKs are timers 40 ms ahead: run until the echo is back, not until idle.
    const before = echoes;
    while (echoes === before && sim.scheduler.runNext()) {}
  };
  round();
  if (echoes !== 1) throw new Error('tcp echo: no echo');
  return { name: 'TCP echo round on an open connection', op: round, packetsPerOp: 2 };
}

function measure(path: Path): {
  name: string;
  nsPerOp: number;
  nsPerPacket: number;
  rme: number;
  heapBytesPerOp: number | null;
} {
  const bench = new Benchmark(path.name, { fn: path.op, maxTime: 1, minSamples: 5 });
  bench.run();
  const nsPerOp = 1e9 / bench.hz;
  const gc = (globalThis as { gc?: () => void }).gc;
  let heapBytesPerOp: number | null = null;
  if (gc !== undefined) {
    gc();
    const before = process.memoryUsage().heapUsed;
    // Garbage only: what survives a collection is live state (conntrack entries, FDB), not per-packet cost.
    let peak = before;
    for (let i = 0; i < HEAP_OPS; i++) {
      path.op();
      if ((i & 1023) === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    heapBytesPerOp = Math.round((peak - before) / HEAP_OPS);
    gc();
  }
  return {
    name: path.name,
    nsPerOp: Math.round(nsPerOp),
    nsPerPacket: Math.round(nsPerOp / path.packetsPerOp),
    rme: Number(bench.stats.rme.toFixed(1)),
    heapBytesPerOp,
  };
}

const results = [vethPair(), podToPod(), clusterIp(), tcpEcho()].map(measure);
const baseline = results[0]!.nsPerOp;
process.stdout.write(
  `${JSON.stringify(
    {
      bench: 'packet-path',
      note: 'one op = send + run until delivered; ratio is against the veth pair in this run; heap bytes are garbage allocated per op (a lower bound: collections during the run hide some)',
      results: results.map((result) => ({
        ...result,
        ratioToBaseline: Number((result.nsPerOp / baseline).toFixed(2)),
      })),
    },
    null,
    2,
  )}\n`,
);
