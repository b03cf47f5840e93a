// Traffic to the namespace itself through lo: a packet looped back keeps its output route (ip_rcv_finish looks
// nothing up), so 127.0.0.1 answers, while 127/8 arriving on any other device stays a martian.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

describe('loopback', () => {
  it('ping 127.0.0.1 is answered through lo', () => {
    const ns = new Simulation({ seed: 'lo' }).addNamespace('a');
    exec(ns, 'ip link set lo up');
    const result = exec(ns, 'ping -c 1 127.0.0.1');
    expect(result.stdout).toContain('64 bytes from 127.0.0.1: icmp_seq=1 ttl=64');
    expect(result.exitCode).toBe(0);
  });

  it('a TCP connection to 127.0.0.1 completes and echoes', () => {
    const sim = new Simulation({ seed: 'lo' });
    const ns = sim.addNamespace('a');
    exec(ns, 'ip link set lo up');
    const received: string[] = [];
    const listener = ns.tcp.listen(0, 8080, (socket) => {
      socket.onData = (s, data) => s.write(data);
    });
    if (listener === 'EADDRINUSE') throw new Error('port taken');
    const connected = ns.tcp.connect({ dst: parseIpv4('127.0.0.1')!, dstPort: 8080 });
    if (!connected.ok) throw new Error(connected.error);
    connected.socket.onConnect = (s) => s.write(new TextEncoder().encode('hello'));
    connected.socket.onData = (_s, data) => received.push(new TextDecoder().decode(data));
    sim.run(1e9);
    expect(received).toEqual(['hello']);
    expect(connected.socket.state).toBe('ESTABLISHED');
  });

  it('127/8 from a veth is a martian', () => {
    const sim = new Simulation({ seed: 'lo' });
    const a = sim.addNamespace('a');
    const b = sim.addNamespace('b');
    exec(a, 'ip link add eth0 type veth peer name eth0 netns b');
    exec(a, 'ip addr add 10.0.0.1/24 dev eth0');
    exec(b, 'ip addr add 10.0.0.2/24 dev eth0');
    exec(a, 'ip link set eth0 up');
    exec(b, 'ip link set eth0 up');
    exec(a, 'ip route add 127.0.0.2/32 via 10.0.0.2');
    exec(a, 'ping -c 1 -W 1 127.0.0.2');
    expect(b.ipv4.drops.get('IP_INADDRERRORS')).toBe(1);
  });
});
