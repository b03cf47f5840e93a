import { describe, expect, it } from 'vitest';
import { routeCommand } from '../../../src/tools/ip/route-command.ts';
import { ruleCommand } from '../../../src/tools/ip/rule-command.ts';
import { testDevices, testFib } from './namespace.ts';
import { FINAL_IPV4_TABLE_ALL, TRANSCRIPT } from './transcript.fixture.ts';

// Replays every command of the real-iproute2 transcript, in order, against one fib, and
// compares stdout, stderr and exit code byte for byte.
describe('ip route / ip rule replay the iproute2 6.1 transcript', () => {
  const fib = testFib();
  const devices = testDevices();
  const withoutIpv6 = (text: string): string =>
    text
      .split('\n')
      .filter((line) => !line.includes('::') && !line.includes('fe80:') && !line.includes('ff00:'))
      .join('\n');
  let step = 0;
  for (const entry of TRANSCRIPT) {
    step++;
    if ('directive' in entry) {
      it(`step ${step}: sysctl net.ipv4.ip_forward=${entry.value ? 1 : 0}`, () => {
        devices.forwardingOn = entry.value;
      });
      continue;
    }
    const [object, ...rest] = entry.args as [string, ...string[]];
    it(`step ${step}: ip ${entry.args.join(' ')}`, () => {
      const run = object === 'route' ? routeCommand : ruleCommand;
      const result = run(rest, devices, fib);
      expect({ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode }).toEqual({
        stdout: withoutIpv6(entry.stdout),
        stderr: entry.stderr,
        exitCode: entry.exitCode,
      });
    });
  }
  it('ends with the same IPv4 routes in every table', () => {
    expect(routeCommand(['show', 'table', 'all'], devices, fib).stdout).toBe(FINAL_IPV4_TABLE_ALL);
  });
});
