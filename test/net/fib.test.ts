import { describe, expect, it } from 'vitest';
import {
  addInterfaceAddressRoutes,
  Fib,
  type FibResult,
  newFlowKey,
  routeInput,
  routeOutput,
} from '../../src/net/fib.ts';
import {
  LOOPBACK_IFINDEX,
  makeRoute,
  type RouteSpec,
  RT_TABLE_DEFAULT,
  RT_TABLE_LOCAL,
  RT_TABLE_MAIN,
} from '../../src/net/route.ts';
import { INSERT_FLAGS } from '../../src/net/route-table.ts';
import { formatIpv4 } from '../../src/wire/address.ts';
import { IFINDEX, ip, testDevices, testFib } from '../tools/ip/namespace.ts';

function addRoute(fib: Fib, spec: RouteSpec): void {
  const result = fib.addRoute(makeRoute(spec), INSERT_FLAGS.add);
  if (!result.ok) throw new Error(`${result.errno} ${result.extack ?? ''}`);
}

/** `main 10.244.2.0/24 via 172.18.0.3` or `EACCES`, for table-driven expectations. */
function summary(result: FibResult): string {
  if (!result.ok) return result.error;
  const r = result.route;
  const via = r.gateway !== undefined ? ` via ${formatIpv4(r.gateway)}` : '';
  return `${result.table} ${r.type} ${formatIpv4(r.dstAddr)}/${r.prefixLen}${via}`;
}

function lookup(fib: Fib, dst: string, init: Parameters<typeof newFlowKey>[0] = {}): string {
  return summary(fib.lookup(newFlowKey({ dstAddr: ip(dst), iif: LOOPBACK_IFINDEX, ...init })));
}

/** A node of the lesson: pod CIDR on cni0, node network on eth0, default route. */
function nodeFib(): Fib {
  const fib = testFib();
  addRoute(fib, { dstAddr: 0, prefixLen: 0, gateway: ip('172.18.0.1'), oif: IFINDEX.eth0 });
  addRoute(fib, { dstAddr: ip('10.244.2.0'), prefixLen: 24, gateway: ip('172.18.0.3') });
  return fib;
}

describe('lookup without custom rules (the merged local+main fast path)', () => {
  const fib = nodeFib();
  const cases: [string, string][] = [
    ['10.244.2.7', '254 unicast 10.244.2.0/24 via 172.18.0.3'],
    ['10.244.1.5', '254 unicast 10.244.1.0/24'],
    ['10.244.1.1', '254 local 10.244.1.1/32'],
    ['10.244.1.255', '254 broadcast 10.244.1.255/32'],
    ['127.3.4.5', '254 local 127.0.0.0/8'],
    ['8.8.8.8', '254 unicast 0.0.0.0/0 via 172.18.0.1'],
  ];
  for (const [dst, expected] of cases) {
    it(`${dst} -> ${expected} (local-table hits are reported as main)`, () => {
      expect(lookup(fib, dst)).toBe(expected);
      expect(fib.hasCustomRules).toBe(false);
    });
  }

  it('reuses one result object: no allocation per lookup', () => {
    const key = newFlowKey({ dstAddr: ip('10.244.2.7') });
    const first = fib.lookup(key);
    key.dstAddr = ip('10.244.1.5');
    expect(fib.lookup(key)).toBe(first);
  });

  it('a longer main prefix beats a shorter local one, as in the merged trie', () => {
    const merged = testFib();
    addRoute(merged, { dstAddr: ip('127.0.5.0'), prefixLen: 24, oif: IFINDEX.eth0 });
    expect(lookup(merged, '127.0.5.1')).toBe('254 unicast 127.0.5.0/24');
  });

  it('falls back to the default table whenever main does not succeed', () => {
    const f = nodeFib();
    addRoute(f, { dstAddr: ip('10.9.0.0'), prefixLen: 16, type: 'unreachable' });
    expect(lookup(f, '10.9.0.1')).toBe('EHOSTUNREACH');
    addRoute(f, { table: RT_TABLE_DEFAULT, dstAddr: ip('10.9.0.0'), prefixLen: 16, oif: IFINDEX.cni0 });
    expect(lookup(f, '10.9.0.1')).toBe('253 unicast 10.9.0.0/16');
  });
});

describe('each route type', () => {
  const fib = nodeFib();
  for (const [type, dst] of [
    ['blackhole', '10.1.0.0'],
    ['unreachable', '10.2.0.0'],
    ['prohibit', '10.3.0.0'],
    ['throw', '10.4.0.0'],
  ] as const) {
    addRoute(fib, { dstAddr: ip(dst), prefixLen: 16, type });
  }
  const cases: [string, string][] = [
    ['10.1.2.3', 'EINVAL'],
    ['10.2.2.3', 'EHOSTUNREACH'],
    ['10.3.2.3', 'EACCES'],
    ['10.4.2.3', 'ENETUNREACH'],
  ];
  for (const [dst, expected] of cases) {
    it(`${dst} -> ${expected}`, () => {
      const result = fib.lookup(newFlowKey({ dstAddr: ip(dst) }));
      expect(summary(result)).toBe(expected);
    });
  }

  it('a miss reports the reject route that ended the lookup', () => {
    const result = fib.lookup(newFlowKey({ dstAddr: ip('10.3.2.3') }));
    expect(result).toMatchObject({ ok: false, error: 'EACCES', route: { type: 'prohibit', prefixLen: 16 } });
  });
});

describe('policy rules', () => {
  /** The mark-based split the incident is about: marked traffic uses table 100. */
  function markedFib(): Fib {
    const fib = nodeFib();
    addRoute(fib, { table: 100, dstAddr: 0, prefixLen: 0, gateway: ip('172.18.0.254'), oif: IFINDEX.eth0 });
    const rule = fib.addRule(
      { action: 'table', table: 100, fwmark: 0x4000, fwmask: 0x4000 },
      testDevices().indexOf,
    );
    expect(rule.ok).toBe(true);
    return fib;
  }

  it('fwmark VALUE/MASK sends matching marks to another table', () => {
    const fib = markedFib();
    expect(fib.hasCustomRules).toBe(true);
    expect(lookup(fib, '8.8.8.8', { mark: 0x4000 })).toBe('100 unicast 0.0.0.0/0 via 172.18.0.254');
    expect(lookup(fib, '8.8.8.8', { mark: 0xc001 })).toBe('100 unicast 0.0.0.0/0 via 172.18.0.254');
    expect(lookup(fib, '8.8.8.8', { mark: 0x8000 })).toBe('254 unicast 0.0.0.0/0 via 172.18.0.1');
    expect(lookup(fib, '8.8.8.8')).toBe('254 unicast 0.0.0.0/0 via 172.18.0.1');
  });

  it('the local rule at priority 0 wins before any table rule, and local hits now say table local', () => {
    const fib = markedFib();
    expect(lookup(fib, '10.244.1.1', { mark: 0x4000 })).toBe(`${RT_TABLE_LOCAL} local 10.244.1.1/32`);
    expect(fib.lookup(newFlowKey({ dstAddr: ip('10.244.1.1') }))).toMatchObject({
      ok: true,
      rule: { priority: 0 },
    });
  });

  it('a missing table or a miss continues to the next rule', () => {
    const fib = nodeFib();
    fib.addRule({ action: 'table', table: 300, priority: 10 }, testDevices().indexOf);
    addRoute(fib, { table: 200, dstAddr: ip('192.0.2.0'), prefixLen: 24, oif: IFINDEX.cni0 });
    fib.addRule({ action: 'table', table: 200, priority: 20 }, testDevices().indexOf);
    expect(lookup(fib, '8.8.8.8')).toBe('254 unicast 0.0.0.0/0 via 172.18.0.1');
    expect(lookup(fib, '192.0.2.9')).toBe('200 unicast 192.0.2.0/24');
  });

  it('a throw route continues with the next rule', () => {
    const fib = nodeFib();
    addRoute(fib, { table: 100, dstAddr: ip('10.0.0.0'), prefixLen: 8, type: 'throw' });
    addRoute(fib, { table: 100, dstAddr: 0, prefixLen: 0, oif: IFINDEX.cni0 });
    fib.addRule({ action: 'table', table: 100, priority: 10 }, testDevices().indexOf);
    expect(lookup(fib, '10.244.2.7')).toBe('254 unicast 10.244.2.0/24 via 172.18.0.3');
    expect(lookup(fib, '11.0.0.1')).toBe('100 unicast 0.0.0.0/0');
  });

  it('rule actions: unreachable ENETUNREACH, prohibit EACCES, blackhole EINVAL, nop continues', () => {
    const fib = nodeFib();
    const indexOf = testDevices().indexOf;
    fib.addRule({ action: 'unreachable', dstAddr: ip('1.2.3.5'), dstLen: 32 }, indexOf);
    fib.addRule({ action: 'prohibit', dstAddr: ip('1.2.3.6'), dstLen: 32 }, indexOf);
    fib.addRule({ action: 'blackhole', dstAddr: ip('1.2.3.4'), dstLen: 32 }, indexOf);
    fib.addRule({ action: 'nop', priority: 5 }, indexOf);
    expect(lookup(fib, '1.2.3.5')).toBe('ENETUNREACH');
    expect(lookup(fib, '1.2.3.6')).toBe('EACCES');
    expect(lookup(fib, '1.2.3.4')).toBe('EINVAL');
    expect(lookup(fib, '1.2.3.7')).toBe('254 unicast 0.0.0.0/0 via 172.18.0.1');
  });

  it('no rule left: ENETUNREACH', () => {
    const fib = nodeFib();
    for (const priority of [0, 32766, 32767]) fib.deleteRule({ priority });
    expect(fib.rules.all).toHaveLength(0);
    expect(lookup(fib, '10.244.1.1')).toBe('ENETUNREACH');
  });

  it('`iif lo` matches locally generated flows (their iif is the loopback)', () => {
    const fib = nodeFib();
    addRoute(fib, { table: 7, dstAddr: 0, prefixLen: 0, oif: IFINDEX.cni0 });
    fib.addRule({ action: 'table', table: 7, iifName: 'lo', priority: 5 }, testDevices().indexOf);
    expect(lookup(fib, '8.8.8.8')).toBe('7 unicast 0.0.0.0/0');
    expect(lookup(fib, '8.8.8.8', { iif: IFINDEX.eth0, srcAddr: ip('1.1.1.1') })).toBe(
      '254 unicast 0.0.0.0/0 via 172.18.0.1',
    );
  });
});

describe('route changes (fib_create_info and fib_check_nh)', () => {
  const cases: [string, RouteSpec, string][] = [
    [
      'gateway not on a link',
      { dstAddr: ip('10.0.0.0'), prefixLen: 24, gateway: ip('10.99.0.1') },
      'Nexthop has invalid gateway',
    ],
    [
      'gateway behind another device',
      { dstAddr: ip('10.0.0.0'), prefixLen: 24, gateway: ip('10.244.1.9'), oif: IFINDEX.eth0 },
      'Nexthop has invalid gateway',
    ],
    [
      'prefsrc not ours',
      { dstAddr: ip('10.0.0.0'), prefixLen: 24, oif: IFINDEX.eth0, prefSrc: ip('9.9.9.9') },
      'Invalid prefsrc address',
    ],
    [
      'reject route with a device',
      { dstAddr: ip('10.0.0.0'), prefixLen: 24, type: 'blackhole', oif: IFINDEX.eth0 },
      'Gateway, device and multipath can not be specified for this route type',
    ],
    [
      'local route of link scope',
      { dstAddr: ip('10.0.0.1'), prefixLen: 32, type: 'local', oif: IFINDEX.eth0, scope: 253 },
      'Invalid scope',
    ],
    [
      'onlink gateway that is our own address',
      { dstAddr: ip('10.0.0.0'), prefixLen: 24, gateway: ip('172.18.0.2'), oif: IFINDEX.eth0, onlink: true },
      'Nexthop has invalid gateway',
    ],
  ];
  for (const [name, spec, extack] of cases) {
    it(`${name}: ${extack}, nothing changes`, () => {
      const fib = nodeFib();
      const before = fib.tablesInDumpOrder().map((t) => t.routes());
      expect(fib.addRoute(makeRoute(spec), INSERT_FLAGS.add)).toMatchObject({ ok: false, extack });
      expect(fib.tablesInDumpOrder().map((t) => t.routes())).toEqual(before);
    });
  }

  it('no device and no gateway: ENODEV without a message', () => {
    expect(
      nodeFib().addRoute(makeRoute({ dstAddr: ip('10.0.0.0'), prefixLen: 24 }), INSERT_FLAGS.add),
    ).toEqual({
      ok: false,
      errno: 'ENODEV',
      extack: undefined,
    });
  });

  it('a gateway route learns its device from the connected route', () => {
    const fib = nodeFib();
    const result = fib.addRoute(
      makeRoute({ dstAddr: ip('10.6.0.0'), prefixLen: 16, gateway: ip('172.18.0.7') }),
      INSERT_FLAGS.add,
    );
    expect(result).toMatchObject({ ok: true, route: { oif: IFINDEX.eth0 } });
  });

  it('a failed insert into a new table leaves no table behind', () => {
    const fib = nodeFib();
    fib.addRoute(
      makeRoute({ table: 60, dstAddr: ip('10.0.0.0'), prefixLen: 24, gateway: ip('10.99.0.1') }),
      INSERT_FLAGS.add,
    );
    expect(fib.table(60)).toBeUndefined();
  });

  it('deleting from a missing table: ESRCH "FIB table does not exist"', () => {
    expect(nodeFib().deleteRoute(51, { dstAddr: 0, prefixLen: 0 })).toEqual({
      ok: false,
      errno: 'ESRCH',
      extack: 'FIB table does not exist',
    });
  });

  it('a vanished device takes its routes with it and detaches rules', () => {
    const fib = nodeFib();
    fib.addRule({ action: 'table', table: RT_TABLE_MAIN, iifName: 'cni0' }, testDevices().indexOf);
    fib.detachDevice(IFINDEX.cni0);
    expect(lookup(fib, '10.244.1.5')).toBe('254 unicast 0.0.0.0/0 via 172.18.0.1');
    expect(fib.rules.all.find((r) => r.iifName === 'cni0')?.iifIndex).toBe(-1);
  });
});

describe('fib_add_ifaddr', () => {
  it('adds local, prefix and broadcast routes with protocol kernel and the address as src', () => {
    const fib = new Fib();
    const added = addInterfaceAddressRoutes(fib, { ifindex: 3, local: ip('172.18.0.2'), prefixLen: 16 });
    expect(
      added.map((r) => [r.table, r.type, formatIpv4(r.dstAddr), r.prefixLen, r.scope, r.protocol]),
    ).toEqual([
      [RT_TABLE_LOCAL, 'local', '172.18.0.2', 32, 254, 2],
      [RT_TABLE_MAIN, 'unicast', '172.18.0.0', 16, 253, 2],
      [RT_TABLE_LOCAL, 'broadcast', '172.18.255.255', 32, 253, 2],
    ]);
    expect(added.every((r) => r.prefSrc === ip('172.18.0.2'))).toBe(true);
  });

  it('a /31 and /32 get no broadcast route, a /32 no prefix route', () => {
    const fib = new Fib();
    expect(addInterfaceAddressRoutes(fib, { ifindex: 3, local: ip('10.0.0.1'), prefixLen: 31 })).toHaveLength(
      2,
    );
    expect(addInterfaceAddressRoutes(fib, { ifindex: 4, local: ip('10.9.9.9'), prefixLen: 32 })).toHaveLength(
      1,
    );
  });
});

describe('route resolution as `ip route get` shows it', () => {
  const devices = testDevices();
  it('output: source from the device of the route, local delivery through lo', () => {
    const fib = nodeFib();
    const query = { dstAddr: ip('10.244.2.7'), srcAddr: 0, iif: 0, oif: 0, mark: 0, tos: 0 };
    expect(routeOutput(fib, query, devices)).toMatchObject({
      ok: true,
      type: 'unicast',
      gateway: ip('172.18.0.3'),
      dev: IFINDEX.eth0,
      srcAddr: ip('172.18.0.2'),
    });
    expect(routeOutput(fib, { ...query, dstAddr: ip('10.244.1.1') }, devices)).toMatchObject({
      type: 'local',
      dev: IFINDEX.lo,
      srcAddr: ip('10.244.1.1'),
    });
  });

  it('output with a bound device and no route assumes the destination is on that link', () => {
    const fib = testFib();
    const query = { dstAddr: ip('192.168.9.9'), srcAddr: 0, iif: 0, oif: IFINDEX.cni0, mark: 0, tos: 0 };
    expect(routeOutput(fib, query, devices)).toMatchObject({
      ok: true,
      dev: IFINDEX.cni0,
      table: 0,
      gateway: undefined,
    });
    expect(routeOutput(fib, { ...query, oif: 0 }, devices)).toMatchObject({
      ok: false,
      errno: 'ENETUNREACH',
    });
  });

  it('input: forwarding off means EHOSTUNREACH for transit, local delivery still works', () => {
    const fib = nodeFib();
    const query = {
      dstAddr: ip('8.8.8.8'),
      srcAddr: ip('10.244.1.5'),
      iif: IFINDEX.cni0,
      oif: 0,
      mark: 0,
      tos: 0,
    };
    const off = { ...devices, forwarding: () => false };
    const on = { ...devices, forwarding: () => true };
    expect(routeInput(fib, query, off)).toMatchObject({ ok: false, errno: 'EHOSTUNREACH' });
    expect(routeInput(fib, query, on)).toMatchObject({ ok: true, type: 'unicast', dev: IFINDEX.eth0 });
    expect(routeInput(fib, { ...query, dstAddr: ip('10.244.1.1') }, off)).toMatchObject({
      type: 'local',
      dev: IFINDEX.lo,
    });
    expect(routeInput(fib, { ...query, srcAddr: 0 }, on)).toMatchObject({ ok: false, errno: 'EINVAL' });
  });

  it('route_localnet: 127/8 arriving on a device and a 127/8 source leaving one are refused unless it is set', () => {
    const fib = nodeFib();
    const off = { ...devices, forwarding: () => true, routeLocalnet: () => false };
    const on = {
      ...devices,
      forwarding: () => true,
      routeLocalnet: (ifindex: number) => ifindex === IFINDEX.eth0,
    };
    // ip_route_input_slow: a loopback daddr (martian destination), a loopback saddr (martian source).
    const arriving = {
      dstAddr: ip('127.0.0.1'),
      srcAddr: ip('172.18.0.3'),
      iif: IFINDEX.eth0,
      oif: 0,
      mark: 0,
      tos: 0,
    };
    expect(routeInput(fib, arriving, off)).toMatchObject({ ok: false, errno: 'EINVAL' });
    expect(routeInput(fib, arriving, on)).toMatchObject({ ok: true, type: 'local', dev: IFINDEX.lo });
    const fromLoopback = { ...arriving, dstAddr: ip('10.244.2.7'), srcAddr: ip('127.0.0.1') };
    expect(routeInput(fib, fromLoopback, off)).toMatchObject({ ok: false, errno: 'EINVAL' });
    expect(routeInput(fib, fromLoopback, on)).toMatchObject({ ok: true, type: 'unicast', dev: IFINDEX.eth0 });
    // route_localnet of another device does not help (IN_DEV_NET_ROUTE_LOCALNET reads the input device).
    expect(routeInput(fib, { ...arriving, iif: IFINDEX.cni0 }, on)).toMatchObject({
      ok: false,
      errno: 'EINVAL',
    });
    // __mkroute_output: a 127.0.0.1 source may leave through eth0 only with route_localnet on eth0.
    const leaving = { dstAddr: ip('10.244.2.7'), srcAddr: ip('127.0.0.1'), iif: 0, oif: 0, mark: 0, tos: 0 };
    expect(routeOutput(fib, leaving, off)).toMatchObject({ ok: false, errno: 'EINVAL' });
    expect(routeOutput(fib, leaving, on)).toMatchObject({
      ok: true,
      dev: IFINDEX.eth0,
      srcAddr: ip('127.0.0.1'),
    });
  });
});
