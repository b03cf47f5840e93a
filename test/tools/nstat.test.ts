// nstat on packetlab: the history (changes since the last run, one history per simulation as /tmp/.nstat.u0 is one
// per user), -a/-r/-s/-n/-z, patterns, the output format, and bad options (texts from iproute2 6.1.0's nstat).

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';

function setup() {
  const sim = new Simulation({ seed: 'nstat' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  for (const line of [
    'ip link add eth0 type veth peer name eth0 netns b',
    'ip addr add 10.0.0.1/24 dev eth0',
    'ip link set eth0 up',
  ])
    expect(exec(a, line).exitCode).toBe(0);
  for (const line of ['ip addr add 10.0.0.2/24 dev eth0', 'ip link set eth0 up'])
    expect(exec(b, line).exitCode).toBe(0);
  return { sim, a, b };
}

const line = (name: string, value: number): string => `${name.padEnd(32)}${String(value).padEnd(16)}   0.0\n`;

describe('nstat', () => {
  it('no history: everything that is not zero; then only what changed since', () => {
    const { a } = setup();
    expect(exec(a, 'nstat')).toEqual({ stdout: '#kernel\n', stderr: '', exitCode: 0 });
    expect(exec(a, 'ping -c 1 10.0.0.2').exitCode).toBe(0);
    expect(exec(a, 'nstat').stdout).toBe(
      // As on Linux, ping's echo requests do not count in IcmpOutMsgs (nstat-real.test.ts).
      `#kernel\n${line('IpInReceives', 1)}${line('IpInDelivers', 1)}${line('IpOutRequests', 1)}${line('IcmpInMsgs', 1)}`,
    );
    expect(exec(a, 'nstat').stdout).toBe('#kernel\n');
    expect(exec(a, 'ping -c 2 10.0.0.2').exitCode).toBe(0);
    // -s leaves the history: the same change twice.
    expect(exec(a, 'nstat -s IpInReceives').stdout).toBe(`#kernel\n${line('IpInReceives', 2)}`);
    expect(exec(a, 'nstat -s IpInReceives').stdout).toBe(`#kernel\n${line('IpInReceives', 2)}`);
    // -a: absolute values; -r: the history reset, so absolute too.
    expect(exec(a, 'nstat -as Ip*Rec*').stdout).toBe(`#kernel\n${line('IpInReceives', 3)}`);
    expect(exec(a, 'nstat -r IpInReceives').stdout).toBe(`#kernel\n${line('IpInReceives', 3)}`);
    expect(exec(a, 'nstat IpInReceives').stdout).toBe('#kernel\n');
  });

  it('-z shows zeros, patterns are globs, -n prints nothing and writes the history', () => {
    const { a } = setup();
    expect(exec(a, 'nstat -z Udp?o* Tcp[AP]*').stdout).toBe(
      `#kernel\n${line('TcpActiveOpens', 0)}${line('TcpPassiveOpens', 0)}${line('UdpNoPorts', 0)}`,
    );
    expect(exec(a, 'ping -c 1 10.0.0.2').exitCode).toBe(0);
    expect(exec(a, 'nstat -n')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(exec(a, 'nstat').stdout).toBe('#kernel\n');
  });

  it('one history for the simulation: a run in b compares with what a run in a saw', () => {
    const { a, b } = setup();
    expect(exec(a, 'ping -c 3 10.0.0.2').exitCode).toBe(0);
    exec(a, 'nstat -n');
    // b received 3 echo requests; a had 3 replies: no change in IpInReceives for the shared history.
    expect(exec(b, 'nstat -s IpInReceives').stdout).toBe('#kernel\n');
    // b's kernel answered the three requests; a's history has none of its own.
    expect(exec(b, 'nstat IcmpOutMsgs').stdout).toBe(`#kernel\n${line('IcmpOutMsgs', 3)}`);
    expect(exec(b, 'nstat -a IpOutRequests').stdout).toBe(`#kernel\n${line('IpOutRequests', 3)}`);
  });

  it('a counter below the history wraps as the unsigned difference does', () => {
    const { sim, a, b } = setup();
    for (const srcPort of [40000, 40001])
      a.udp.send({ dst: 0x0a000002, dstPort: 9999, srcPort, payload: new Uint8Array(1) });
    sim.run(1_000_000_000);
    exec(a, 'nstat -n');
    expect(exec(b, 'nstat -s UdpOutDatagrams UdpNoPorts').stdout).toBe(
      `#kernel\n${line('UdpNoPorts', 2)}${'UdpOutDatagrams'.padEnd(32)}18446744073709551614   0.0\n`,
    );
  });

  it.each([
    ['nstat -x', "nstat: invalid option -- 'x'\n", 255],
    ['nstat --bogus', "nstat: unrecognized option '--bogus'\n", 255],
  ])('%s', (cmd, message, exitCode) => {
    const { a } = setup();
    const result = exec(a, cmd);
    expect(result.exitCode).toBe(exitCode);
    expect(result.stderr.startsWith(`${message}Usage: nstat [OPTION] [ PATTERN [ PATTERN ] ]\n`)).toBe(true);
  });

  it('-h prints the usage on stderr (exit 255), -V the version, -d/-j are not modelled', () => {
    const { a } = setup();
    expect(exec(a, 'nstat -h').exitCode).toBe(255);
    expect(exec(a, 'nstat -V').stdout).toBe('nstat utility, iproute2-6.1.0\n');
    expect(exec(a, 'nstat -j')).toEqual({
      stdout: '',
      stderr: 'packetlab: nstat option -j (JSON) is not supported\n',
      exitCode: 1,
    });
  });
});
