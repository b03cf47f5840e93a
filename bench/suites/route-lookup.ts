// Route lookup (src/net/route-table.ts) at 10, 1k and 100k routes against a linear scan, and the bytes a route costs.
//
// Run: npm run bench -- route-lookup. Goals (issue 13): >= 300x the linear scan at 100k routes, <= 32 bytes per route.
// Bytes per route: the memory a table of 100k routes retains (heap and array buffers after a full GC, the whole
// table with its index and bitmaps) divided by 100k.
//
// History of the choice (bench/route-lookup.ts, replaced by this suite):
// Candidates, all over the same routes and the same lookup addresses:
//   linear        every prefix in typed arrays sorted longest first, scanned in order (the baseline)
//   map-per-len   one Map<network, leaf> per prefix length present, probed longest first
//   open-addr     one open-addressing hash over an Int32Array keyed by (network, length),
//                 probed once per prefix length present in the table, longest first
//   RouteTable    src/net/route-table.ts as shipped: open-addr plus presence bitmaps per
//                 first octet (and first two octets above WIDE_MIN prefixes), so only the
//                 lengths that can match are probed
// Outcome that chose RouteTable (ns per lookup, Node 20, 2 cores, +-30% noise):
//   routes     linear   map-per-len   open-addr   RouteTable
//   10           24        29-41        31-48       24-34   (bench call overhead dominates)
//   1k         1.2-2.2k    270-330      390-550      31-41
//   100k       112-194k    460-780      420-710     ~150
// A side run at 4-64 routes found the bitmap hash no slower than a linear scan, and the /16
// bitmap paying off from ~256 prefixes up (equal at 256, 44 vs 70 ns at 1k).
// Routes follow a BGP-like mix of lengths (mostly /24, then /16-/23, a few others, plus a
// default route); half the lookups hit a random route's prefix, half are random addresses.
//
// Session 7 (issue 13): the table moved from one Route object per route (plus a leaf object, its array and
// Map-counted presence bits: 296 bytes per route) to typed-array rows of 16 bytes, attribute sets shared between
// routes (fib_info), one Int32 index slot per prefix, and presence bits rebuilt after deletes instead of counted.
// Routes here go through four gateways on one device, as a BGP-fed table does.

import { defineSuite } from '../../src/cli/bench/suite.ts';
import { makeRoute, type Route } from '../../src/net/route.ts';
import { INSERT_FLAGS, RouteTable } from '../../src/net/route-table.ts';
import { prefixMask } from '../../src/wire/address.ts';
import { retainedOrRough } from '../support/retained.ts';
import { xorshift32 } from '../support/xorshift.ts';

const LOOKUPS = 4096;

interface Prefix {
  readonly net: number;
  readonly len: number;
}

/** A BGP-like mix: mostly /24, then /16-/23, a few /8-/15 and longer than /24, plus a default route. */
function makePrefixes(count: number, next: () => number): Prefix[] {
  const seen = new Set<string>();
  const prefixes: Prefix[] = [{ net: 0, len: 0 }];
  seen.add('0/0');
  while (prefixes.length < count) {
    const roll = next() % 100;
    const len =
      roll < 55 ? 24 : roll < 85 ? 16 + (next() % 8) : roll < 95 ? 8 + (next() % 8) : 25 + (next() % 8);
    const net = (next() & prefixMask(len)) >>> 0;
    const key = `${net}/${len}`;
    if (seen.has(key)) continue;
    seen.add(key);
    prefixes.push({ net, len });
  }
  return prefixes;
}

/** Half the lookups hit a random route's prefix, half are random addresses. */
function makeAddresses(prefixes: readonly Prefix[], next: () => number): Uint32Array {
  const out = new Uint32Array(LOOKUPS);
  for (let i = 0; i < LOOKUPS; i++) {
    if (i % 2 === 0) {
      const p = prefixes[next() % prefixes.length]!;
      out[i] = (p.net | (next() & ~prefixMask(p.len))) >>> 0;
    } else {
      out[i] = next();
    }
  }
  return out;
}

function routesOf(prefixes: readonly Prefix[]): Route[] {
  return prefixes.map((p, i) =>
    makeRoute({ dstAddr: p.net, prefixLen: p.len, oif: 2, gateway: (0xc0000201 + (i % 4)) >>> 0 }),
  );
}

function tableOf(routes: readonly Route[]): RouteTable {
  const table = new RouteTable(254);
  for (const route of routes) table.insert(route, INSERT_FLAGS.add);
  return table;
}

/** The baseline: every prefix in typed arrays sorted longest first, scanned in order. */
class LinearScan {
  private readonly nets: Int32Array;
  private readonly masks: Int32Array;
  private readonly lens: Int32Array;
  constructor(prefixes: readonly Prefix[]) {
    const sorted = [...prefixes].sort((a, b) => b.len - a.len);
    this.nets = Int32Array.from(sorted, (p) => p.net | 0);
    this.masks = Int32Array.from(sorted, (p) => prefixMask(p.len) | 0);
    this.lens = Int32Array.from(sorted, (p) => p.len);
  }
  /** The matching prefix length, -1 for none. */
  lookup(addr: number): number {
    const nets = this.nets;
    const masks = this.masks;
    const a = addr | 0;
    for (let i = 0; i < nets.length; i++) if ((a & masks[i]!) === nets[i]) return this.lens[i]!;
    return -1;
  }
}

function label(size: number): string {
  return size >= 1000 ? `${size / 1000}k` : String(size);
}

export default defineSuite({
  name: 'route-lookup',
  title: 'longest-prefix match at 10, 1k and 100k routes against a linear scan; bytes per route',
  build(options) {
    const sizes = options.quick ? [10, 1_000] : [10, 1_000, 100_000];
    const memorySize = options.quick ? 1_000 : 100_000;
    const cases = [];
    const sink = new Int32Array(1);
    for (const size of sizes) {
      const next = xorshift32(0x5eed + size);
      const prefixes = makePrefixes(size, next);
      const addrs = makeAddresses(prefixes, next);
      const table = tableOf(routesOf(prefixes));
      const linear = new LinearScan(prefixes);
      for (const addr of addrs) {
        if ((table.lookup(addr, 0, 0)?.prefixLen ?? -1) !== linear.lookup(addr))
          throw new Error(`route-lookup: the table and the linear scan disagree at ${addr}`);
      }
      let i = 0;
      let j = 0;
      cases.push({
        name: `linear ${label(size)}`,
        fn: () => {
          sink[0] ^= linear.lookup(addrs[i++ & (LOOKUPS - 1)]!);
        },
      });
      cases.push({
        name: `RouteTable ${label(size)}`,
        baseline: `linear ${label(size)}`,
        fn: () => {
          sink[0] ^= table.lookup(addrs[j++ & (LOOKUPS - 1)]!, 0, 0)?.prefixLen ?? -1;
        },
      });
    }
    const routes = routesOf(makePrefixes(memorySize, xorshift32(0xb17e)));
    const { bytes, value } = retainedOrRough(() => tableOf(routes));
    if (value.size !== memorySize) throw new Error('route-lookup: routes were refused');
    const metrics = [
      { name: `bytes per route at ${label(memorySize)}`, value: bytes / memorySize, unit: 'bytes/route' },
    ];
    const top = label(sizes[sizes.length - 1]!);
    const goals = [
      {
        name: `route lookup >= 300x linear at ${top} routes`,
        value: (r: { result(name: string): { ratio: number | null } }) =>
          r.result(`RouteTable ${top}`).ratio ?? 0,
        op: '>=' as const,
        target: 300,
      },
      {
        name: `<= 32 bytes per route at ${label(memorySize)}`,
        value: (r: { metric(name: string): number }) => r.metric(`bytes per route at ${label(memorySize)}`),
        op: '<=' as const,
        target: 32,
      },
    ];
    return { cases, metrics, goals };
  },
});
