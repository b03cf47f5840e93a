// The listing and neighbour/FDB commands beyond the captured session: bad command lines change nothing, and the
// formats that need states the session cannot reach on a real host in seconds (wide counters, drops, NOARP).

import { describe, expect, it } from 'vitest';
import type { Bridge } from '../../../src/link/bridge.ts';
import type { Vxlan } from '../../../src/link/vxlan.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, execOrThrow } from '../../../src/tools/exec.ts';

const must = execOrThrow;

/** A node with cni0 (one pod port), flannel.1 over eth0, a static neighbour and VXLAN remotes. */
function node() {
  const sim = new Simulation({ seed: 'commands' });
  const a = sim.addNamespace('node');
  sim.addNamespace('pod');
  sim.addNamespace('peer');
  for (const line of [
    'ip link set lo up',
    'ip link add eth0 type veth peer name eth0 netns peer',
    'ip addr add 172.18.0.2/16 dev eth0',
    'ip link add cni0 address 0a:58:0a:f4:01:01 type bridge',
    'ip link add veth1 type veth peer name eth0 netns pod',
    'ip link set veth1 master cni0',
    'ip link add flannel.1 type vxlan id 1 local 172.18.0.2 dev eth0 dstport 8472 nolearning',
    'ip link set eth0 up',
    'ip link set cni0 up',
    'ip link set flannel.1 up',
    'ip addr add 10.244.1.1/24 dev cni0',
    'ip neigh add 10.244.2.0 lladdr 9e:1c:6f:00:00:03 dev flannel.1',
    'bridge fdb add 9e:1c:6f:00:00:03 dev flannel.1 dst 172.18.0.3',
    'bridge fdb append 00:00:00:00:00:00 dev flannel.1 dst 172.18.0.3',
  ])
    must(a, line);
  return { sim, a };
}

/** Everything the commands under test can change, as text. */
function state(ns: Namespace): string {
  return [
    must(ns, 'ip -d link'),
    must(ns, 'ip addr'),
    must(ns, 'ip neigh show nud all'),
    must(ns, 'bridge fdb show'),
    must(ns, 'bridge -d link'),
  ].join('---\n');
}

describe('bad command lines fail as iproute2 does and change nothing', () => {
  const cases: [string, string, number][] = [
    [
      'ip neigh add 10.244.1.9 lladdr 0a:00:00:00:00:09 dev cni0 nud bogus',
      'Error: argument "bogus" is wrong: nud state is bad\n',
      255,
    ],
    [
      'ip neigh add 10.244.1.9 lladdr 0a:00:00:00:00:09 dev cni0 bogus',
      'Error: either "to" is duplicate, or "bogus" is a garbage.\n',
      255,
    ],
    ['ip neigh add 10.244.1.9 lladdr zz dev cni0', '"zz" is invalid lladdr.\n', 1],
    ['ip neigh add 10.244.1.9 dev cni0', 'Error: No link layer address given.\n', 2],
    ['ip neigh add 10.244.2.0 lladdr 0a:00:00:00:00:09 dev flannel.1', 'RTNETLINK answers: File exists\n', 2],
    [
      'ip neigh replace 10.244.1.9 lladdr 0a:00:00:00:00:09 dev cni0 nud probe',
      'RTNETLINK answers: Operation not supported\n',
      2,
    ],
    [
      'ip neigh change 10.244.1.9 lladdr 0a:00:00:00:00:09 dev cni0',
      'RTNETLINK answers: No such file or directory\n',
      2,
    ],
    ['ip neigh del 10.244.2.0 dev cni0', 'RTNETLINK answers: No such file or directory\n', 2],
    ['ip neigh flush', 'Flush requires arguments.\n', 1],
    ['ip neigh show to', 'Command line is not complete. Try option "help"\n', 255],
    [
      'bridge fdb add 9e:1c:6f:00:00:03 dev flannel.1 dst 172.18.0.9',
      'RTNETLINK answers: File exists\n',
      255,
    ],
    [
      'bridge fdb append 9e:1c:6f:00:00:03 dev flannel.1 dst 172.18.0.9',
      'RTNETLINK answers: Operation not supported\n',
      255,
    ],
    ['bridge fdb add 9e:1c:6f:00:00:04 dev flannel.1', 'RTNETLINK answers: Invalid argument\n', 255],
    [
      'bridge fdb add 9e:1c:6f:00:00:04 dev flannel.1 dst 172.18.0.4 dst 172.18.0.5',
      'Error: either "dst" is duplicate, or "172.18.0.5" is a garbage.\n',
      255,
    ],
    ['bridge fdb add 9e:1c:6f:00:00:04 dev eth0', 'RTNETLINK answers: Operation not supported\n', 255],
    ['bridge fdb del 00:00:00:00:00:01 dev flannel.1', 'RTNETLINK answers: No such file or directory\n', 255],
    ['bridge fdb add 0a:58:0a:f4:01:01 dev cni0', 'RTNETLINK answers: File exists\n', 255],
    [
      'bridge fdb add 02:00:00:00:00:01 dev veth1 master dynamic',
      'RTNETLINK answers: Operation not permitted\n',
      255,
    ],
    [
      'bridge link set dev veth1 hairpin maybe',
      'Error: argument of "hairpin" must be one of "off", "on", not "maybe"\n',
      234,
    ],
    ['bridge link set dev eth0 hairpin on', 'RTNETLINK answers: Operation not supported\n', 255],
    ['bridge link set hairpin on', 'Device is a required argument.\n', 255],
    ['bridge -x link', 'Option "-x" is unknown, try "bridge help".\n', 255],
    ['bridge -n nowhere link', 'Cannot open network namespace "nowhere": No such file or directory\n', 255],
    ['bridge link bogus', 'Command "bogus" is unknown, try "bridge link help".\n', 255],
    [
      'ip link set veth1 type bridge_slave hairpin maybe',
      'Error: argument of "hairpin" must be one of "off", "on", not "maybe"\n',
      1,
    ],
    ['ip link set veth1 type bridge_slave hairpin', 'Command line is not complete. Try option "help"\n', 255],
    ['ip link set eth0 type bridge_slave hairpin on', 'RTNETLINK answers: Operation not supported\n', 2],
    ['ip link set veth1 type', 'Command line is not complete. Try option "help"\n', 255],
    ['ip link show master nope', 'Error: argument "nope" is wrong: Device does not exist\n\n', 255],
    ['ip link show master', 'Command line is not complete. Try option "help"\n', 255],
    ['ip link show dev cni0 cni0', 'Error: either "dev" is duplicate, or "cni0" is a garbage.\n', 255],
    ['ip addr show dev eth9', 'Device "eth9" does not exist.\n', 1],
  ];
  for (const [line, stderr, exitCode] of cases)
    it(line, () => {
      const { a } = node();
      const before = state(a);
      expect(exec(a, line)).toEqual({ stdout: '', stderr, exitCode });
      expect(state(a)).toBe(before);
    });

  it('an unknown bridge_slave option prints its usage and changes nothing', () => {
    const { a } = node();
    const before = state(a);
    const result = exec(a, 'ip link set veth1 type bridge_slave bogus on');
    expect(result.stderr).toMatch(
      /^bridge_slave: unknown option "bogus"\?\nUsage: \.\.\. bridge_slave \[ fdb_flush \]\n\t\t\t\[ state STATE \]\n/,
    );
    expect(result.exitCode).toBe(1);
    expect(state(a)).toBe(before);
  });
});

describe('what the commands change', () => {
  it('bridge fdb and ip link set … bridge_slave reach the model', () => {
    const { sim, a } = node();
    const flannel = a.byName('flannel.1') as Vxlan;
    expect([...flannel.remotes]).toEqual([[0x9e1c6f000003, 0xac120003]]);
    expect(flannel.defaultRemotes).toEqual([0xac120003]);
    must(a, 'bridge fdb replace 00:00:00:00:00:00 dev flannel.1 dst 172.18.0.4');
    must(a, 'bridge fdb del 9e:1c:6f:00:00:03 dev flannel.1 dst 172.18.0.3');
    expect(flannel.defaultRemotes).toEqual([0xac120004]);
    expect(flannel.remotes.size).toBe(0);
    const cni0 = a.byName('cni0') as Bridge;
    const veth1 = a.byName('veth1')!;
    must(a, 'ip link set veth1 type bridge_slave hairpin on');
    expect(cni0.hairpin.has(veth1.ifindex)).toBe(true);
    must(a, 'bridge link set dev veth1 hairpin off');
    expect(cni0.hairpin.has(veth1.ifindex)).toBe(false);
    must(a, 'bridge fdb add 02:00:00:00:00:07 dev veth1 master static');
    expect(cni0.fdb.lookup(0x020000000007, sim.now)).toMatchObject({ port: veth1.ifindex, static: true });
    expect(must(a, 'bridge fdb show dev veth1')).toContain('02:00:00:00:00:07 master cni0 static\n');
    must(a, 'bridge fdb del 02:00:00:00:00:07 dev veth1 master');
    expect(cni0.fdb.lookup(0x020000000007, sim.now)).toBeUndefined();
  });

  it('lo gets 127.0.0.1/8 when it first comes up, once', () => {
    const sim = new Simulation();
    const ns = sim.addNamespace('fresh');
    expect(must(ns, 'ip -br addr')).toBe('lo               DOWN           \n');
    must(ns, 'ip link set lo up');
    must(ns, 'ip link set lo down');
    must(ns, 'ip link set lo up');
    expect(must(ns, 'ip -br addr')).toBe('lo               UNKNOWN        127.0.0.1/8 \n');
  });

  it('brd + computes the broadcast address up to /30 only', () => {
    const { a } = node();
    must(a, 'ip addr add 10.1.0.1/30 brd + dev eth0');
    must(a, 'ip addr add 10.2.0.1/31 brd + dev eth0');
    must(a, 'ip addr add 10.3.0.1/24 brd - dev eth0');
    const text = must(a, 'ip addr show eth0');
    expect(text).toContain('    inet 10.1.0.1/30 brd 10.1.0.3 scope global eth0\n');
    expect(text).toContain('    inet 10.2.0.1/31 scope global eth0\n');
    expect(text).toContain('    inet 10.3.0.1/24 brd 10.3.0.0 scope global eth0\n');
  });

  it('NOARP entries hide unless asked for; REACHABLE and STALE by hand', () => {
    const { a } = node();
    must(a, 'ip neigh replace 10.244.1.7 lladdr 02:00:00:00:00:07 dev cni0 nud noarp');
    must(a, 'ip neigh replace 10.244.1.8 lladdr 02:00:00:00:00:08 dev cni0 nud reachable');
    must(a, 'ip neigh replace 10.244.1.9 lladdr 02:00:00:00:00:09 dev cni0 nud stale');
    expect(must(a, 'ip neigh show dev cni0')).toBe(
      '10.244.1.8 lladdr 02:00:00:00:00:08 REACHABLE \n10.244.1.9 lladdr 02:00:00:00:00:09 STALE \n',
    );
    expect(must(a, 'ip neigh show dev cni0 nud noarp')).toBe('10.244.1.7 lladdr 02:00:00:00:00:07 NOARP \n');
    must(a, 'ip neigh flush all');
    expect(must(a, 'ip neigh show nud all')).toBe(
      '10.244.2.0 dev flannel.1 lladdr 9e:1c:6f:00:00:03 PERMANENT \n10.244.1.7 dev cni0 lladdr 02:00:00:00:00:07 NOARP \n',
    );
  });
});

describe('ip -s link counters', () => {
  it('print drops and widen a column to fit its largest number (print_link_stats64: size_columns)', () => {
    const { a } = node();
    const dev = a.byName('veth1')!;
    dev.stats.rxBytes = 123456789012;
    dev.stats.rxPackets = 98765432;
    dev.stats.rxDropped = 3;
    dev.stats.txDropped = 12;
    const text = must(a, 'ip -s link show veth1').split('\n').slice(2).join('\n');
    expect(text).toBe(
      [
        '    RX:    bytes  packets errors dropped  missed   mcast           ',
        '    123456789012 98765432      0       3       0       0 ',
        '    TX:    bytes  packets errors dropped carrier collsns           ',
        '               0        0      0      12       0       0 ',
        '',
      ].join('\n'),
    );
  });
});
