// The conntrack table (src/netfilter/conntrack/table.ts): lookup hit and miss at 10k, 100k, 1M and 3M flows against a Map<string> of the 5-tuple with the key built per lookup, and the total bytes per flow of the whole entry with NAT and timers.
//
// `--flows 10000,100000` chooses the sizes (default 10k, 100k, 1M, 3M; quick: 2k); `--map-max N` the largest size
// that also gets the Map baseline (default 3M: a 3M-flow Map holds about 1.9 GB of heap).
//
// Flows (the same for every structure, both directions indexed): pod sources 10.244.x.y toward a few thousand
// ClusterIPs 10.96.x.y, a third UDP DNS (53), two thirds TCP (80, 443); every flow is DNATed to a pod backend and
// SNATed to a node address and port (NodePort from outside: the reply tuple differs from the inverse of the
// original, and the entry sits in NAT's by-source index). Lookups hit a random flow in a random direction (a
// pre-drawn list of 4096, checked against the expected entry before timing); misses are the same tuples with a
// destination port no flow has. Bytes per flow: heap plus array buffers retained by the Conntrack object with its
// NAT by-source index after the build, over the flows (index, entries, tracker pools, by-source chains; deadlines
// are a column, there is no timer per entry); the Map figure holds the two keys of each flow and nothing else.
//
// History (bench/conntrack-table.ts, replaced by this suite):
// - 2026-11 (one process per structure, Node 20, 2 shared cores, ns per lookup):
//     flows   map-string   table hit / miss   bytes/flow: map | table (index)
//     10k       475-710      24 / 29-58        675 | 277 (105)
//     100k      765-1215     28 / 44-87        651 | 222 (84)
//     1M       1300-4100     70 / 45-165       634 | 177 (67)
//   Open addressing over one Int32Array of 16-byte slots (key words + entry number), grown at half full, entries in
//   typed arrays: 20-60x the string Map. Load 0.75 had the same layout at 100k and 1M (power-of-two sizes) and half
//   the index at 10k at the same hit cost; 0.5 was kept because misses (every new flow, every NAT port candidate)
//   probe 2.5 slots at worst instead of 8.5. Build cost per flow (1-9 us) was first-touch page faults of freshly
//   grown arrays (~9 us per 4 KiB page), not the table.
// - 2026-12 (issue 13): the slot shrank to one word, entry number + direction + an 8-bit tag of the hash (a probe
//   reads the entry's tuple on a tag match: one more cache line per hit, 1/256 per foreign slot); the 56-byte
//   tracker area every entry had became per-protocol pools (TCP 56 bytes, UDP 8, others none); the free list runs
//   through the ids column; NAT's by-source chains went from 16 to 8 bytes per entry (unlinked when the table
//   frees a number instead of recognised stale by id). See docs/performance/conntrack.md for the figures.

import { retainedBytes } from '../../src/cli/bench/measure.ts';
import { defineSuite } from '../../src/cli/bench/suite.ts';
import { Conntrack } from '../../src/netfilter/conntrack/conntrack.ts';
import {
  DIR_REPLY,
  IPS_DST_NAT,
  IPS_DST_NAT_DONE,
  IPS_SEEN_REPLY,
  IPS_SRC_NAT,
  IPS_SRC_NAT_DONE,
} from '../../src/netfilter/conntrack/table.ts';
import { createTuple, type Tuple } from '../../src/netfilter/conntrack/tuple.ts';
import { BySourceIndex } from '../../src/netfilter/nat/bysource.ts';
import { xorshift32 } from '../support/xorshift.ts';

const DEFAULT_FLOWS = [10_000, 100_000, 1_000_000, 3_000_000];
const QUICK_FLOWS = [2_000];
const LOOKUPS = 4096;
const NODE_ADDR = 0xc0a80001; // 192.168.0.1, the SNAT address
const FAR_FUTURE = 1e18;
/** Node ports per backend address: (backend, node port) is a bijection of the flow number. */
const NODE_PORTS = 60_000;

/** Flows as columns; unique by construction (the source address is a bijection of the flow number). */
interface Flows {
  readonly count: number;
  readonly src: Uint32Array;
  readonly dst: Uint32Array;
  readonly sport: Uint16Array;
  readonly dport: Uint16Array;
  readonly proto: Uint8Array;
  /** The DNAT backend (reply source). */
  readonly backend: Uint32Array;
}

function makeFlows(count: number, next: () => number): Flows {
  const flows: Flows = {
    count,
    src: new Uint32Array(count),
    dst: new Uint32Array(count),
    sport: new Uint16Array(count),
    dport: new Uint16Array(count),
    proto: new Uint8Array(count),
    backend: new Uint32Array(count),
  };
  for (let i = 0; i < count; i++) {
    flows.src[i] = (0x0a000000 | (Math.imul(i, 0x9e3779b1) & 0xffffff)) >>> 0; // 10.x.y.z, one per flow
    flows.dst[i] = (0x0a600000 | (next() % 4096)) >>> 0; // 10.96.x.y
    flows.sport[i] = 32768 + (next() % 28232);
    const kind = next() % 3;
    flows.dport[i] = kind === 0 ? 53 : kind === 1 ? 80 : 443;
    flows.proto[i] = kind === 0 ? 17 : 6;
    flows.backend[i] = (0x0b000000 | Math.floor(i / NODE_PORTS)) >>> 0; // 11.x.y.z, pod backends
  }
  return flows;
}

function originalOf(flows: Flows, i: number, out: Tuple): Tuple {
  out.src = flows.src[i]!;
  out.dst = flows.dst[i]!;
  out.protocol = flows.proto[i]!;
  out.srcPort = flows.sport[i]!;
  out.dstPort = flows.dport[i]!;
  return out;
}

/** The reply tuple of a DNATed and SNATed flow: backend -> node address, the node port = the flow's source port. */
function replyOf(flows: Flows, i: number, out: Tuple): Tuple {
  out.src = flows.backend[i]!;
  out.dst = NODE_ADDR;
  out.protocol = flows.proto[i]!;
  out.srcPort = flows.dport[i]!;
  // With the backend, unique per flow (as NAT would find a free port).
  out.dstPort = 1024 + (i % NODE_PORTS);
  return out;
}

/** Lookups as words (src, dst, sport, dport, proto) and the entry each one must find (`flow << 1 | dir`). */
function makeLookups(flows: Flows, next: () => number): { words: Uint32Array; expect: Int32Array } {
  const words = new Uint32Array(LOOKUPS * 5);
  const expect = new Int32Array(LOOKUPS);
  const t = createTuple();
  for (let k = 0; k < LOOKUPS; k++) {
    const i = next() % flows.count;
    const reply = (next() & 1) === 1;
    if (reply) replyOf(flows, i, t);
    else originalOf(flows, i, t);
    words.set([t.src, t.dst, t.srcPort, t.dstPort, t.protocol], k * 5);
    expect[k] = (i << 1) | (reply ? 1 : 0);
  }
  return { words, expect };
}

/** The same lookups with a destination port that no flow has on that side: all misses. */
function missesOf(words: Uint32Array): Uint32Array {
  const misses = Uint32Array.from(words);
  for (let k = 0; k < LOOKUPS; k++) misses[k * 5 + 3] = 9;
  return misses;
}

/** The whole conntrack of `flows`: confirmed entries with DNAT and SNAT, in the by-source index, expiring later. */
function buildConntrack(flows: Flows): { ct: Conntrack; bySource: BySourceIndex } {
  const ct = new Conntrack({ max: flows.count });
  const bySource = new BySourceIndex(ct, () => 0x5eed);
  const table = ct.table;
  const orig = createTuple();
  const reply = createTuple();
  const natDone = IPS_SRC_NAT | IPS_DST_NAT | IPS_SRC_NAT_DONE | IPS_DST_NAT_DONE | IPS_SEEN_REPLY;
  for (let i = 0; i < flows.count; i++) {
    originalOf(flows, i, orig);
    replyOf(flows, i, reply);
    const index = table.alloc(orig, reply, 0);
    if (index !== i) throw new Error(`entry ${i} got number ${index}`);
    table.setStatus(index, natDone);
    bySource.add(index);
    table.setExpiry(index, FAR_FUTURE);
    table.link(index, 3);
  }
  return { ct, bySource };
}

function keyOf(src: number, dst: number, sport: number, dport: number, proto: number): string {
  return `${src},${dst},${sport},${dport},${proto}`;
}

function buildMap(flows: Flows): Map<string, number> {
  const map = new Map<string, number>();
  const t = createTuple();
  for (let i = 0; i < flows.count; i++) {
    originalOf(flows, i, t);
    map.set(keyOf(t.src, t.dst, t.srcPort, t.dstPort, t.protocol), i << 1);
    replyOf(flows, i, t);
    map.set(keyOf(t.src, t.dst, t.srcPort, t.dstPort, t.protocol), (i << 1) | 1);
  }
  return map;
}

function label(flows: number): string {
  return flows >= 1_000_000 ? `${flows / 1_000_000}M` : flows >= 1000 ? `${flows / 1000}k` : String(flows);
}

function parseFlows(arg: string | undefined, quick: boolean): number[] {
  if (arg === undefined) return quick ? QUICK_FLOWS : DEFAULT_FLOWS;
  const sizes = arg.split(',').map(Number);
  for (const size of sizes) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`--flows: not a flow count: ${arg}`);
  }
  return sizes;
}

let sink = 0;

export default defineSuite({
  name: 'conntrack',
  title: 'conntrack lookup hit/miss vs a Map<string> of the 5-tuple, and bytes per flow',
  build(options) {
    const sizes = parseFlows(options.args.flows, options.quick);
    const mapMax = options.args['map-max'] === undefined ? 3_000_000 : Number(options.args['map-max']);
    const cases = [];
    const metrics = [];
    const goals = [];
    for (const size of sizes) {
      const name = label(size);
      options.progress?.(`conntrack: building ${name} flows`);
      const next = xorshift32(0xc0ffee + size);
      const flows = makeFlows(size, next);
      const { words, expect } = makeLookups(flows, next);
      const misses = missesOf(words);
      const built = retainedBytes(() => buildConntrack(flows));
      const { ct } = built.value;
      const table = ct.table;
      const probe = createTuple();
      const find = (w: Uint32Array, k: number): number => {
        const at = k * 5;
        probe.src = w[at]!;
        probe.dst = w[at + 1]!;
        probe.srcPort = w[at + 2]!;
        probe.dstPort = w[at + 3]!;
        probe.protocol = w[at + 4]!;
        return table.lookup(probe, 0);
      };
      for (let k = 0; k < LOOKUPS; k++) {
        if (find(words, k) !== expect[k])
          throw new Error(`conntrack ${name}: lookup ${k} found the wrong entry`);
        if (find(misses, k) !== -1) throw new Error(`conntrack ${name}: miss ${k} found an entry`);
      }
      if (ct.count !== size || ct.tuple(size - 1, DIR_REPLY, createTuple()).dst !== NODE_ADDR) {
        throw new Error(`conntrack ${name}: ${ct.count} entries held`);
      }
      metrics.push({ name: `bytes per flow at ${name}`, value: built.bytes / size, unit: 'bytes/flow' });
      metrics.push({
        name: `index bytes per flow at ${name}`,
        value: (table.indexLoad().slots * 4) / size,
        unit: 'bytes/flow',
      });
      metrics.push({ name: `flows held at ${name}`, value: ct.count, unit: 'flows' });

      let hit = 0;
      let miss = 0;
      cases.push({
        name: `conntrack hit ${name}`,
        ...(size <= mapMax ? { baseline: `map hit ${name}` } : {}),
        fn: () => {
          sink ^= find(words, hit++ & (LOOKUPS - 1));
        },
      });
      cases.push({
        name: `conntrack miss ${name}`,
        ...(size <= mapMax ? { baseline: `map miss ${name}` } : {}),
        fn: () => {
          sink ^= find(misses, miss++ & (LOOKUPS - 1));
        },
      });
      if (size <= mapMax) {
        options.progress?.(`conntrack: building the ${name} Map`);
        const mapBuilt = retainedBytes(() => buildMap(flows));
        const map = mapBuilt.value;
        metrics.push({
          name: `map bytes per flow at ${name}`,
          value: mapBuilt.bytes / size,
          unit: 'bytes/flow',
        });
        const mapFind = (w: Uint32Array, k: number): number => {
          const at = k * 5;
          return map.get(keyOf(w[at]!, w[at + 1]!, w[at + 2]!, w[at + 3]!, w[at + 4]!)) ?? -1;
        };
        for (let k = 0; k < LOOKUPS; k++) {
          if (mapFind(words, k) !== expect[k])
            throw new Error(`map ${name}: lookup ${k} found the wrong entry`);
        }
        let mapHit = 0;
        let mapMiss = 0;
        cases.push({
          name: `map hit ${name}`,
          fn: () => {
            sink ^= mapFind(words, mapHit++ & (LOOKUPS - 1));
          },
        });
        cases.push({
          name: `map miss ${name}`,
          fn: () => {
            sink ^= mapFind(misses, mapMiss++ & (LOOKUPS - 1));
          },
        });
        const hitTarget = size === 100_000 ? 30 : size === 1_000_000 ? 20 : 0;
        if (hitTarget > 0) {
          goals.push({
            name: `conntrack hit >= ${hitTarget}x Map at ${name} flows`,
            value: (results: { result(name: string): { ratio: number | null } }) =>
              results.result(`conntrack hit ${name}`).ratio ?? 0,
            op: '>=' as const,
            target: hitTarget,
          });
          goals.push({
            name: `conntrack miss >= 15x Map at ${name} flows`,
            value: (results: { result(name: string): { ratio: number | null } }) =>
              results.result(`conntrack miss ${name}`).ratio ?? 0,
            op: '>=' as const,
            target: 15,
          });
        }
      }
      if (size >= 1_000_000 || size === sizes[sizes.length - 1]) {
        goals.push({
          name: `<= 128 bytes per flow at ${name} flows (index + entry with NAT and timers)`,
          value: (results: { metric(name: string): number }) => results.metric(`bytes per flow at ${name}`),
          op: '<=' as const,
          target: 128,
        });
      }
      if (size === 3_000_000) {
        goals.push({
          name: '3M flows held in one process',
          value: (results: { metric(name: string): number }) => results.metric('flows held at 3M'),
          op: '>=' as const,
          target: 3_000_000,
        });
      }
    }
    return { cases, metrics, goals };
  },
});

export function sinkValue(): number {
  return sink;
}
