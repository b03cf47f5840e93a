// The suites `packetlab bench` runs on the user's inputs (docs/cli.md): conntrack lookups and inserts against a
// string-keyed Map at sizes up to --flows; NAT port selection (MASQUERADE --random-fully) at occupancies of its
// port range; the user's ruleset's first-packet and established-packet cost for the flows of the mix; a packet of
// the mix through a small topology, one hot flow and many. Case names read `SERIES @ X` (X: flows, Services,
// occupancy in %, rules), which is what the SVG plot draws. Public APIs only: Conntrack's process/confirm/find,
// Simulation, Namespace and the tools facade.

import { Packet } from '../../core/packet.ts';
import type { NetDevice } from '../../link/device.ts';
import { Conntrack } from '../../netfilter/conntrack/conntrack.ts';
import { makeTuple, type Tuple } from '../../netfilter/conntrack/tuple.ts';
import { runArgv } from '../../tools/exec.ts';
import { emitIpv4, Ipv4View } from '../../wire/ipv4.ts';
import { emitUdp, UdpView } from '../../wire/udp.ts';
import { timeOnce } from './measure.ts';
import { type MixFlow, schedule } from './mix.ts';
import type { BenchCase, BenchMetric, Suite, SuitePlan } from './suite.ts';
import { defineSuite } from './suite.ts';
import { buildWorld, countRules, type NodeWorld, type RulesetFormat, variantOf } from './world.ts';

/** A deterministic 32-bit stream (xorshift32): the same inputs every run. */
function stream(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

let sink = 0;

/** Sizes from 1,000 up to `flows`, ten times apart, and flows itself. */
export function sizesUpTo(flows: number): number[] {
  const sizes: number[] = [];
  for (let size = 1000; size < flows; size *= 10) sizes.push(size);
  sizes.push(flows);
  return sizes;
}

/** A UDP packet of tuple t (IPv4 header at the packet's start), as conntrack's hooks see one. */
function udpPacket(t: Tuple): Packet {
  const pkt = Packet.allocate(20 + 8);
  pkt.network = pkt.start;
  emitUdp(
    { srcPort: t.srcPort, dstPort: t.dstPort, payloadLen: 0 },
    UdpView.unchecked(pkt.buf, pkt.start + 20),
  );
  emitIpv4(
    {
      srcAddr: t.src,
      dstAddr: t.dst,
      protocol: 17,
      ttl: 64,
      ident: 0,
      dontFragment: true,
      moreFragments: false,
      fragmentOffset: 0,
      dscp: 0,
      ecn: 0,
      payloadLen: 8,
      options: new Uint8Array(0),
    },
    Ipv4View.unchecked(pkt.buf, pkt.start),
  );
  return pkt;
}

const LOOKUPS = 4096;

/** `bench conntrack --flows N`: at each size, a table filled through process+confirm, then hits and misses. */
export function conntrackSuite(flows: number): Suite {
  return defineSuite({
    name: 'conntrack',
    title: `conntrack lookups (hit, miss) and inserts against a Map<string> of the 5-tuple, up to ${flows} flows`,
    build: ({ quick }) => {
      const cases: BenchCase[] = [];
      const metrics: BenchMetric[] = [];
      for (const size of quick ? sizesUpTo(Math.min(flows, 2000)) : sizesUpTo(flows)) {
        const next = stream(size);
        const tuples: Tuple[] = [];
        const seen = new Set<string>();
        while (tuples.length < size) {
          const t = makeTuple(
            0x0a000000 | (next() & 0xffffff),
            0x0a600000 | (next() & 0xffff),
            17,
            1024 + (next() % 64512),
            53,
          );
          const key = `${t.src},${t.dst},${t.srcPort},${t.dstPort},${t.protocol}`;
          if (seen.has(key)) continue;
          seen.add(key);
          tuples.push(t);
        }
        const ct = new Conntrack({ max: 0 });
        const packets = tuples.map(udpPacket);
        const insert = timeOnce(() => {
          for (const pkt of packets) {
            ct.process(pkt, 'PREROUTING', 1);
            ct.confirm(pkt, 1);
          }
        });
        metrics.push({ name: `insert @ ${size}`, value: (insert.ms * 1e6) / size, unit: 'ns/flow' });
        const map = new Map<string, number>();
        for (const [i, t] of tuples.entries())
          map.set(`${t.src},${t.dst},${t.srcPort},${t.dstPort},${t.protocol}`, i);
        const hits = Array.from({ length: LOOKUPS }, () => tuples[next() % size]!);
        const misses = Array.from({ length: LOOKUPS }, () =>
          makeTuple(0xc0a80000 | (next() & 0xffff), 0x0a600001, 17, 1024 + (next() % 64512), 53),
        );
        for (const t of hits) if (ct.find(t, 1) < 0) throw new Error(`conntrack lost a flow at ${size}`);
        let k = 0;
        const probe = (list: readonly Tuple[]) => () => {
          sink ^= ct.find(list[k++ & (LOOKUPS - 1)]!, 1);
        };
        const mapProbe = (list: readonly Tuple[]) => () => {
          const t = list[k++ & (LOOKUPS - 1)]!;
          sink ^= map.get(`${t.src},${t.dst},${t.srcPort},${t.dstPort},${t.protocol}`) ?? -1;
        };
        cases.push(
          { name: `map hit @ ${size}`, fn: mapProbe(hits) },
          { name: `hit @ ${size}`, fn: probe(hits), baseline: `map hit @ ${size}` },
          { name: `map miss @ ${size}`, fn: mapProbe(misses) },
          { name: `miss @ ${size}`, fn: probe(misses), baseline: `map miss @ ${size}` },
        );
      }
      return { cases, metrics };
    },
  });
}

/** `bench nat`: new UDP flows MASQUERADEd (--random-fully) to one address, at occupancies of the port range. */
export function natSuite(): Suite {
  return defineSuite({
    name: 'nat',
    title:
      'NAT port selection: a new flow through MASQUERADE --random-fully at occupancies of its port range',
    build: ({ quick }) => {
      // Quick: a 256-port range, so the fills are cheap; otherwise the kernel's default 1024-65535.
      const [low, high] = quick ? [10000, 10255] : [1024, 65535];
      const range = high - low + 1;
      const cases: BenchCase[] = [];
      const metrics: BenchMetric[] = [];
      for (const percent of [0, 50, 90, 99, 100]) {
        const world = buildWorld({ interfaces: ['eth0', 'eth1'] });
        const node = world.node;
        runArgv(
          node,
          [
            'iptables',
            '-t',
            'nat',
            '-A',
            'POSTROUTING',
            '-o',
            'eth0',
            '-p',
            'udp',
            '-j',
            'MASQUERADE',
            '--to-ports',
            `${low}-${high}`,
            '--random-fully',
          ],
          '',
        );
        const far = world.far('eth1');
        const fill = Math.round((range * percent) / 100);
        const dst = 0xc6336401; // 198.51.100.1:53, out of eth0 by the default route
        // The held ports: flows from distinct sources 10.1.x.y.
        const filled = timeOnce(() => {
          for (let i = 0; i < fill; i++) {
            const spec = { protocol: 'udp', src: 0x0a010000 + i, srcPort: 40000, dst, dstPort: 53 } as const;
            world.send(far, world.frame({ ...spec, direction: { kind: 'in', dev: 'eth1' } }, 'eth1'));
          }
        });
        metrics.push({
          name: `fill @ ${percent}`,
          value: fill === 0 ? 0 : (filled.ms * 1e6) / fill,
          unit: 'ns/flow',
        });
        // Measured flows: 172.16.0.1, a new source port each; deleted every `batch` so occupancy stays put.
        const batch = Math.max(1, Math.floor(range / 200));
        const frames = Array.from({ length: batch }, (_, i) =>
          world.frame(
            {
              protocol: 'udp',
              src: 0xac100001,
              srcPort: 20000 + i,
              dst,
              dstPort: 53,
              direction: { kind: 'in', dev: 'eth1' },
            },
            'eth1',
          ),
        );
        let k = 0;
        cases.push({
          name: `new flow @ ${percent}`,
          fn: () => {
            world.send(far, frames[k]!);
            if (++k === batch) {
              k = 0;
              runArgv(node, ['conntrack', '-D', '-s', '172.16.0.1'], '');
            }
          },
          ...(percent === 0 ? {} : { baseline: 'new flow @ 0' }),
        });
      }
      return { cases, metrics };
    },
  });
}

/** Frames of every flow of the mix: `variants` new connections each, plus one steady (established) connection. */
function mixFrames(world: NodeWorld, mix: readonly MixFlow[], variants: number) {
  const fresh = mix.map((flow) =>
    Array.from({ length: variants }, (_, v) => world.frame(variantOf(flow, v + 1), flow.spec.direction.dev)),
  );
  const steady = mix.map((flow) => world.frame(flow.spec, flow.spec.direction.dev));
  const fars = mix.map((flow) => world.far(flow.spec.direction.dev));
  return { fresh, steady, fars };
}

/** First-packet and established-packet cases over the mix, in its weighted order, named `first packet @ X`. */
function mixCases(world: NodeWorld, mix: readonly MixFlow[], x: number, quick: boolean): BenchCase[] {
  const variants = Math.max(16, Math.min(quick ? 64 : 4096, Math.floor(65536 / mix.length)));
  const { fresh, steady, fars } = mixFrames(world, mix, variants);
  const order = schedule(mix);
  // Every flow's established connection exists before the timing starts.
  for (let i = 0; i < mix.length; i++) world.send(fars[i]!, steady[i]!);
  let k = 0;
  let variant = 0;
  const first = () => {
    const flow = order[k]!;
    world.send(fars[flow]!, fresh[flow]![variant]!);
    if (++k === order.length) {
      k = 0;
      if (++variant === variants) {
        // Every connection of the cycle was made: forget them, so the next cycle's packets are first packets again.
        variant = 0;
        world.flush();
        for (let i = 0; i < mix.length; i++) world.send(fars[i]!, steady[i]!);
      }
    }
  };
  let j = 0;
  const established = () => {
    const flow = order[j]!;
    world.send(fars[flow]!, steady[flow]!);
    if (++j === order.length) j = 0;
  };
  return [
    { name: `first packet @ ${x}`, fn: first },
    { name: `established packet @ ${x}`, fn: established, baseline: `first packet @ ${x}` },
  ];
}

export interface UserRuleset {
  readonly file: string;
  readonly text: string;
  readonly format: RulesetFormat;
}

/** Interfaces the mix names, in order of first appearance. */
function interfacesOf(mix: readonly MixFlow[]): string[] {
  return [...new Set(mix.map((flow) => flow.spec.direction.dev))];
}

/** `bench rules --ruleset FILE[,FILE...] --mix FILE`: each ruleset loaded on the node, the mix sent through it. */
export function rulesSuite(rulesets: readonly UserRuleset[], mix: readonly MixFlow[]): Suite {
  return defineSuite({
    name: 'rules',
    title: `the ruleset's cost per packet for the mix (${mix.length} flows): first packet and established, against rules loaded`,
    build: ({ quick }) => {
      const cases: BenchCase[] = [];
      const metrics: BenchMetric[] = [];
      for (const ruleset of rulesets) {
        const rules = countRules(ruleset.text, ruleset.format);
        const load = timeOnce(() => buildWorld({ interfaces: interfacesOf(mix), ruleset }));
        metrics.push(
          { name: `rules in ${ruleset.file}`, value: rules, unit: 'rules' },
          { name: `load ${ruleset.file}`, value: load.ms, unit: 'ms' },
        );
        cases.push(...mixCases(load.value, mix, rules, quick));
      }
      return { cases, metrics };
    },
  });
}

/** `bench path --mix FILE [--flows N]`: the mix through the node to a host and back, 1 flow and many. */
export function pathSuite(mix: readonly MixFlow[], flows: number): Suite {
  return defineSuite({
    name: 'path',
    title: `a packet of the mix across the node to a host and its answer back, against the flows in flight`,
    build: ({ quick }): SuitePlan => {
      const cases: BenchCase[] = [];
      const top = quick ? Math.min(flows, 100) : flows;
      const counts = [1, ...[10, 100, 1000, 10_000, 100_000].filter((n) => n < top), top].filter(
        (n, i, all) => all.indexOf(n) === i,
      );
      for (const count of counts) {
        const world = buildWorld({
          interfaces: interfacesOf(mix),
          destinations: mix.map((flow) => flow.spec.dst),
        });
        const order = schedule(mix);
        // `count` connections spread over the mix's flows by weight, sent in turn.
        const frames: Uint8Array[] = [];
        const fars: NetDevice[] = [];
        for (let i = 0; i < count; i++) {
          const flow = mix[order[i % order.length]!]!;
          frames.push(world.frame(variantOf(flow, Math.floor(i / order.length)), flow.spec.direction.dev));
          fars.push(world.far(flow.spec.direction.dev));
        }
        for (let i = 0; i < count; i++) world.send(fars[i]!, frames[i]!);
        let k = 0;
        cases.push({
          name: `packet @ ${count}`,
          fn: () => {
            world.send(fars[k]!, frames[k]!);
            if (++k === count) k = 0;
          },
          ...(count === 1 ? {} : { baseline: 'packet @ 1' }),
        });
      }
      return { cases };
    },
  });
}

export function sinkValue(): number {
  return sink;
}
