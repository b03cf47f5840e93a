import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, execOrThrow } from '../../src/tools/exec.ts';

const run = execOrThrow;

describe('two namespaces joined by a veth pair', () => {
  it('pings across, resolving ARP first', () => {
    const sim = new Simulation({ seed: 1 });
    const a = sim.addNamespace('a');
    const b = sim.addNamespace('b');
    run(a, 'ip link add veth-a type veth peer name veth-b netns b');
    run(a, 'ip addr add 10.0.0.1/24 dev veth-a');
    run(b, 'ip addr add 10.0.0.2/24 dev veth-b');
    run(a, 'ip link set veth-a up');
    run(b, 'ip link set veth-b up');
    const result = exec(a, 'ping -c 2 10.0.0.2');
    expect(result.stdout).toBe(
      [
        'PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.',
        '64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.000 ms',
        '64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=0.000 ms',
        '',
        '--- 10.0.0.2 ping statistics ---',
        '2 packets transmitted, 2 received, 0% packet loss, time 1000ms',
        'rtt min/avg/max/mdev = 0.000/0.000/0.000/0.000 ms',
        '',
      ].join('\n'),
    );
    expect(result.exitCode).toBe(0);
    expect(a.ipv4.neighbours.get(a.byName('veth-a')!.ifindex, 0x0a000002)?.state).toBe('REACHABLE');
  });
});
