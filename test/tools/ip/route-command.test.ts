// Output formats and errors of `ip route`. Expected text comes from iproute2 6.1.0 on Linux
// 6.18.44 (the full capture is transcript.fixture.ts, replayed by transcript.test.ts); the
// cases here pin the formats one by one and cover what the capture did not.

import { describe, expect, it } from 'vitest';
import type { Fib } from '../../../src/net/fib.ts';
import {
  type CommandResult,
  parseLooseIpv4,
  parsePrefix,
  routeCommand,
} from '../../../src/tools/ip/route-command.ts';
import { ruleCommand } from '../../../src/tools/ip/rule-command.ts';
import { formatIpv4 } from '../../../src/wire/address.ts';
import { testDevices, testFib } from './namespace.ts';

const devices = testDevices();

function ipRoute(fib: Fib, line: string): CommandResult {
  return routeCommand(
    line.split(' ').filter((word) => word !== ''),
    devices,
    fib,
  );
}

function ok(fib: Fib, line: string): string {
  const result = ipRoute(fib, line);
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  return result.stdout;
}

/** The lesson's node: pods on cni0, the node network on eth0, a default route and a route to node 2's pods. */
function node(): Fib {
  const fib = testFib();
  ok(fib, 'add default via 172.18.0.1 dev eth0');
  ok(fib, 'add 10.244.2.0/24 via 172.18.0.3 dev eth0');
  return fib;
}

describe('formats', () => {
  it('main table: gateway routes and connected routes', () => {
    expect(ok(node(), 'show')).toBe(
      'default via 172.18.0.1 dev eth0 \n' +
        '10.244.1.0/24 dev cni0 proto kernel scope link src 10.244.1.1 \n' +
        '10.244.2.0/24 via 172.18.0.3 dev eth0 \n' +
        '172.18.0.0/16 dev eth0 proto kernel scope link src 172.18.0.2 \n',
    );
  });

  it('table all names non-main tables', () => {
    const lines = ok(node(), 'show table all').split('\n');
    expect(lines).toContain('local 10.244.1.1 dev cni0 table local proto kernel scope host src 10.244.1.1 ');
    expect(lines).toContain(
      'broadcast 10.244.1.255 dev cni0 table local proto kernel scope link src 10.244.1.1 ',
    );
  });

  it('route get: gateway, source, uid, then the cache line', () => {
    expect(ok(node(), 'get 10.244.2.7')).toBe(
      '10.244.2.7 via 172.18.0.3 dev eth0 src 172.18.0.2 uid 0 \n    cache \n',
    );
  });

  it('route get of an input route: from, no uid, iif on the cache line', () => {
    const fib = node();
    devices.forwardingOn = true;
    try {
      expect(ok(fib, 'get 10.244.2.7 from 10.244.1.5 iif cni0 mark 0x4000')).toBe(
        '10.244.2.7 from 10.244.1.5 via 172.18.0.3 dev eth0 mark 0x4000 \n    cache iif cni0 \n',
      );
    } finally {
      devices.forwardingOn = false;
    }
  });

  it('each route type prints its name; reject routes have no device', () => {
    const fib = node();
    for (const type of ['blackhole', 'unreachable', 'prohibit', 'throw'])
      ok(fib, `add ${type} 192.0.2.0/24 table 9 metric ${type.length}`);
    expect(ok(fib, 'show table 9')).toBe(
      'throw 192.0.2.0/24 metric 5 \n' +
        'prohibit 192.0.2.0/24 metric 8 \n' +
        'blackhole 192.0.2.0/24 metric 9 \n' +
        'unreachable 192.0.2.0/24 metric 11 \n',
    );
  });

  it('metric, onlink, mtu lock and a numeric protocol, in iproute2 order', () => {
    const fib = node();
    ok(fib, 'add 10.8.0.0/24 via 10.99.0.1 dev eth0 onlink metric 5 mtu lock 1300 proto 42');
    expect(ok(fib, 'show 10.8.0.0/24')).toBe(
      '10.8.0.0/24 via 10.99.0.1 dev eth0 proto babel metric 5 onlink mtu lock 1300 \n',
    );
  });
});

// Checked on Linux 6.18 (linkdown aside, the peer was down there): the same lines.
describe('congctl (RTAX_CC_ALGO)', () => {
  it('is printed after the mtu, with lock; a replace without it drops it; bbr is not modelled', () => {
    const fib = node();
    ok(fib, 'add 10.40.0.0/24 dev eth0 congctl lock reno mtu 1400');
    expect(ok(fib, 'show 10.40.0.0/24')).toBe(
      '10.40.0.0/24 dev eth0 scope link mtu 1400 congctl lock reno \n',
    );
    ok(fib, 'replace 10.40.0.0/24 dev eth0');
    expect(ok(fib, 'show 10.40.0.0/24')).toBe('10.40.0.0/24 dev eth0 scope link \n');
    expect(ipRoute(fib, 'add 10.41.0.0/24 dev eth0 congctl bbr')).toEqual({
      stdout: '',
      stderr: 'Error: "congctl bbr" is not supported by packetlab.\n',
      exitCode: 255,
    });
    expect(ipRoute(fib, 'add 10.41.0.0/24 dev eth0 congctl Cubic').stderr).toBe(
      'Error: Unknown tcp congestion algorithm.\n',
    );
  });
});

describe('metric ties and replacement through the command', () => {
  it('the lower metric serves the lookup; deleting it exposes the next', () => {
    const fib = node();
    ok(fib, 'add 10.244.2.0/24 via 172.18.0.4 dev eth0 metric 100');
    expect(ok(fib, 'get 10.244.2.7')).toContain('via 172.18.0.3 ');
    ok(fib, 'del 10.244.2.0/24 via 172.18.0.3');
    expect(ok(fib, 'get 10.244.2.7')).toContain('via 172.18.0.4 ');
  });

  it('replace changes the gateway in place', () => {
    const fib = node();
    ok(fib, 'replace 10.244.2.0/24 via 172.18.0.9');
    expect(ok(fib, 'show 10.244.2.0/24')).toBe('10.244.2.0/24 via 172.18.0.9 dev eth0 \n');
  });
});

describe('abbreviations (iproute2 `matches`)', () => {
  it('verbs and keywords', () => {
    const fib = node();
    ok(fib, 'a 10.30.0.0/16 dev eth0 pri 7 tab 30');
    expect(ok(fib, 's table 30')).toBe('10.30.0.0/16 dev eth0 scope link metric 7 \n');
    ok(fib, 'd 10.30.0.0/16 table 30');
    expect(ok(fib, 'lst table 30')).toBe('');
    expect(ok(fib, 'g 10.244.2.7')).toContain('via 172.18.0.3');
  });

  it('`any` is the anycast type, not the default route', () => {
    expect(ipRoute(node(), 'add any dev eth0')).toEqual({
      stdout: '',
      stderr: 'Error: "any" is not supported by packetlab.\n',
      exitCode: 255,
    });
  });
});

describe('errors', () => {
  const cases: [string, string, number][] = [
    ['add 10.244.2.0/24 via 172.18.0.3 dev eth0', 'RTNETLINK answers: File exists\n', 2],
    ['del 10.9.0.0/16', 'RTNETLINK answers: No such process\n', 2],
    ['add foo dev eth0', 'Error: any valid prefix is expected rather than "foo".\n', 1],
    ['add 10.0.0.0/24 dev eth9', 'Cannot find device "eth9"\n', 1],
    ['add 10.0.0.0/24 dev eth0 metric x', 'Error: argument "x" is wrong: "metric" value is invalid\n\n', 255],
    [
      'add 10.0.0.0/24 dev eth0 garbage',
      'Error: either "to" is duplicate, or "garbage" is a garbage.\n',
      255,
    ],
    ['add 10.0.0.0/24 dev', 'Command line is not complete. Try option "help"\n', 255],
    [
      'add 10.0.0.0/24 dev eth0 nexthop via 1.1.1.1',
      'Error: "nexthop" is not supported by packetlab.\n',
      255,
    ],
    ['frob', 'Command "frob" is unknown, try "ip route help".\n', 255],
    ['flush', '"ip route flush" requires arguments.\n', 1],
    ['show table 100', 'Error: ipv4: FIB table does not exist.\nDump terminated\n', 2],
    // iproute2 6.1 on Linux 6.18: `ip route flush table 100` before the table exists.
    ['flush table 100', 'Error: ipv4: FIB table does not exist.\nFlush terminated\n', 2],
  ];
  for (const [line, stderr, exitCode] of cases) {
    it(`ip route ${line}`, () => {
      expect(ipRoute(node(), line)).toEqual({ stdout: '', stderr, exitCode });
    });
  }

  it('a failed command changes nothing', () => {
    const fib = node();
    const before = ok(fib, 'show table all');
    ipRoute(fib, 'add 10.0.0.0/24 via 10.99.0.1 table 60');
    ipRoute(fib, 'add 10.0.0.0/24 dev eth0 mtu nope');
    ipRoute(fib, 'add 10.0.0.0/24 dev eth9');
    ipRoute(fib, 'del 10.244.2.0/24 via 172.18.0.99');
    expect(ok(fib, 'show table all')).toBe(before);
  });
});

describe('policy routing through the commands', () => {
  it('a fwmark VALUE/MASK rule sends marked packets to another table, unmarked ones stay on main', () => {
    const fib = node();
    ok(fib, 'add default via 172.18.0.254 dev eth0 table 100');
    expect(ruleCommand(['add', 'fwmark', '0x4000/0x4000', 'lookup', '100'], devices, fib).exitCode).toBe(0);
    expect(ok(fib, 'get 8.8.8.8 mark 0xc000')).toBe(
      '8.8.8.8 via 172.18.0.254 dev eth0 table 100 src 172.18.0.2 mark 0xc000 uid 0 \n    cache \n',
    );
    expect(ok(fib, 'get 8.8.8.8 mark 0x8000')).toBe(
      '8.8.8.8 via 172.18.0.1 dev eth0 src 172.18.0.2 mark 0x8000 uid 0 \n    cache \n',
    );
  });

  it('a throw route hands the lookup to the next rule', () => {
    const fib = node();
    ok(fib, 'add throw 10.244.0.0/16 table 100');
    ok(fib, 'add default dev cni0 table 100');
    ruleCommand(['add', 'lookup', '100', 'pref', '100'], devices, fib);
    expect(ok(fib, 'get 10.244.2.7')).toContain('via 172.18.0.3 dev eth0');
    expect(ok(fib, 'get 8.8.8.8')).toBe('8.8.8.8 dev cni0 table 100 src 10.244.1.1 uid 0 \n    cache \n');
  });
});

describe('argument parsing like lib/utils.c', () => {
  const addresses: [string, string | undefined][] = [
    ['10.1', '10.1.0.0'],
    ['010.0.0.1', '8.0.0.1'],
    ['0x0a.0.0.1', '10.0.0.1'],
    ['10.0.0.256', undefined],
    ['10.', undefined],
    ['10.0.0.0.0', undefined],
  ];
  for (const [text, expected] of addresses) {
    it(`address ${text}`, () => {
      const addr = parseLooseIpv4(text);
      expect(addr === undefined ? undefined : formatIpv4(addr)).toBe(expected);
    });
  }
  const prefixes: [string, string | undefined][] = [
    ['default', '0.0.0.0/0'],
    ['all', '0.0.0.0/0'],
    ['10/8', '10.0.0.0/8'],
    ['10.0.0.0/255.255.0.0', '10.0.0.0/16'],
    ['10.0.0.0/255.0.255.0', undefined],
    ['10.0.0.0/0x10', '10.0.0.0/16'],
    ['10.0.0.0/33', undefined],
    ['default/0', undefined],
  ];
  for (const [text, expected] of prefixes) {
    it(`prefix ${text}`, () => {
      const prefix = parsePrefix(text);
      expect(prefix === undefined ? undefined : `${formatIpv4(prefix.addr)}/${prefix.len}`).toBe(expected);
    });
  }
});
