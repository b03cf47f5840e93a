// nstat compared with iproute2's nstat in real namespaces: the counters packetlab models (filtered from the real
// list, in its order), zero in a fresh namespace, after a ping and a UDP datagram to a closed port, then after a TCP
// echo closed by the client; -a -s so the machine's history file (/tmp/.nstat.u0, shared with whoever else runs nstat
// as root) is neither read nor written.

import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';
import { RealNamespaces, requireNetns } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';

/** The lines of the real output whose counter packetlab has, in the real order. */
function onlyOurs(real: string, ours: string): string {
  const names = new Set(ours.split('\n').map((line) => line.split(' ')[0]));
  return `${real
    .split('\n')
    .filter((line) => line === '#kernel' || (line !== '' && names.has(line.split(' ')[0])))
    .join('\n')}\n`;
}

const QUIET = [
  'net.ipv6.conf.all.disable_ipv6=1',
  'net.ipv6.conf.default.disable_ipv6=1',
  'net.ipv4.igmp_link_local_mcast_reports=0',
];

describe('nstat against iproute2 6.1.0', () => {
  const real = new RealNamespaces();
  let ours: { a: Namespace; b: Namespace; sim: Simulation } | undefined;

  beforeAll(() => {
    if (!requireNetns() || !requireTool('nstat')) return;
    real.add('a');
    real.add('b');
    for (const ns of ['a', 'b']) real.exec(ns, 'sysctl', ['-q', '-w', ...QUIET]);
    const sim = new Simulation({ seed: 'nstat-real' });
    const a = sim.addNamespace('a');
    const b = sim.addNamespace('b');
    for (const line of ['ip link set lo up', 'ip link add eth0 type veth peer name eth0 netns b'])
      expect(exec(a, line).exitCode).toBe(0);
    expect(exec(b, 'ip link set lo up').exitCode).toBe(0);
    ours = { a, b, sim };
  });

  afterAll(() => real.cleanup());

  it('nstat -asz in a fresh namespace: the same names in the same order, all zero', () => {
    if (ours === undefined) return;
    const mine = exec(ours.a, 'nstat -asz').stdout;
    expect(mine.split('\n').length).toBeGreaterThan(30);
    expect(onlyOurs(real.exec('a', 'nstat', ['-asz']).stdout, mine)).toBe(mine);
  });

  it('after a ping and a datagram to a closed port: the same counts on both sides', () => {
    if (ours === undefined) return;
    const { a, b, sim } = ours;
    // The real veth is made here, after the fresh-namespace case.
    run(real, 'a', ['link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', real.name('b')]);
    for (const [ns, addr] of [
      ['a', '10.0.0.1/24'],
      ['b', '10.0.0.2/24'],
    ] as const) {
      run(real, ns, ['addr', 'add', addr, 'dev', 'eth0']);
      run(real, ns, ['link', 'set', 'eth0', 'up']);
      expect(exec(ns === 'a' ? a : b, `ip addr add ${addr} dev eth0`).exitCode).toBe(0);
      expect(exec(ns === 'a' ? a : b, 'ip link set eth0 up').exitCode).toBe(0);
    }
    expect(real.exec('a', 'ping', ['-c', '1', '-W', '1', '10.0.0.2']).exitCode).toBe(0);
    expect(real.exec('a', 'bash', ['-c', 'echo hi > /dev/udp/10.0.0.2/9999']).exitCode).toBe(0);
    expect(exec(a, 'ping -c 1 -W 1 10.0.0.2').exitCode).toBe(0);
    a.udp.send({
      dst: parseIpv4('10.0.0.2')!,
      dstPort: 9999,
      srcPort: 40000,
      payload: new TextEncoder().encode('hi\n'),
    });
    sim.run(1_000_000_000);
    // The real one has had a moment for the ICMP error to come back: wait as the simulation did.
    real.exec('a', 'sleep', ['0.2']);
    for (const [name, ns] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const mine = exec(ns, 'nstat -as').stdout;
      expect(mine).toContain('IpInReceives');
      expect(onlyOurs(real.exec(name, 'nstat', ['-as']).stdout, mine)).toBe(mine);
    }
  });

  it('after a TCP echo the client closes: Tcp* on both sides', async () => {
    if (ours === undefined) return;
    const { a, b, sim } = ours;
    // The kernel's side: a Python server that echoes once and closes after the client's FIN, and its client.
    const server = spawn(
      'ip',
      [
        'netns',
        'exec',
        real.name('b'),
        'python3',
        '-c',
        "import socket\ns=socket.socket()\ns.bind(('0.0.0.0',8080))\ns.listen()\nprint('ready',flush=True)\n" +
          'c,_=s.accept()\nc.send(c.recv(100))\nc.recv(100)\nc.close()\n',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => server.stdout.once('data', () => resolve()));
    const client = real.exec('a', 'python3', [
      '-c',
      "import socket,time\ns=socket.socket()\ns.bind(('10.0.0.1',40000))\ns.connect(('10.0.0.2',8080))\n" +
        "s.send(b'hello')\ns.recv(100)\ns.close()\ntime.sleep(0.5)\n",
    ]);
    expect(client.exitCode).toBe(0);
    await new Promise<void>((resolve) => server.once('exit', () => resolve()));

    b.tcp.listen(0, 8080, (socket) => {
      socket.onData = (s, data) => s.write(data);
      socket.onEnd = (s) => s.end();
    });
    const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: 8080, srcPort: 40000 });
    if (!connected.ok) throw new Error(connected.error);
    connected.socket.onConnect = (s) => s.write(new TextEncoder().encode('hello'));
    connected.socket.onData = (s) => s.end();
    sim.run(1_000_000_000);
    for (const [name, ns] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const mine = exec(ns, 'nstat -asz Tcp*').stdout;
      expect(mine).toContain('TcpOutSegs');
      expect(onlyOurs(real.exec(name, 'nstat', ['-asz', 'Tcp*']).stdout, mine)).toBe(mine);
    }
  });
});

function run(real: RealNamespaces, ns: string, args: string[]): void {
  real.ip(ns, ...args);
}
