// ARP resolution and its NUD states over virtual time, resolution failure, and a fwmark policy rule.

import { describe, expect, it } from 'vitest';
import { Packet } from '../../src/core/packet.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, execOrThrow, spawn } from '../../src/tools/exec.ts';

const must = execOrThrow;

function pair(seed: number) {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  must(a, 'ip link set lo up');
  must(b, 'ip link set lo up');
  must(a, 'ip link add veth-a type veth peer name veth-b netns b');
  must(a, 'ip addr add 10.0.0.1/24 dev veth-a');
  must(b, 'ip addr add 10.0.0.2/24 dev veth-b');
  must(a, 'ip link set veth-a up');
  must(b, 'ip link set veth-b up');
  const state = () => a.ipv4.neighbours.get(a.byName('veth-a')!.ifindex, 0x0a000002)?.state;
  return { sim, a, b, state };
}

describe('ARP and the neighbour table', () => {
  it('resolves, then ages REACHABLE → STALE → DELAY → PROBE → REACHABLE on the virtual clock', () => {
    const { sim, a, state } = pair(3);
    expect(state()).toBeUndefined();
    must(a, 'ping -c 1 10.0.0.2');
    expect(state()).toBe('REACHABLE');
    // reachable_time is drawn in [15 s, 45 s): after 45 s the entry is stale whatever the draw.
    sim.run(45e9);
    expect(state()).toBe('STALE');
    const arp = spawn(a, 'tcpdump -nei veth-a arp');
    must(a, 'ping -c 1 10.0.0.2');
    expect(state()).toBe('DELAY');
    sim.run(5e9);
    // delay_first_probe_time (5 s) passed without confirmation: a unicast probe, answered.
    expect(state()).toBe('REACHABLE');
    if (!('stop' in arp)) throw new Error(arp.stderr);
    // b's entry for a went through the same cycle, so b probes too; keep a's probe and its answer.
    const lines = arp
      .stop()
      .stdout.trim()
      .split('\n')
      .filter((line) => line.includes('10.0.0.2 tell') || line.includes('Reply 10.0.0.2'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/Request who-has 10\.0\.0\.2 tell 10\.0\.0\.1, length 28$/);
    expect(lines[0]).not.toContain('> ff:ff:ff:ff:ff:ff'); // a PROBE is unicast to the known address
    expect(lines[1]).toMatch(/Reply 10\.0\.0\.2 is-at [0-9a-f:]{17}, length 28$/);
  });

  it('a full arp_queue drops its oldest packet (NEIGH_QUEUEFULL); the rest fail with NEIGH_FAILED', () => {
    const { sim, a } = pair(5);
    // Two 1028-byte datagrams fit under 2100 bytes, the third pushes the first out (__neigh_event_send).
    must(a, 'sysctl -w net.ipv4.neigh.veth-a.unres_qlen_bytes=2100');
    const result = exec(a, 'ping -c 3 -i 0.2 -s 1000 -W 5 10.0.0.9');
    sim.run(5e9);
    expect(a.ipv4.drops.get('NEIGH_QUEUEFULL')).toBe(1);
    expect(a.ipv4.drops.get('NEIGH_FAILED')).toBe(2);
    expect(result.stdout).not.toContain('icmp_seq=1 Destination Host Unreachable');
    expect(result.stdout).toContain('From 10.0.0.1 icmp_seq=2 Destination Host Unreachable');
    expect(result.stdout).toContain('From 10.0.0.1 icmp_seq=3 Destination Host Unreachable');
  });

  it('fails after three broadcast requests one second apart, and ping reports host unreachable', () => {
    const { sim, a } = pair(4);
    const arp = spawn(a, 'tcpdump -ni veth-a arp');
    const start = sim.now;
    const result = exec(a, 'ping -c 1 -W 5 10.0.0.9');
    expect(result.stdout).toContain('From 10.0.0.1 icmp_seq=1 Destination Host Unreachable');
    expect(result.stdout).toContain('1 packets transmitted, 0 received, +1 errors, 100% packet loss');
    expect(result.exitCode).toBe(1);
    expect(a.ipv4.neighbours.get(a.byName('veth-a')!.ifindex, 0x0a000009)?.state).toBe('FAILED');
    if (!('stop' in arp)) throw new Error(arp.stderr);
    const times = arp
      .stop()
      .stdout.trim()
      .split('\n')
      .map((line) => line.slice(0, 15));
    expect(start).toBe(0);
    expect(times).toEqual(['00:00:00.000000', '00:00:01.000000', '00:00:02.000000']);
  });
});

describe('policy routing', () => {
  it('a fwmark rule sends marked packets through another table', () => {
    const sim = new Simulation({ seed: 5 });
    const r = sim.addNamespace('r');
    const gw1 = sim.addNamespace('gw1');
    const gw2 = sim.addNamespace('gw2');
    must(r, 'ip link add to-gw1 type veth peer name from-r netns gw1');
    must(r, 'ip link add to-gw2 type veth peer name from-r netns gw2');
    must(r, 'ip addr add 10.0.1.1/24 dev to-gw1');
    must(r, 'ip addr add 10.0.2.1/24 dev to-gw2');
    must(gw1, 'ip addr add 10.0.1.2/24 dev from-r');
    must(gw2, 'ip addr add 10.0.2.2/24 dev from-r');
    for (const [ns, dev] of [
      [r, 'to-gw1'],
      [r, 'to-gw2'],
      [gw1, 'from-r'],
      [gw2, 'from-r'],
    ] as const)
      must(ns, `ip link set ${dev} up`);
    must(r, 'ip route add default via 10.0.1.2');
    must(r, 'ip route add default via 10.0.2.2 table 100');
    must(r, 'ip rule add fwmark 0x1/0x1 lookup 100');
    expect(must(r, 'ip rule')).toBe(
      '0:\tfrom all lookup local\n32765:\tfrom all fwmark 0x1/0x1 lookup 100\n32766:\tfrom all lookup main\n32767:\tfrom all lookup default\n',
    );
    const onGw1 = spawn(gw1, 'tcpdump -ni from-r icmp');
    const onGw2 = spawn(gw2, 'tcpdump -ni from-r icmp');
    exec(r, 'ping -c 1 -W 1 192.0.2.1');
    exec(r, 'ping -c 1 -W 1 -m 1 192.0.2.1');
    if (!('stop' in onGw1) || !('stop' in onGw2)) throw new Error('tcpdump failed');
    expect(onGw1.stop().stdout).toMatch(
      /^\S+ IP 10\.0\.1\.1 > 192\.0\.2\.1: ICMP echo request, id \d+, seq 1, length 64\n$/,
    );
    expect(onGw2.stop().stdout).toMatch(
      /^\S+ IP 10\.0\.2\.1 > 192\.0\.2\.1: ICMP echo request, id \d+, seq 1, length 64\n$/,
    );
  });
});

describe('gratuitous ARP (arp_accept = 0)', () => {
  /** A gratuitous ARP request from `mac` announcing `ip` (sender and target addresses equal), broadcast. */
  function garp(mac: number, ip: number): Packet {
    const pkt = Packet.allocate(42);
    const b = pkt.buf;
    const at = pkt.start;
    b.fill(0xff, at, at + 6);
    for (let i = 0; i < 6; i++) b[at + 6 + i] = Math.floor(mac / 2 ** (40 - 8 * i)) % 256;
    b.set([0x08, 0x06, 0, 1, 0x08, 0, 6, 4, 0, 1], at + 12);
    b.set(b.subarray(at + 6, at + 12), at + 22);
    for (let i = 0; i < 4; i++) b[at + 28 + i] = (ip >>> (24 - 8 * i)) & 0xff;
    for (let i = 0; i < 4; i++) b[at + 38 + i] = (ip >>> (24 - 8 * i)) & 0xff;
    return pkt;
  }

  it('updates an existing entry to the announced MAC (STALE) and creates none for an unknown address', () => {
    const { sim, a } = pair(6);
    must(a, 'ping -c 1 10.0.0.2');
    const vethA = a.byName('veth-a')!;
    const newMac = 0x0200_0000_0042;
    vethA.receive(garp(newMac, 0x0a000002));
    vethA.receive(garp(0x0200_0000_0043, 0x0a000077));
    sim.run(0);
    const entry = a.ipv4.neighbours.get(vethA.ifindex, 0x0a000002);
    expect(entry?.lladdr).toBe(newMac);
    expect(entry?.state).toBe('STALE');
    expect(a.ipv4.neighbours.get(vethA.ifindex, 0x0a000077)).toBeUndefined();
  });
});
