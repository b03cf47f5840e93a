// Output formats and errors of `ip rule` (iproute2 6.1.0 on Linux 6.18.44; the full capture
// is transcript.fixture.ts).

import { describe, expect, it } from 'vitest';
import type { Fib } from '../../../src/net/fib.ts';
import type { CommandResult } from '../../../src/tools/ip/route-command.ts';
import { ruleCommand } from '../../../src/tools/ip/rule-command.ts';
import { testDevices, testFib } from './namespace.ts';

const devices = testDevices();

function ipRule(fib: Fib, line: string): CommandResult {
  return ruleCommand(
    line.split(' ').filter((word) => word !== ''),
    devices,
    fib,
  );
}

function ok(fib: Fib, line: string): string {
  const result = ipRule(fib, line);
  expect({ stderr: result.stderr, exitCode: result.exitCode }).toEqual({ stderr: '', exitCode: 0 });
  return result.stdout;
}

const DEFAULT_RULES =
  '0:\tfrom all lookup local\n32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n';

describe('ip rule show', () => {
  it('prints the three default rules', () => {
    expect(ok(testFib(), '')).toBe(DEFAULT_RULES);
    expect(ok(testFib(), 'show')).toBe(DEFAULT_RULES);
    expect(ok(testFib(), 'list')).toBe(DEFAULT_RULES);
  });

  it('prints every selector and action in iproute2 order, no trailing space', () => {
    const fib = testFib();
    ok(
      fib,
      'add not from 10.244.0.0/16 to 8.8.8.0/24 tos 0x10 fwmark 0x4000/0x4000 iif cni0 oif eth0 lookup 100',
    );
    ok(fib, 'add fwmark 16 table 200');
    ok(fib, 'add to 1.2.3.4 blackhole');
    ok(fib, 'add iif eth9 unreachable');
    ok(fib, 'add from 10.0.0.1 prohibit pref 7');
    ok(fib, 'add nop pref 8');
    expect(ok(fib, 'show')).toBe(
      '0:\tfrom all lookup local\n' +
        '7:\tfrom 10.0.0.1 prohibit\n' +
        '8:\tfrom all nop\n' +
        '32762:\tfrom all iif eth9 [detached] unreachable\n' +
        '32763:\tfrom all to 1.2.3.4 blackhole\n' +
        '32764:\tfrom all fwmark 0x10 lookup 200\n' +
        '32765:\tnot from 10.244.0.0/16 to 8.8.8.0/24 tos 0x10 fwmark 0x4000/0x4000 iif cni0 oif eth0 lookup 100\n' +
        DEFAULT_RULES.slice(DEFAULT_RULES.indexOf('32766')),
    );
  });

  it('a rule stops being detached once its device exists', () => {
    const fib = testFib();
    ok(fib, 'add iif veth9 lookup 100');
    expect(ok(fib, 'show pref 32765')).toBe('32765:\tfrom all iif veth9 [detached] lookup 100\n');
    fib.attachDevice('veth9', 42);
    expect(ok(fib, 'show pref 32765')).toBe('32765:\tfrom all iif veth9 lookup 100\n');
  });

  it('filters by table, priority, fwmark mask and source', () => {
    const fib = testFib();
    ok(fib, 'add fwmark 0/0xff lookup 5 pref 22');
    ok(fib, 'add from 10.244.1.0/24 lookup 5 pref 23');
    expect(ok(fib, 'show table 5')).toBe(
      '22:\tfrom all fwmark 0/0xff lookup 5\n23:\tfrom 10.244.1.0/24 lookup 5\n',
    );
    expect(ok(fib, 'show pref 0')).toBe('0:\tfrom all lookup local\n');
    expect(ok(fib, 'show fwmark 0/0xff')).toBe('22:\tfrom all fwmark 0/0xff lookup 5\n');
    expect(ok(fib, 'show from 10.244.0.0/16')).toBe('23:\tfrom 10.244.1.0/24 lookup 5\n');
  });
});

describe('ip rule add/del', () => {
  it('auto priorities count down from the second rule', () => {
    const fib = testFib();
    ok(fib, 'add fwmark 0x4000 lookup 100 pref 100');
    ok(fib, 'add fwmark 0x10 lookup 300');
    expect(ok(fib, 'show pref 99')).toBe('99:\tfrom all fwmark 0x10 lookup 300\n');
  });

  it('`lookup 0` gets a fresh table (fib_empty_table)', () => {
    const fib = testFib();
    ok(fib, 'add lookup 0 pref 27');
    expect(ok(fib, 'show pref 27')).toBe('27:\tfrom all lookup 1\n');
    expect(fib.table(1)?.size).toBe(0);
  });

  it('flush deletes every rule but those of priority 0', () => {
    const fib = testFib();
    ok(fib, 'add fwmark 0x1 lookup 5 pref 0');
    // The second rule now has priority 0, so an automatic priority would be 0 as well.
    ok(fib, 'add fwmark 0x2 lookup 5');
    ok(fib, 'add fwmark 0x3 lookup 5 pref 50');
    ok(fib, 'flush');
    expect(ok(fib, '')).toBe(
      '0:\tfrom all lookup local\n0:\tfrom all fwmark 0x1 lookup 5\n0:\tfrom all fwmark 0x2 lookup 5\n',
    );
  });

  const errors: [string, string, number][] = [
    ['add pref 32766 lookup main', '', 0],
    ['add fwmark 0x4000 lookup 200 pref 100', '', 0],
    ['del pref 99', 'RTNETLINK answers: No such file or directory\n', 2],
    ['add', '"ip rule add" requires arguments.\n', 1],
    ['del', '"ip rule del" requires arguments.\n', 1],
    ['add from foo lookup 300', 'Error: any valid prefix is expected rather than "foo".\n', 1],
    ['add lookup 300 frob', 'Error: argument "frob" is wrong: Failed to parse rule type\n', 255],
    ['add fwmark 0x1/foo lookup 5', 'Error: argument "foo" is wrong: fwmask value is invalid\n\n', 255],
    ['add tos 0x11 lookup 5', 'Error: Invalid dsfield (tos): ECN bits must be 0.\n', 2],
    ['add iif', 'Command line is not complete. Try option "help"\n', 255],
    ['add goto 100', 'Error: "goto" is not supported by packetlab.\n', 255],
    ['frob', 'Command "frob" is unknown, try "ip rule help".\n', 255],
  ];
  for (const [line, stderr, exitCode] of errors) {
    it(`ip rule ${line}`, () => {
      const fib = testFib();
      const before = ok(fib, '');
      const result = ipRule(fib, line);
      expect(result).toEqual({ stdout: '', stderr, exitCode });
      if (exitCode !== 0) expect(ok(fib, '')).toBe(before);
    });
  }

  it('EEXIST for the same rule twice', () => {
    const fib = testFib();
    ok(fib, 'add fwmark 0x4000 lookup 200 pref 100');
    expect(ipRule(fib, 'add pref 100 fwmark 0x4000 lookup 200')).toEqual({
      stdout: '',
      stderr: 'RTNETLINK answers: File exists\n',
      exitCode: 2,
    });
  });
});
