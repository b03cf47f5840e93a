// Rule-evaluation test support: a routed lab (a — r — b, r forwards), rulesets loaded through the real front ends
// (iptables, iptables-restore, nft -f), real traffic from the sockets and ping, and composable packet checkers
// over what the device taps saw (`expectIpv4(seen, src('10.0.1.1'), udp(dport(53)), mark(0x4000))`).

import { expect } from 'vitest';
import { Packet } from '../../../src/core/packet.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { type CommandResult, exec, execOrThrow as must } from '../../../src/tools/exec.ts';
import { formatIpv4, parseIpv4 } from '../../../src/wire/address.ts';
import { ETHERTYPE_IPV4 } from '../../../src/wire/ethernet.ts';
import { Icmpv4View } from '../../../src/wire/icmpv4.ts';
import { IPPROTO_ICMP, IPPROTO_TCP, Ipv4View } from '../../../src/wire/ipv4.ts';
import { TcpView } from '../../../src/wire/tcp.ts';
import { IPPROTO_UDP, UdpView } from '../../../src/wire/udp.ts';
import { tcp as tcpDatagram } from '../../support/frames.ts';
import { tcpFlags } from '../../support/packets.ts';

export const SEC = 1e9;

/** One frame a device tap saw, copied, with the skb mark it carried at that moment. */
export interface Seen {
  readonly dev: string;
  readonly dir: 'rx' | 'tx';
  readonly frame: Uint8Array;
  readonly mark: number;
}

/** Records every frame through `dev` of `ns` (a live array, appended as the simulation runs). */
export function tap(ns: Namespace, dev: string): Seen[] {
  const device = ns.byName(dev);
  if (device === undefined) throw new Error(`${ns.name} has no ${dev}`);
  const seen: Seen[] = [];
  device.taps.push((d, pkt, dir) =>
    seen.push({ dev: d.name, dir, frame: pkt.frame().slice(), mark: pkt.mark }),
  );
  return seen;
}

export interface Lab {
  readonly sim: Simulation;
  /** 10.0.1.1 (and 10.0.3.1) on eth0, default via r. */
  readonly a: Namespace;
  /** 10.0.1.254 on to-a, 10.0.2.254 on to-b, forwarding. */
  readonly r: Namespace;
  /** 10.0.2.1 (and 10.0.4.1) on eth0, default via r. */
  readonly b: Namespace;
  /** What reached b's eth0 (rx) and left it (tx). */
  readonly atB: Seen[];
  /** What reached a's eth0 (rx) and left it (tx). */
  readonly atA: Seen[];
  /** What r sent towards b / towards a, with the mark the packet had when it left. */
  readonly rToB: Seen[];
  readonly rToA: Seen[];
}

/** a (10.0.1.1) — r (10.0.1.254 | 10.0.2.254) — b (10.0.2.1); neighbours resolved before any rule is loaded. */
export function lab(seed: string | number = 'eval'): Lab {
  const sim = new Simulation({ seed });
  const [a, r, b] = ['a', 'r', 'b'].map((name) => sim.addNamespace(name)) as [
    Namespace,
    Namespace,
    Namespace,
  ];
  for (const ns of [a, r, b]) must(ns, 'ip link set lo up');
  must(a, 'ip link add eth0 type veth peer name to-a netns r');
  must(b, 'ip link add eth0 type veth peer name to-b netns r');
  must(a, 'ip addr add 10.0.1.1/24 dev eth0');
  must(b, 'ip addr add 10.0.2.1/24 dev eth0');
  must(r, 'ip addr add 10.0.1.254/24 dev to-a');
  must(r, 'ip addr add 10.0.2.254/24 dev to-b');
  must(a, 'ip link set eth0 up');
  must(b, 'ip link set eth0 up');
  must(r, 'ip link set to-a up');
  must(r, 'ip link set to-b up');
  must(a, 'ip route add default via 10.0.1.254');
  must(b, 'ip route add default via 10.0.2.254');
  // Second networks behind a and b, for the address matches: a also has 10.0.3.1, b also 10.0.4.1.
  must(a, 'ip addr add 10.0.3.1/24 dev eth0');
  must(b, 'ip addr add 10.0.4.1/24 dev eth0');
  must(r, 'ip route add 10.0.3.0/24 via 10.0.1.1');
  must(r, 'ip route add 10.0.4.0/24 via 10.0.2.1');
  must(r, 'sysctl -w net.ipv4.ip_forward=1');
  must(a, 'ping -c 1 10.0.2.1');
  must(r, 'ping -c 1 10.0.1.1');
  must(r, 'ping -c 1 10.0.2.1');
  return {
    sim,
    a,
    r,
    b,
    atB: tap(b, 'eth0'),
    atA: tap(a, 'eth0'),
    rToB: tap(r, 'to-b'),
    rToA: tap(r, 'to-a'),
  };
}

function ok(result: CommandResult, what: string): CommandResult {
  expect(result.stderr, what).toBe('');
  expect(result.exitCode, what).toBe(0);
  return result;
}

/** Runs each `iptables ...` line (the word `iptables` included) and requires success. */
export function iptables(ns: Namespace, ...lines: string[]): void {
  for (const line of lines) ok(exec(ns, line), line);
}

/** `iptables-restore` with `rules` on standard input. */
export function restore(ns: Namespace, rules: string, flags = ''): void {
  ok(exec(ns, `iptables-restore ${flags}`.trim(), { stdin: rules }), 'iptables-restore');
}

let files = 0;

/** Writes `ruleset` to a simulation file and loads it with `nft -f FILE`; returns the result unchecked. */
export function nftFile(ns: Namespace, ruleset: string): CommandResult {
  const path = `/tmp/eval-${++files}.nft`;
  ns.sim.files.set(path, new TextEncoder().encode(ruleset));
  return exec(ns, `nft -f ${path}`);
}

/** `nft -f` that must succeed. */
export function nft(ns: Namespace, ruleset: string): void {
  ok(nftFile(ns, ruleset), 'nft -f');
}

// ---- traffic ------------------------------------------------------------------------------

function addr(text: string): number {
  const value = parseIpv4(text);
  if (value === undefined) throw new Error(`bad address ${text}`);
  return value;
}

/** The UDP datagrams a listening namespace received, as "src:sport > dst:dport". */
export function listen(ns: Namespace, port: number): string[] {
  const got: string[] = [];
  ns.udp.bind(0, port, (d) =>
    got.push(`${formatIpv4(d.srcAddr)}:${d.srcPort} > ${formatIpv4(d.dstAddr)}:${d.dstPort}`),
  );
  return got;
}

/** A UDP echo server on `port`: answers each datagram from that port and records it as in `listen`. */
export function udpEcho(ns: Namespace, port: number): string[] {
  const got: string[] = [];
  ns.udp.bind(0, port, (d) => {
    got.push(`${formatIpv4(d.srcAddr)}:${d.srcPort} > ${formatIpv4(d.dstAddr)}:${d.dstPort}`);
    ns.udp.send({ dst: d.srcAddr, dstPort: d.srcPort, srcPort: port, payload: d.payload });
  });
  return got;
}

export interface UdpOptions {
  readonly src?: string;
  readonly sport?: number;
  readonly dport?: number;
  readonly mark?: number;
  readonly len?: number;
}

/** Sends one UDP datagram (default ports 40000 → 53, 4 bytes of payload). */
export function sendUdp(from: Namespace, to: string, options: UdpOptions = {}): void {
  const sent = from.udp.send({
    dst: addr(to),
    dstPort: options.dport ?? 53,
    srcPort: options.sport ?? 40000,
    payload: new Uint8Array(options.len ?? 4),
    ...(options.src !== undefined ? { src: addr(options.src) } : {}),
    ...(options.mark !== undefined ? { mark: options.mark } : {}),
  });
  expect(sent.ok).toBe(true);
}

/** A bare SYN (the receiver has no listener and answers with a RST). */
export function sendSyn(from: Namespace, to: string, dport: number, sport = 40000): void {
  const sent = from.tcp.sendSyn(addr(to), dport, sport);
  expect(sent.ok).toBe(true);
}

/** Puts a hand-made IPv4 datagram on `from`'s eth0, addressed to its default gateway (r). */
export function sendRaw(from: Namespace, datagram: Uint8Array): void {
  const eth0 = from.byName('eth0')!;
  const gateway = from === from.sim.namespace('a') ? '10.0.1.254' : '10.0.2.254';
  const lladdr = from.ipv4.neighbours.get(eth0.ifindex, addr(gateway))?.lladdr;
  if (lladdr === undefined) throw new Error(`${from.name}: gateway not resolved`);
  const pkt = Packet.fromFrame(datagram);
  pkt.network = pkt.start;
  from.ipv4.transmitTo(pkt, eth0, lladdr);
}

/** A TCP segment from a to b as bytes (any flags: "SF", "R", "S."), for the matches that look at flags. */
export function rawTcp(options: {
  src?: string;
  dst?: string;
  sport?: number;
  dport?: number;
  flags: string;
  seq?: number;
  ack?: number;
}): Uint8Array {
  return tcpDatagram({
    src: addr(options.src ?? '10.0.1.1'),
    dst: addr(options.dst ?? '10.0.2.1'),
    srcPort: options.sport ?? 40000,
    dstPort: options.dport ?? 80,
    seq: options.seq ?? 1000,
    ack: options.ack ?? 0,
    flags: tcpFlags(options.flags),
  });
}

export function netfilterDrops(l: Lab): number {
  let sum = 0;
  for (const ns of [l.a, l.r, l.b]) sum += ns.ipv4.drops.get('NETFILTER_DROP') ?? 0;
  return sum;
}

/** Something sent, and how to count its arrivals where it goes. */
export interface Probe {
  readonly label: string;
  send(l: Lab): void;
  arrivals(l: Lab): number;
}

export type Name = 'a' | 'r' | 'b';

function nsOf(l: Lab, name: Name): Namespace {
  return name === 'a' ? l.a : name === 'r' ? l.r : l.b;
}

/** Where a destination address lives. */
function owner(dstAddr: string): Name {
  if (dstAddr === '10.0.1.254' || dstAddr === '10.0.2.254') return 'r';
  if (dstAddr.startsWith('10.0.1.') || dstAddr.startsWith('10.0.3.')) return 'a';
  return 'b';
}

/** What reached the destination's own device: b's and a's eth0 taps, r's sockets and ICMP. */
function received(l: Lab, at: Name, ...checks: Check[]): number {
  if (at === 'b') return select(l.atB, rx, ...checks).length;
  if (at === 'a') return select(l.atA, rx, ...checks).length;
  throw new Error('count arrivals at r with a socket');
}

/**
 * A UDP datagram from `from` to `to`. A socket listens on the destination port of b and a (so no port
 * unreachable comes back) unless `closed`; arrivals at r count r's UDP deliveries.
 */
export function udpProbe(from: Name, to: string, options: UdpOptions & { closed?: boolean } = {}): Probe {
  const srcAddr = options.src ?? (from === 'a' ? '10.0.1.1' : from === 'b' ? '10.0.2.1' : undefined);
  const sportValue = options.sport ?? 40000;
  const dportValue = options.dport ?? 53;
  const at = owner(to);
  return {
    label: `udp ${from} ${srcAddr ?? ''}:${sportValue} > ${to}:${dportValue}${options.mark ? ` mark ${options.mark}` : ''}`,
    send(l) {
      const dest = nsOf(l, at);
      if (!options.closed && !dest.udp.isBound(dportValue)) dest.udp.bind(0, dportValue, () => {});
      sendUdp(nsOf(l, from), to, options);
    },
    arrivals(l) {
      if (at === 'r') return l.r.udp.stats.inDatagrams + l.r.udp.stats.noPorts;
      return received(
        l,
        at,
        ...(srcAddr === undefined ? [] : [src(srcAddr)]),
        dst(to),
        udp(sport(sportValue), dport(dportValue)),
      );
    },
  };
}

/** A SYN from a to b (or b to a); counts the SYN's arrival. */
export function synProbe(from: 'a' | 'b', to: string, dportValue: number, sportValue = 40000): Probe {
  const at = owner(to);
  return {
    label: `syn ${from} > ${to}:${dportValue}`,
    send: (l) => sendSyn(nsOf(l, from), to, dportValue, sportValue),
    arrivals: (l) => received(l, at, dst(to), tcp(flags('S'), sport(sportValue), dport(dportValue))),
  };
}

/** A SYN from a to b:dport; counts the RST b answers with, arriving at a. */
export function resetProbe(dportValue: number, sportValue = 40000): Probe {
  return {
    label: `rst b:${dportValue} > a`,
    send: (l) => sendSyn(l.a, '10.0.2.1', dportValue, sportValue),
    arrivals: (l) =>
      received(l, 'a', src('10.0.2.1'), tcp(sport(dportValue), dport(sportValue), flags('R.'))),
  };
}

/** A hand-made TCP segment from a to b; counts its arrival at b. */
export function rawTcpProbe(options: Parameters<typeof rawTcp>[0]): Probe {
  return {
    label: `raw tcp ${options.flags}`,
    send: (l) => sendRaw(l.a, rawTcp(options)),
    arrivals: (l) => received(l, 'b', src(options.src ?? '10.0.1.1'), tcp(dport(options.dport ?? 80))),
  };
}

/** `ping -c 1` from a to b: `reply` counts the echo reply back at a instead of the request at b. */
export function pingProbe(options: { reply?: boolean; to?: string } = {}): Probe {
  const to = options.to ?? '10.0.2.1';
  return {
    label: `ping ${to}${options.reply ? ' (reply)' : ''}`,
    send: (l) => {
      exec(l.a, `ping -c 1 -W 1 ${to}`);
    },
    arrivals: (l) =>
      options.reply
        ? received(l, 'a', src(to), icmp(type(0)))
        : received(l, owner(to), dst(to), icmp(type(8))),
  };
}

/** A UDP datagram from a to a closed port of b; counts the port unreachable b answers with, arriving at a. */
export function unreachableProbe(dportValue = 9): Probe {
  return {
    label: `port unreachable from b:${dportValue}`,
    send: (l) => {
      if (l.b.udp.isBound(dportValue)) throw new Error(`b listens on ${dportValue}`);
      sendUdp(l.a, '10.0.2.1', { dport: dportValue });
    },
    arrivals: (l) => received(l, 'a', src('10.0.2.1'), icmp(type(3, 3))),
  };
}

export type Fate = 'passed' | 'dropped';

/**
 * Sends the probe, lets the simulation run a second, and tells whether it arrived ('passed') or never did
 * while some namespace counted a NETFILTER_DROP ('dropped'). Anything else fails the test.
 */
export function fate(l: Lab, probe: Probe): Fate {
  const before = probe.arrivals(l);
  const drops = netfilterDrops(l);
  probe.send(l);
  l.sim.run(SEC);
  const arrived = probe.arrivals(l) - before;
  const dropped = netfilterDrops(l) - drops;
  if (arrived === 1) return 'passed';
  if (arrived === 0 && dropped >= 1) return 'dropped';
  throw new Error(
    `${probe.label}: neither passed nor dropped: ${arrived} arrived, ${dropped} NETFILTER_DROP`,
  );
}

/** One step of a case: a probe and its expected fate, or a pause on the virtual clock. */
export type Step = readonly [Probe, Fate] | { readonly wait: number };

/** Runs the steps in order and returns each probe's fate next to its label, to compare with the expected list. */
export function run(l: Lab, steps: readonly Step[]): string[] {
  const fates: string[] = [];
  for (const step of steps) {
    if ('wait' in step) {
      l.sim.run(step.wait * SEC);
      continue;
    }
    fates.push(`${step[0].label}: ${fate(l, step[0])}`);
  }
  return fates;
}

/** The expected result of `run`. */
export function expected(steps: readonly Step[]): string[] {
  return steps.flatMap((step) => ('wait' in step ? [] : [`${step[0].label}: ${step[1]}`]));
}

/** A table-driven case: iptables lines on r, probes with their fates, the rule counters afterwards. */
export interface RuleCase {
  readonly name: string;
  /** iptables command lines run on r. */
  readonly rules: readonly string[];
  readonly steps: readonly Step[];
  /** Expected packet counters of the last rules of a chain after the steps (default: filter FORWARD). */
  readonly packets: readonly number[];
  readonly chain?: readonly [table: string, chain: string];
}

export function checkRuleCase(c: RuleCase): Lab {
  const l = lab(c.name);
  iptables(l.r, ...c.rules);
  expect(run(l, c.steps)).toEqual(expected(c.steps));
  const [table, chain] = c.chain ?? ['filter', 'FORWARD'];
  expect(rulePackets(l.r, table, chain).slice(-c.packets.length)).toEqual(c.packets);
  return l;
}

// ---- packet checkers ------------------------------------------------------------------------

/** A received or sent IPv4 packet, parsed. */
export interface Ipv4Packet {
  readonly seen: Seen;
  readonly ip: Ipv4View;
}

/** A check returns undefined when the packet fits, else what it found instead. */
export type Check = (packet: Ipv4Packet) => string | undefined;

function parse(seen: Seen): Ipv4Packet | undefined {
  const f = seen.frame;
  if (f.length < 34 || ((f[12]! << 8) | f[13]!) !== ETHERTYPE_IPV4) return undefined;
  const ip = Ipv4View.checked(f, 14);
  return ip instanceof Ipv4View ? { seen, ip } : undefined;
}

function describe(value: number, expected: number, what: string): string | undefined {
  return value === expected ? undefined : `${what} ${value} (0x${value.toString(16)}), expected ${expected}`;
}

export const rx: Check = (p) => (p.seen.dir === 'rx' ? undefined : 'sent, expected received');
export const tx: Check = (p) => (p.seen.dir === 'tx' ? undefined : 'received, expected sent');
export const src =
  (a: string): Check =>
  (p) =>
    p.ip.srcAddr === addr(a) ? undefined : `src ${formatIpv4(p.ip.srcAddr)}, expected ${a}`;
export const dst =
  (a: string): Check =>
  (p) =>
    p.ip.dstAddr === addr(a) ? undefined : `dst ${formatIpv4(p.ip.dstAddr)}, expected ${a}`;
export const ttl =
  (value: number): Check =>
  (p) =>
    describe(p.ip.ttl, value, 'ttl');
/** The skb mark when a tap saw the packet (only meaningful on a sending device inside the namespace that set it). */
export const mark =
  (value: number): Check =>
  (p) =>
    describe(p.seen.mark >>> 0, value >>> 0, 'mark');

/** Checks on a transport header: sport, dport, flags, seq, ack for TCP; sport, dport for UDP; type, code for ICMP. */
export interface L4 {
  readonly srcPort: number;
  readonly dstPort: number;
  readonly flags: number;
  readonly seq: number;
  readonly ack: number;
  readonly type: number;
  readonly code: number;
}
export type L4Check = (l4: L4) => string | undefined;

function l4Of(p: Ipv4Packet, protocol: number): L4 | string {
  if (p.ip.protocol !== protocol) return `protocol ${p.ip.protocol}, expected ${protocol}`;
  const at = p.ip.offset + p.ip.headerLen;
  const bytes = p.seen.frame.subarray(0, p.ip.offset + p.ip.totalLen);
  if (protocol === IPPROTO_TCP) {
    const t = TcpView.checked(bytes, at);
    if (!(t instanceof TcpView)) return 'bad TCP header';
    return {
      srcPort: t.srcPort,
      dstPort: t.dstPort,
      flags: t.flags,
      seq: t.seqNumber,
      ack: t.ackNumber,
      type: -1,
      code: -1,
    };
  }
  if (protocol === IPPROTO_UDP) {
    const u = UdpView.checked(bytes, at);
    if (!(u instanceof UdpView)) return 'bad UDP header';
    return { srcPort: u.srcPort, dstPort: u.dstPort, flags: 0, seq: 0, ack: 0, type: -1, code: -1 };
  }
  const i = Icmpv4View.checked(bytes, at);
  if (!(i instanceof Icmpv4View)) return 'bad ICMP header';
  return { srcPort: -1, dstPort: -1, flags: 0, seq: 0, ack: 0, type: i.type, code: i.code };
}

function l4(protocol: number, checks: readonly L4Check[]): Check {
  return (p) => {
    const header = l4Of(p, protocol);
    if (typeof header === 'string') return header;
    for (const check of checks) {
      const problem = check(header);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

export const tcp = (...checks: L4Check[]): Check => l4(IPPROTO_TCP, checks);
export const udp = (...checks: L4Check[]): Check => l4(IPPROTO_UDP, checks);
export const icmp = (...checks: L4Check[]): Check => l4(IPPROTO_ICMP, checks);
export const sport =
  (port: number): L4Check =>
  (h) =>
    describe(h.srcPort, port, 'sport');
export const dport =
  (port: number): L4Check =>
  (h) =>
    describe(h.dstPort, port, 'dport');
export const sportIn =
  (low: number, high: number): L4Check =>
  (h) =>
    h.srcPort >= low && h.srcPort <= high ? undefined : `sport ${h.srcPort}, expected ${low}-${high}`;
/** TCP flags as tcpdump letters: "S", "R.", "S." (. is ACK). */
export const flags =
  (letters: string): L4Check =>
  (h) => {
    let value = 0;
    for (const letter of letters)
      value |= { F: 0x01, S: 0x02, R: 0x04, P: 0x08, '.': 0x10, U: 0x20, E: 0x40, W: 0x80 }[letter] ?? 0;
    return describe(h.flags, value, 'tcp flags');
  };
export const seq =
  (value: number): L4Check =>
  (h) =>
    describe(h.seq, value >>> 0, 'seq');
export const ack =
  (value: number): L4Check =>
  (h) =>
    describe(h.ack, value >>> 0, 'ack');
export const type =
  (value: number, code?: number): L4Check =>
  (h) =>
    describe(h.type, value, 'icmp type') ??
    (code === undefined ? undefined : describe(h.code, code, 'icmp code'));

/** The problems of one frame against every check (empty when it fits). */
export function problems(seen: Seen, ...checks: Check[]): string[] {
  const packet = parse(seen);
  if (packet === undefined) return ['not an IPv4 frame'];
  return checks.map((check) => check(packet)).filter((problem): problem is string => problem !== undefined);
}

/** Asserts one frame passes every check. */
export function expectIpv4(seen: Seen | undefined, ...checks: Check[]): void {
  expect(seen, 'no such frame').toBeDefined();
  expect(problems(seen!, ...checks)).toEqual([]);
}

/** The IPv4 frames that pass every check. */
export function select(seen: readonly Seen[], ...checks: Check[]): Seen[] {
  return seen.filter((one) => problems(one, ...checks).length === 0);
}

/** Asserts exactly one frame of `seen` passes every check, and returns it. */
export function only(seen: readonly Seen[], ...checks: Check[]): Seen {
  const found = select(seen, ...checks);
  expect(found.length, `frames matching among ${seen.length}`).toBe(1);
  return found[0]!;
}

/** The header fields of a frame's transport layer (to read a sequence number before checking an answer). */
export function l4Fields(seen: Seen): L4 {
  const packet = parse(seen);
  if (packet === undefined) throw new Error('not an IPv4 frame');
  const header = l4Of(packet, packet.ip.protocol);
  if (typeof header === 'string') throw new Error(header);
  return header;
}

// ---- counters ---------------------------------------------------------------------------------

/** `[packets:bytes]` of the rules of `chain` as `iptables-save -c` prints them, in order. */
export function ruleCounters(ns: Namespace, table: string, chain: string): string[] {
  const saved = exec(ns, `iptables-save -c -t ${table}`).stdout;
  return saved
    .split('\n')
    .filter((line) => line.startsWith('[') && line.includes(`] -A ${chain} `))
    .map((line) => /^\[(\d+:\d+)\]/.exec(line)?.[1] ?? '?');
}

/** Just the packet counts of ruleCounters. */
export function rulePackets(ns: Namespace, table: string, chain: string): number[] {
  return ruleCounters(ns, table, chain).map((pair) => Number(pair.split(':')[0]));
}

/** The `counter packets N bytes M` of each rule in `nft list ruleset`, in order, for rules containing `text`. */
export function nftCounters(ns: Namespace, text: string): string[] {
  return exec(ns, 'nft list ruleset')
    .stdout.split('\n')
    .filter((line) => line.includes(text))
    .map((line) => /counter packets (\d+) bytes (\d+)/.exec(line)?.slice(1, 3).join(':') ?? '?');
}
