// The IPv4 path's rarer turns: fragmentation and reassembly (and its timeout), ICMP rate limiting, reject
// routes, the PMTU black-hole switch, bridge FDB ageing and hairpin, and a veth end moved between namespaces.

import { describe, expect, it } from 'vitest';
import { Packet } from '../../src/core/packet.ts';
import { lessonTopology } from '../../src/k8s/lesson.ts';
import { Veth } from '../../src/link/veth.ts';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec, execOrThrow as must, spawn } from '../../src/tools/exec.ts';
import { formatMac, parseIpv4, parseMac } from '../../src/wire/address.ts';

/** a (10.0.1.1) — r (10.0.1.254 | 10.0.2.254) — b (10.0.2.1); r forwards. */
function routed(seed: number, options: { mtuRb?: number } = {}) {
  const sim = new Simulation({ seed });
  const [a, r, b] = ['a', 'r', 'b'].map((name) => sim.addNamespace(name)) as [
    Namespace,
    Namespace,
    Namespace,
  ];
  for (const ns of [a, r, b]) must(ns, 'ip link set lo up');
  must(a, 'ip link add eth0 type veth peer name to-a netns r');
  must(b, `ip link add eth0 ${options.mtuRb ? `mtu ${options.mtuRb} ` : ''}type veth peer name to-b netns r`);
  must(a, 'ip addr add 10.0.1.1/24 dev eth0');
  must(b, 'ip addr add 10.0.2.1/24 dev eth0');
  must(r, 'ip addr add 10.0.1.254/24 dev to-a');
  must(r, 'ip addr add 10.0.2.254/24 dev to-b');
  for (const [ns, dev] of [
    [a, 'eth0'],
    [b, 'eth0'],
    [r, 'to-a'],
    [r, 'to-b'],
  ] as const)
    must(ns, `ip link set ${dev} up`);
  must(a, 'ip route add default via 10.0.1.254');
  must(b, 'ip route add default via 10.0.2.254');
  must(r, 'sysctl -w net.ipv4.ip_forward=1');
  return { sim, a, r, b };
}

describe('fragmentation and reassembly', () => {
  it('a 3000-byte ping without DF leaves in three fragments and is reassembled at b', () => {
    const { a, b } = routed(1);
    const onB = spawn(b, 'tcpdump -ni eth0 icmp');
    const result = exec(a, 'ping -c 1 -M dont -s 3000 10.0.2.1');
    expect(result.stdout).toContain('3008 bytes from 10.0.2.1: icmp_seq=1 ttl=63');
    if (!('stop' in onB)) throw new Error(onB.stderr);
    const lines = onB.stop().stdout.trim().split('\n');
    // Request: three fragments of IP lengths 1500, 1500 and 3028 - 2*1480 + 20 = 88 (tcpdump's "length" is the IP payload).
    expect(lines.slice(0, 3).map((line) => line.replace(/^\S+ /, ''))).toEqual([
      expect.stringMatching(/^IP 10\.0\.1\.1 > 10\.0\.2\.1: ICMP echo request, id \d+, seq 1, length 1480$/),
      'IP 10.0.1.1 > 10.0.2.1: ip-proto-1',
      'IP 10.0.1.1 > 10.0.2.1: ip-proto-1',
    ]);
    expect(b.ipv4.mib.reasmOKs).toBe(1);
    expect(b.ipv4.mib.reasmReqds).toBe(3);
  });

  it('forwarding fragments a datagram for a smaller next-hop MTU when DF is clear', () => {
    const { a, r, b } = routed(2, { mtuRb: 1000 });
    must(r, 'ip link set to-b mtu 1000');
    const result = exec(a, 'ping -c 1 -M dont -s 1400 10.0.2.1');
    expect(result.exitCode).toBe(0);
    expect(r.ipv4.mib.fragCreates).toBe(2);
    expect(b.ipv4.mib.reasmOKs).toBe(1);
  });

  it('a datagram missing a fragment times out after ipfrag_time (30 s) with time exceeded (reassembly)', () => {
    const { sim, a, b } = routed(3);
    must(a, 'ping -c 1 10.0.2.1'); // resolve neighbours
    const errors = spawn(a, 'tcpdump -ni eth0 icmp');
    // Send only the first fragment of a UDP datagram from a's eth0: forge it by hand.
    const first = datagram(parseIpv4('10.0.1.1')!, parseIpv4('10.0.2.1')!, { totalLen: 60, flags: 0x20 });
    const eth0 = a.byName('eth0')!;
    const gateway = a.ipv4.neighbours.get(eth0.ifindex, parseIpv4('10.0.1.254')!)!.lladdr!;
    a.ipv4.transmitTo(first, eth0, gateway);
    sim.run(29e9);
    expect(b.ipv4.mib.reasmTimeout).toBe(0);
    sim.run(2e9);
    expect(b.ipv4.mib.reasmTimeout).toBe(1);
    expect(b.ipv4.drops.get('FRAG_REASM_TIMEOUT')).toBe(1);
    if (!('stop' in errors)) throw new Error(errors.stderr);
    expect(errors.stop().stdout).toMatch(
      /IP 10\.0\.2\.1 > 10\.0\.1\.1: ICMP ip reassembly time exceeded, length \d+/,
    );
  });
});

/** A UDP-protocol IPv4 datagram of `totalLen` bytes with the given flags byte (0x40 DF, 0x20 MF) and a valid header checksum. */
function datagram(
  src: number,
  dst: number,
  options: { totalLen: number; flags: number; ident?: number },
): Packet {
  const pkt = Packet.allocate(options.totalLen);
  const b = pkt.buf;
  const at = pkt.start;
  const ident = options.ident ?? 0x1234;
  b.set(
    [
      0x45,
      0,
      options.totalLen >>> 8,
      options.totalLen & 0xff,
      ident >>> 8,
      ident & 0xff,
      options.flags,
      0,
      64,
      17,
      0,
      0,
    ],
    at,
  );
  for (let i = 0; i < 4; i++) {
    b[at + 12 + i] = (src >>> (24 - 8 * i)) & 0xff;
    b[at + 16 + i] = (dst >>> (24 - 8 * i)) & 0xff;
  }
  let sum = 0;
  for (let i = 0; i < 20; i += 2) sum += (b[at + i]! << 8) | b[at + i + 1]!;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  b[at + 10] = (~sum >>> 8) & 0xff;
  b[at + 11] = ~sum & 0xff;
  pkt.network = at;
  return pkt;
}

describe('ICMP errors', () => {
  it('time exceeded is rate-limited per peer: a burst of six, then one per icmp_ratelimit (1 s)', () => {
    const { a } = routed(4);
    const result = exec(a, 'ping -c 20 -i 0.01 -t 1 -W 1 10.0.2.1');
    const exceeded = result.stdout.split('\n').filter((line) => line.includes('Time to live exceeded'));
    expect(exceeded).toHaveLength(6);
    expect(exceeded[0]).toBe('From 10.0.1.254 icmp_seq=1 Time to live exceeded');
  });

  it('frag-needed is never rate-limited', () => {
    const { sim, a, r } = routed(5);
    must(r, 'ip link set to-b mtu 1000');
    must(a, 'ping -c 1 10.0.1.254'); // resolve the gateway
    const errors = spawn(a, 'tcpdump -ni eth0 icmp');
    const eth0 = a.byName('eth0')!;
    const gateway = a.ipv4.neighbours.get(eth0.ifindex, parseIpv4('10.0.1.254')!)!.lladdr!;
    // Twenty 1400-byte DF datagrams sent at once, past the sender's own PMTU cache.
    for (let i = 0; i < 20; i++)
      a.ipv4.transmitTo(
        datagram(parseIpv4('10.0.1.1')!, parseIpv4('10.0.2.1')!, { totalLen: 1400, flags: 0x40, ident: i }),
        eth0,
        gateway,
      );
    sim.run(0);
    if (!('stop' in errors)) throw new Error(errors.stderr);
    const needFrag = errors
      .stop()
      .stdout.split('\n')
      .filter((line) => line.includes('need to frag (mtu 1000)'));
    expect(needFrag).toHaveLength(20);
    expect(r.ipv4.icmp.stats.outRateLimitHost).toBe(0);
  });

  it('a prohibit route answers "Packet filtered", an unreachable route "Destination Host Unreachable"', () => {
    const { a, r } = routed(6);
    must(r, 'ip route add prohibit 192.0.2.0/24');
    must(r, 'ip route add unreachable 198.51.100.0/24');
    must(a, 'ip route replace default via 10.0.1.254');
    expect(exec(a, 'ping -c 1 -W 1 192.0.2.1').stdout).toContain(
      'From 10.0.1.254 icmp_seq=1 Packet filtered',
    );
    expect(exec(a, 'ping -c 1 -W 1 198.51.100.1').stdout).toContain(
      'From 10.0.1.254 icmp_seq=1 Destination Host Unreachable',
    );
  });

  it('the PMTU black-hole switch silences frag-needed: big DF pings vanish', () => {
    const lesson = lessonTopology({ nodes: 'vxlan', podMtu: 1500 });
    must(lesson.w1, 'sysctl -w net.packetlab.icmp_errors_blackhole=1');
    const result = exec(lesson.diag, 'ping -c 1 -W 2 -M do -s 1472 10.244.2.7');
    expect(result.stdout).toContain('1 packets transmitted, 0 received, 100% packet loss');
    expect(result.stdout).not.toContain('Frag needed');
    expect(lesson.w1.ipv4.drops.get('PKT_TOO_BIG')).toBe(1);
  });
});

describe('bridge', () => {
  it('forgets a learned MAC after 300 s of silence (ageing)', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'direct' });
    must(lesson.diag, 'ping -c 1 10.244.1.9');
    const diagMac = formatMac(lesson.diag.byName('eth0')!.mac);
    const learned = () => must(lesson.w1, 'bridge fdb show br cni0').includes(`${diagMac} dev`);
    // The last frame from diag is the answer to a neighbour probe about 5 s later (DELAY → PROBE).
    lesson.sim.run(290e9);
    expect(learned()).toBe(true);
    lesson.sim.run(20e9);
    expect(learned()).toBe(false);
  });

  it('sends a frame back out of its ingress port only with hairpin mode on', () => {
    const lesson = lessonTopology({ pods: 'bridge', nodes: 'direct' });
    must(lesson.diag, 'ping -c 1 10.244.1.1');
    const w1 = lesson.w1;
    const port = w1
      .all()
      .find((dev) => dev instanceof Veth && dev.masterIndex !== 0 && dev.peer?.owner === lesson.diag)!;
    // A frame from diag to its own MAC: the FDB says "behind the ingress port".
    const frameToSelf = (): Packet => {
      const mac = lesson.diag.byName('eth0')!.mac;
      const pkt = Packet.allocate(60);
      pkt.buf.set(macBytes(mac), pkt.start);
      pkt.buf.set(macBytes(mac), pkt.start + 6);
      pkt.buf.set([0x88, 0xb5], pkt.start + 12);
      return pkt;
    };
    // The lesson's pods have hairpin mode, as flannel's CNI configuration asks; start without it.
    must(w1, `ip link set ${port.name} type bridge_slave hairpin off`);
    const before = port.stats.txPackets;
    port.receive(frameToSelf());
    lesson.sim.run(0);
    expect(port.stats.txPackets).toBe(before);
    must(w1, `ip link set ${port.name} type bridge_slave hairpin on`);
    port.receive(frameToSelf());
    lesson.sim.run(0);
    expect(port.stats.txPackets).toBe(before + 1);
  });
});

function macBytes(mac: number): number[] {
  return formatMac(mac)
    .split(':')
    .map((octet) => Number.parseInt(octet, 16));
}

describe('veth ends between namespaces', () => {
  it('moving an end to another namespace takes it down and away; the pair works again once configured', () => {
    const sim = new Simulation({ seed: 9 });
    const a = sim.addNamespace('a');
    const b = sim.addNamespace('b');
    must(a, 'ip link add va type veth peer name vb');
    must(a, 'ip link set vb netns b');
    expect(a.byName('vb')).toBeUndefined();
    expect(b.byName('vb')?.adminUp).toBe(false);
    must(a, 'ip addr add 10.9.0.1/24 dev va');
    must(b, 'ip addr add 10.9.0.2/24 dev vb');
    must(a, 'ip link set va up');
    must(b, 'ip link set vb up');
    expect(exec(a, 'ping -c 1 10.9.0.2').exitCode).toBe(0);
    expect(parseMac(formatMac(b.byName('vb')!.mac))).toBe(b.byName('vb')!.mac);
  });
});
