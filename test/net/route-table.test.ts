import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeRoute, type Route, type RouteSpec, RT_SCOPE_HOST, RT_SCOPE_LINK } from '../../src/net/route.ts';
import { INSERT_FLAGS, RouteTable, WIDE_MIN } from '../../src/net/route-table.ts';
import { formatIpv4, type Ipv4Addr, parseIpv4, prefixMask } from '../../src/wire/address.ts';

const ip = (text: string): Ipv4Addr => parseIpv4(text)!;

/** `10.0.0.0/8 dev 2 metric 5` style, for readable expectations. */
function describeRoute(route: Route | undefined): string {
  if (route === undefined) return 'none';
  let text = `${formatIpv4(route.dstAddr)}/${route.prefixLen}`;
  if (route.type !== 'unicast') text = `${route.type} ${text}`;
  if (route.gateway !== undefined) text += ` via ${formatIpv4(route.gateway)}`;
  if (route.oif !== undefined) text += ` dev ${route.oif}`;
  if (route.metric !== 0) text += ` metric ${route.metric}`;
  return text;
}

/** A route through device 2 unless `oif` says otherwise (`oif: undefined`: no device). */
function route(
  prefix: string,
  extra: Omit<RouteSpec, 'dstAddr' | 'prefixLen' | 'oif'> & { readonly oif?: number | undefined } = {},
): Route {
  const [addr, len] = prefix.split('/') as [string, string];
  const { oif, ...rest } = extra;
  const device = 'oif' in extra ? (oif === undefined ? {} : { oif }) : { oif: 2 };
  return makeRoute({ dstAddr: ip(addr), prefixLen: Number(len), ...device, ...rest });
}

function tableOf(...routes: Route[]): RouteTable {
  const table = new RouteTable(254);
  for (const r of routes) expect(table.insert(r, INSERT_FLAGS.append)).toMatchObject({ ok: true });
  return table;
}

describe('longest-prefix match', () => {
  const table = tableOf(
    route('0.0.0.0/0', { oif: 1 }),
    route('10.0.0.0/8', { oif: 2 }),
    route('10.244.0.0/16', { oif: 3 }),
    route('10.244.1.0/24', { oif: 4 }),
    route('10.244.1.7/32', { oif: 5 }),
    route('10.244.1.128/25', { oif: 6 }),
    route('192.168.0.0/16', { oif: 7 }),
    route('255.255.255.255/32', { oif: 8 }),
  );
  const cases: [string, string][] = [
    ['10.244.1.7', '10.244.1.7/32 dev 5'],
    ['10.244.1.8', '10.244.1.0/24 dev 4'],
    ['10.244.1.200', '10.244.1.128/25 dev 6'],
    ['10.244.2.1', '10.244.0.0/16 dev 3'],
    ['10.1.2.3', '10.0.0.0/8 dev 2'],
    ['11.0.0.1', '0.0.0.0/0 dev 1'],
    ['192.168.255.255', '192.168.0.0/16 dev 7'],
    ['255.255.255.255', '255.255.255.255/32 dev 8'],
    ['0.0.0.0', '0.0.0.0/0 dev 1'],
  ];
  for (const [addr, expected] of cases) {
    it(`${addr} -> ${expected}`, () => {
      expect(describeRoute(table.lookup(ip(addr), 0, 0))).toBe(expected);
    });
  }

  it('misses without a default route', () => {
    expect(tableOf(route('10.0.0.0/8')).lookup(ip('11.0.0.1'), 0, 0)).toBeUndefined();
  });

  it('backtracks to a shorter prefix when the longest one only has routes through another device', () => {
    expect(describeRoute(table.lookup(ip('10.244.1.8'), 3, 0))).toBe('10.244.0.0/16 dev 3');
    expect(describeRoute(table.lookup(ip('10.244.1.8'), 1, 0))).toBe('0.0.0.0/0 dev 1');
    expect(table.lookup(ip('10.244.1.8'), 99, 0)).toBeUndefined();
  });

  it('backtracks past routes whose scope is narrower than asked (gateway resolution uses scope link)', () => {
    const t = tableOf(route('0.0.0.0/0', { gateway: ip('172.18.0.1') }), route('172.18.0.0/16'));
    expect(describeRoute(t.lookup(ip('172.18.0.9'), 0, RT_SCOPE_LINK))).toBe('172.18.0.0/16 dev 2');
    expect(t.lookup(ip('8.8.8.8'), 0, RT_SCOPE_LINK)).toBeUndefined();
    expect(t.lookup(ip('172.18.0.9'), 0, RT_SCOPE_HOST)).toBeUndefined();
  });

  it('returns a reject route even when an oif is required (its type decides before the nexthop)', () => {
    const t = tableOf(
      route('10.0.0.0/8', { type: 'unreachable', oif: undefined, scope: 0 }),
      route('0.0.0.0/0'),
    );
    expect(describeRoute(t.lookup(ip('10.1.1.1'), 2, 0))).toBe('unreachable 10.0.0.0/8');
  });
});

describe('routes to the same prefix', () => {
  it('lowest metric wins whatever the insertion order', () => {
    const t = tableOf(
      route('10.0.0.0/8', { metric: 100, oif: 3 }),
      route('10.0.0.0/8', { metric: 5, oif: 4 }),
    );
    expect(describeRoute(t.lookup(ip('10.1.1.1'), 0, 0))).toBe('10.0.0.0/8 dev 4 metric 5');
    expect(t.routesOf(ip('10.0.0.0'), 8).map(describeRoute)).toEqual([
      '10.0.0.0/8 dev 4 metric 5',
      '10.0.0.0/8 dev 3 metric 100',
    ]);
  });

  it('equal metrics: append keeps the first, prepend puts the new one first', () => {
    const t = new RouteTable(254);
    t.insert(route('10.0.0.0/8', { gateway: ip('1.1.1.1') }), INSERT_FLAGS.add);
    t.insert(route('10.0.0.0/8', { gateway: ip('2.2.2.2') }), INSERT_FLAGS.append);
    expect(describeRoute(t.lookup(ip('10.0.0.1'), 0, 0))).toBe('10.0.0.0/8 via 1.1.1.1 dev 2');
    t.insert(route('10.0.0.0/8', { gateway: ip('3.3.3.3') }), INSERT_FLAGS.prepend);
    expect(describeRoute(t.lookup(ip('10.0.0.1'), 0, 0))).toBe('10.0.0.0/8 via 3.3.3.3 dev 2');
    expect(t.routesOf(ip('10.0.0.0'), 8).map((r) => formatIpv4(r.gateway!))).toEqual([
      '3.3.3.3',
      '1.1.1.1',
      '2.2.2.2',
    ]);
  });

  it('a tie broken by the first usable route: the oif filter skips to the next one', () => {
    const t = tableOf(route('10.0.0.0/8', { oif: 3 }), route('10.0.0.0/8', { oif: 4, metric: 1 }));
    expect(describeRoute(t.lookup(ip('10.0.0.1'), 4, 0))).toBe('10.0.0.0/8 dev 4 metric 1');
  });
});

describe('insert flags (fib_table_insert)', () => {
  const base = route('10.0.0.0/8', { gateway: ip('1.1.1.1') });
  const other = route('10.0.0.0/8', { gateway: ip('2.2.2.2') });

  it('add: EEXIST for the same prefix and metric, even with another gateway or type', () => {
    const t = tableOf(base);
    expect(t.insert(other, INSERT_FLAGS.add)).toMatchObject({ ok: false, errno: 'EEXIST' });
    expect(
      t.insert(route('10.0.0.0/8', { type: 'blackhole', oif: undefined }), INSERT_FLAGS.add),
    ).toMatchObject({
      ok: false,
      errno: 'EEXIST',
    });
    expect(t.insert(route('10.0.0.0/8', { metric: 1 }), INSERT_FLAGS.add)).toMatchObject({ ok: true });
    expect(t.size).toBe(2);
  });

  it('replace swaps the first route of that metric, or creates one', () => {
    const t = tableOf(base);
    expect(t.insert(other, INSERT_FLAGS.replace)).toEqual({ ok: true, replaced: base });
    expect(t.routesOf(ip('10.0.0.0'), 8)).toEqual([other]);
    expect(t.insert(route('11.0.0.0/8'), INSERT_FLAGS.replace)).toEqual({ ok: true, replaced: undefined });
    expect(t.size).toBe(2);
  });

  it('replace with an identical route is a no-op when it is first, EEXIST when it is not', () => {
    const t = tableOf(base, other);
    expect(t.insert(base, INSERT_FLAGS.replace)).toEqual({ ok: true, replaced: undefined });
    expect(t.insert(other, INSERT_FLAGS.replace)).toMatchObject({ ok: false, errno: 'EEXIST' });
  });

  it('change needs an existing route (ENOENT), append and prepend refuse exact duplicates', () => {
    const t = tableOf(base);
    expect(t.insert(route('11.0.0.0/8'), INSERT_FLAGS.change)).toMatchObject({ ok: false, errno: 'ENOENT' });
    expect(t.insert(base, INSERT_FLAGS.append)).toMatchObject({ ok: false, errno: 'EEXIST' });
    expect(t.insert(base, INSERT_FLAGS.prepend)).toMatchObject({ ok: false, errno: 'EEXIST' });
    expect(t.insert(other, INSERT_FLAGS.change)).toMatchObject({ ok: true, replaced: base });
  });

  it('refuses host bits and bad lengths', () => {
    const t = new RouteTable(254);
    expect(t.insert(makeRoute({ dstAddr: ip('10.0.0.1'), prefixLen: 8, oif: 2 }), INSERT_FLAGS.add)).toEqual({
      ok: false,
      errno: 'EINVAL',
      extack: 'Invalid prefix for given prefix length',
    });
    expect(t.insert(makeRoute({ dstAddr: 0, prefixLen: 33, oif: 2 }), INSERT_FLAGS.add)).toMatchObject({
      errno: 'EINVAL',
      extack: 'Invalid prefix length',
    });
  });
});

describe('delete (fib_table_delete)', () => {
  it('ESRCH for a missing prefix or when no route matches the selector', () => {
    const t = tableOf(route('10.0.0.0/8', { gateway: ip('1.1.1.1') }));
    expect(t.delete({ dstAddr: ip('11.0.0.0'), prefixLen: 8 })).toMatchObject({ ok: false, errno: 'ESRCH' });
    expect(t.delete({ dstAddr: ip('10.0.0.0'), prefixLen: 8, gateway: ip('9.9.9.9') })).toMatchObject({
      errno: 'ESRCH',
    });
    expect(t.delete({ dstAddr: ip('10.0.0.0'), prefixLen: 8, type: 'unreachable' })).toMatchObject({
      errno: 'ESRCH',
    });
    expect(t.delete({ dstAddr: ip('10.0.0.0'), prefixLen: 8, metric: 3 })).toMatchObject({ errno: 'ESRCH' });
    expect(t.size).toBe(1);
  });

  it('without a metric the first route of the prefix goes, whatever its metric', () => {
    const t = tableOf(route('10.0.0.0/8', { metric: 5, oif: 3 }), route('10.0.0.0/8', { metric: 7, oif: 4 }));
    expect(t.delete({ dstAddr: ip('10.0.0.0'), prefixLen: 8 })).toMatchObject({
      ok: true,
      deleted: { oif: 3 },
    });
    expect(describeRoute(t.lookup(ip('10.0.0.1'), 0, 0))).toBe('10.0.0.0/8 dev 4 metric 7');
    expect(t.delete({ dstAddr: ip('10.0.0.0'), prefixLen: 8, oif: 4 })).toMatchObject({ ok: true });
    expect(t.lookup(ip('10.0.0.1'), 0, 0)).toBeUndefined();
    expect(t.size).toBe(0);
  });
});

it('dumps in network order, longer prefixes first within one network', () => {
  const t = tableOf(
    route('10.0.0.0/8'),
    route('0.0.0.0/0'),
    route('0.0.0.0/8'),
    route('192.168.0.0/16'),
    route('10.0.0.0/16'),
    route('10.0.0.0/16', { metric: 1 }),
  );
  expect(t.routes().map(describeRoute)).toEqual([
    '0.0.0.0/8 dev 2',
    '0.0.0.0/0 dev 2',
    '10.0.0.0/16 dev 2',
    '10.0.0.0/16 dev 2 metric 1',
    '10.0.0.0/8 dev 2',
    '192.168.0.0/16 dev 2',
  ]);
});

describe('agrees with a brute-force longest-prefix match', () => {
  // Reference: every route in one list; the answer is the longest matching prefix's first
  // route in kernel order (metric, then insertion), as documented for fib_table_lookup.
  function reference(routes: readonly Route[], addr: number, oif: number): Route | undefined {
    let best: Route | undefined;
    for (const r of routes) {
      if (((addr ^ r.dstAddr) & prefixMask(r.prefixLen)) !== 0) continue;
      if (oif !== 0 && r.oif !== oif) continue;
      if (
        best === undefined ||
        r.prefixLen > best.prefixLen ||
        (r.prefixLen === best.prefixLen && r.metric < best.metric)
      ) {
        best = r;
      }
    }
    return best;
  }

  const arbRoute = fc
    .record({
      net: fc.integer({ min: 0, max: 0xffff_ffff }),
      len: fc.oneof(fc.constantFrom(0, 8, 16, 24, 32), fc.integer({ min: 0, max: 32 })),
      oif: fc.integer({ min: 1, max: 3 }),
      metric: fc.integer({ min: 0, max: 2 }),
    })
    .map(({ net, len, oif, metric }) =>
      makeRoute({ dstAddr: (net & prefixMask(len)) >>> 0, prefixLen: len, oif, metric }),
    );

  it('through inserts and deletes, below and above the wide-index threshold', () => {
    fc.assert(
      fc.property(
        fc.array(arbRoute, { minLength: 1, maxLength: WIDE_MIN + 100, size: 'max' }),
        fc.array(fc.nat(), { maxLength: WIDE_MIN + 50, size: 'max' }),
        fc.array(fc.integer({ min: 0, max: 0xffff_ffff }), { minLength: 1, maxLength: 40 }),
        (routes, deletions, probes) => {
          const table = new RouteTable(254);
          const kept: Route[] = [];
          for (const r of routes) {
            if (table.insert(r, INSERT_FLAGS.add).ok) kept.push(r);
          }
          const check = (): void => {
            for (const probe of [...probes, ...kept.slice(0, 20).map((r) => r.dstAddr)]) {
              for (const oif of [0, 2]) {
                const expected = reference(kept, probe, oif);
                expect(describeRoute(table.lookup(probe, oif, 0))).toBe(describeRoute(expected));
              }
            }
          };
          check();
          for (const pick of deletions) {
            if (kept.length === 0) break;
            const [victim] = kept.splice(pick % kept.length, 1);
            const result = table.delete({
              dstAddr: victim!.dstAddr,
              prefixLen: victim!.prefixLen,
              metric: victim!.metric,
              oif: victim!.oif!,
            });
            expect(result.ok).toBe(true);
          }
          expect(table.size).toBe(kept.length);
          check();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('flushes by predicate (deleteWhere) like a filter over the dump, through reinserts into freed rows', () => {
    fc.assert(
      fc.property(
        fc.array(arbRoute, { minLength: 1, maxLength: WIDE_MIN + 100, size: 'max' }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(arbRoute, { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 0xffff_ffff }), { minLength: 1, maxLength: 40 }),
        (routes, flushed, more, probes) => {
          const table = new RouteTable(254);
          for (const r of routes) table.insert(r, INSERT_FLAGS.append);
          const before = table.routes();
          const removed = table.deleteWhere((r) => r.oif === flushed);
          const kept = before.filter((r) => r.oif !== flushed);
          expect(table.routes()).toEqual(kept);
          expect(removed.length).toBe(before.length - kept.length);
          expect(removed.every((r) => r.oif === flushed)).toBe(true);
          for (const r of more) if (table.insert(r, INSERT_FLAGS.append).ok) kept.push(r);
          expect(table.size).toBe(kept.length);
          for (const probe of probes) {
            for (const oif of [0, 2]) {
              expect(describeRoute(table.lookup(probe, oif, 0))).toBe(
                describeRoute(reference(kept, probe, oif)),
              );
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('compact rows', () => {
  it('returns one reused record from lookups and fresh objects from dumps and changes', () => {
    const t = tableOf(
      route('10.0.0.0/8', { oif: 2 }),
      route('10.1.0.0/16', { oif: 3, metric: 4, mtu: 1400 }),
    );
    const first = t.lookup(ip('10.1.2.3'), 0, 0);
    expect(first).toEqual(route('10.1.0.0/16', { oif: 3, metric: 4, mtu: 1400 }));
    const second = t.lookup(ip('10.2.0.1'), 0, 0);
    expect(second).toBe(first);
    expect(describeRoute(second)).toBe('10.0.0.0/8 dev 2');
    const dump = t.routes();
    expect(dump[0]).not.toBe(dump[1]);
    expect(dump).toEqual([
      route('10.0.0.0/8', { oif: 2 }),
      route('10.1.0.0/16', { oif: 3, metric: 4, mtu: 1400 }),
    ]);
  });

  it('keeps every field of a route, absent ones absent', () => {
    const full = makeRoute({
      dstAddr: ip('192.0.2.0'),
      prefixLen: 24,
      oif: 7,
      gateway: ip('198.51.100.1'),
      onlink: true,
      prefSrc: ip('203.0.113.9'),
      scope: 200,
      protocol: 186,
      metric: 0xffff_fffe,
      mtu: 9000,
      mtuLock: true,
      congctl: 'reno',
      congctlLock: true,
    });
    const bare = makeRoute({ dstAddr: ip('0.0.0.0'), prefixLen: 0, type: 'unreachable' });
    const t = tableOf(full, bare);
    expect(t.routes()).toEqual([bare, full].sort((a, b) => a.dstAddr - b.dstAddr));
    expect(Object.keys(t.routes()[0]!)).toEqual(Object.keys(full));
  });
});
