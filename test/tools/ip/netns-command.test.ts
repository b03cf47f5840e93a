// `ip netns` on packetlab (exec through the façade, list, the errors of iproute2 6.1.0's ipnetns.c) and `ip -s -s link`'s
// error lines with carrier changes (the values Linux 6.18 shows: test/linux/link-stats.test.ts).

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

function setup() {
  const sim = new Simulation({ seed: 'netns' });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  expect(exec(a, 'ip link add eth0 type veth peer name eth0 netns b').exitCode).toBe(0);
  return { sim, a, b };
}

describe('ip netns', () => {
  it('exec runs the command in the other namespace, stdin included', () => {
    const { a } = setup();
    expect(exec(a, 'ip netns exec b ip addr add 10.0.0.2/24 dev eth0').exitCode).toBe(0);
    expect(exec(a, 'ip netns exec b ip -br addr show dev eth0').stdout).toBe(
      'eth0@if2         DOWN           10.0.0.2/24 \n',
    );
    expect(exec(a, 'ip -br addr show dev eth0').stdout).toBe('eth0@if2         DOWN           \n');
    expect(
      exec(a, 'ip netns exec b iptables-restore', { stdin: '*filter\n-A INPUT -j DROP\nCOMMIT\n' }).exitCode,
    ).toBe(0);
    expect(exec(a, 'ip netns exec b iptables -S INPUT').stdout).toBe('-P INPUT ACCEPT\n-A INPUT -j DROP\n');
    expect(exec(a, 'ip netns exec b ip netns exec a ss -H').stdout).toBe('');
  });

  it('list (and ip netns alone, show, lst): the newest first', () => {
    const { a } = setup();
    for (const line of ['ip netns', 'ip netns list', 'ip netns show', 'ip netns lst', 'ip netns l'])
      expect(exec(a, line)).toEqual({ stdout: 'b\na\n', stderr: '', exitCode: 0 });
  });

  it.each([
    ['ip netns exec zz true', 'Cannot open network namespace "zz": No such file or directory\n', 255],
    ['ip netns exec', 'No netns name specified\n', 1],
    ['ip netns exec b', 'No command specified\n', 1],
    ['ip netns exec b nonexist', 'exec of "nonexist" failed: No such file or directory\n', 1],
    ['ip netns foo', 'Command "foo" is unknown, try "ip netns help".\n', 255],
    ['ip netns add c', 'packetlab: ip netns add is not supported\n', 1],
  ])('%s', (line, stderr, exitCode) => {
    const { a } = setup();
    expect(exec(a, line)).toEqual({ stdout: '', stderr, exitCode });
  });

  it('help: the usage on stderr, exit 255', () => {
    const { a } = setup();
    const result = exec(a, 'ip netns help');
    expect(result.exitCode).toBe(255);
    expect(result.stderr.startsWith('Usage:\tip netns list\n\tip netns add NAME\n')).toBe(true);
  });
});

describe('ip -s -s link', () => {
  it('the RX and TX error lines; transns counts carrier flips (creation, both ends up, the peer down)', () => {
    const { a, b } = setup();
    const transns = () => exec(a, 'ip -s -s link show dev eth0').stdout.split('\n').at(-2);
    expect(transns()).toBe('                     0      0       0       0       1 ');
    expect(exec(a, 'ip link set eth0 up').exitCode).toBe(0);
    expect(transns()).toBe('                     0      0       0       0       1 ');
    expect(exec(b, 'ip link set eth0 up').exitCode).toBe(0);
    expect(transns()).toBe('                     0      0       0       0       2 ');
    expect(exec(b, 'ip link set eth0 down').exitCode).toBe(0);
    expect(transns()).toBe('                     0      0       0       0       3 ');
    expect(exec(a, 'ip -s -s link show dev eth0').stdout.split('\n').slice(2)).toEqual([
      '    RX:  bytes packets errors dropped  missed   mcast           ',
      '             0       0      0       0       0       0 ',
      '    RX errors:  length    crc   frame    fifo overrun',
      '                     0      0       0       0       0 ',
      '    TX:  bytes packets errors dropped carrier collsns           ',
      '             0       0      0       0       0       0 ',
      '    TX errors: aborted   fifo  window heartbt transns',
      '                     0      0       0       0       3 ',
      '',
    ]);
  });

  it('a bridge starts with carrier: a port without carrier turns it off, a live port on again', () => {
    const { a } = setup();
    const transns = () => exec(a, 'ip -s -s link show dev br0').stdout.split('\n').at(-2)!.trim();
    expect(exec(a, 'ip link add br0 type bridge').exitCode).toBe(0);
    expect(exec(a, 'ip link set br0 up').exitCode).toBe(0);
    expect(transns()).toBe('0      0       0       0       0');
    expect(exec(a, 'ip link set eth0 master br0').exitCode).toBe(0);
    expect(transns()).toBe('0      0       0       0       1');
    expect(exec(a, 'ip link set eth0 up').exitCode).toBe(0);
    expect(exec(a, 'ip netns exec b ip link set eth0 up').exitCode).toBe(0);
    expect(transns()).toBe('0      0       0       0       2');
  });
});
