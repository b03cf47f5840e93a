// `ping` as iputils prints it: echo requests on the virtual clock, replies, ICMP errors, local errors and the summary;
// options -c -s -M -W -i -t -m -I (by address); no flood, no -f/-A/-R, no IPv6.

import type { EchoEvent } from '../net/icmp.ts';
import type { PmtuDisc } from '../net/ipv4.ts';
import type { Namespace } from '../netns/namespace.ts';
import { formatIpv4, type Ipv4Addr, parseIpv4 } from '../wire/address.ts';
import { ICMPV4_ECHO_REQUEST, ICMPV4_HEADER_LEN, Icmpv4View } from '../wire/icmpv4.ts';
import { IPPROTO_ICMP } from '../wire/ipv4.ts';
import { type CommandResult, fail } from './result.ts';
import { formatG } from './tc-units.ts';

const USAGE = `
Usage
  ping [options] <destination>
`;

interface PingOptions {
  count: number;
  size: number;
  pmtudisc: PmtuDisc;
  waitNs: number | undefined;
  intervalNs: number;
  ttl: number | undefined;
  source: Ipv4Addr | undefined;
  mark: number;
  destination: string;
}

/** iputils' texts for destination-unreachable codes (ping_common.c: pr_icmph). */
const UNREACHABLE_TEXT: Record<number, string> = {
  0: 'Destination Net Unreachable',
  1: 'Destination Host Unreachable',
  2: 'Destination Protocol Unreachable',
  3: 'Destination Port Unreachable',
  5: 'Source Route Failed',
  6: 'Destination Net Unknown',
  7: 'Destination Host Unknown',
  8: 'Source Host Isolated',
  9: 'Destination Net Prohibited',
  10: 'Destination Host Prohibited',
  11: 'Destination Net Unreachable for Type of Service',
  12: 'Destination Host Unreachable for Type of Service',
  13: 'Packet filtered',
  14: 'Precedence Violation',
  15: 'Precedence Cutoff',
};

function parseOptions(args: string[]): PingOptions | string {
  const options: PingOptions = {
    count: Number.POSITIVE_INFINITY,
    size: 56,
    pmtudisc: 'want',
    waitNs: undefined,
    intervalNs: 1e9,
    ttl: undefined,
    source: undefined,
    mark: 0,
    destination: '',
  };
  const destinations: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      destinations.push(arg);
      continue;
    }
    const flag = arg.slice(0, 2);
    const inline = arg.length > 2 ? arg.slice(2) : undefined;
    const value = (): string | undefined => inline ?? args[++i];
    switch (flag) {
      case '-c': {
        const v = Number(value());
        if (!Number.isInteger(v) || v < 1)
          return `ping: invalid argument: '${args[i]}': out of range: 1 <= value <= 9223372036854775807`;
        options.count = v;
        break;
      }
      case '-s': {
        const text = value();
        const v = Number(text);
        if (!Number.isInteger(v) || v < 0 || v > 65507)
          return `ping: invalid argument: '${text}': out of range: 0 <= value <= 2147483647`;
        options.size = v;
        break;
      }
      case '-M': {
        const text = value();
        if (text === 'do' || text === 'dont' || text === 'want') options.pmtudisc = text;
        else return `ping: invalid -M argument: ${text}`;
        break;
      }
      case '-W': {
        const text = value();
        const v = Number(text);
        if (!Number.isFinite(v) || v < 0) return `ping: bad linger time: ${text}`;
        options.waitNs = Math.round(v * 1e9);
        break;
      }
      case '-i': {
        const text = value();
        const v = Number(text);
        if (!Number.isFinite(v) || v < 0) return `ping: bad timing interval: ${text}`;
        options.intervalNs = Math.round(v * 1e9);
        break;
      }
      case '-t': {
        const text = value();
        const v = Number(text);
        if (!Number.isInteger(v) || v < 1 || v > 255)
          return `ping: invalid argument: '${text}': out of range: 1 <= value <= 255`;
        options.ttl = v;
        break;
      }
      case '-I': {
        const text = value() ?? '';
        const addr = parseIpv4(text);
        if (addr === undefined) return `ping: invalid source address: ${text}`;
        options.source = addr;
        break;
      }
      case '-m': {
        const text = value();
        const v = Number(text);
        if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) return `ping: invalid argument: '${text}'`;
        options.mark = v;
        break;
      }
      case '-n':
      case '-q':
        break;
      default:
        return `ping: invalid option -- '${arg.slice(1, 2)}'${USAGE}`;
    }
  }
  if (destinations.length === 0) return `ping: usage error: Destination address required`;
  options.destination = destinations[destinations.length - 1]!;
  return options;
}

/** iputils' ` time=` of a round trip in whole microseconds: 3 decimals under 1 ms, 2 under 10, 1 under 100, else none. */
export function formatRtt(us: number): string {
  if (us >= 100000 - 50) return `${Math.trunc((us + 500) / 1000)}`;
  if (us >= 10000 - 5) return `${Math.trunc((us + 50) / 1000)}.${Math.trunc(((us + 50) % 1000) / 100)}`;
  if (us >= 1000)
    return `${Math.trunc((us + 5) / 1000)}.${String(Math.trunc(((us + 5) % 1000) / 10)).padStart(2, '0')}`;
  return `${Math.trunc(us / 1000)}.${String(us % 1000).padStart(3, '0')}`;
}

/** `%ld.%03ld` of microseconds, as the rtt summary prints them. */
function millis3(us: number): string {
  return `${Math.trunc(us / 1000)}.${String(us % 1000).padStart(3, '0')}`;
}

/** llsqrt: the integer square root by Newton's method. */
function llsqrt(a: number): number {
  let prev = Number.MAX_SAFE_INTEGER;
  let x = a;
  if (x > 0) {
    while (x < prev) {
      prev = x;
      x = Math.trunc((x + Math.trunc(a / x)) / 2);
    }
  }
  return x;
}

/** ping_print_statistics: min/avg/max/mdev over whole microseconds in integer arithmetic (duplicates included). */
export function rttSummary(rtts: readonly number[]): string {
  let tsum = 0;
  let tsum2 = 0;
  let tmin = Number.POSITIVE_INFINITY;
  let tmax = 0;
  for (const t of rtts) {
    tsum += t;
    tsum2 += t * t;
    if (t < tmin) tmin = t;
    if (t > tmax) tmax = t;
  }
  const total = rtts.length;
  const tmavg = Math.trunc(tsum / total);
  const tmvar =
    tsum < 0x7fff_ffff
      ? Math.trunc((tsum2 - Math.trunc((tsum * tsum) / total)) / total)
      : Math.trunc(tsum2 / total) - tmavg * tmavg;
  const tmdev = llsqrt(tmvar);
  return `rtt min/avg/max/mdev = ${millis3(tmin)}/${millis3(tmavg)}/${millis3(tmax)}/${millis3(tmdev)} ms`;
}

export function ping(ns: Namespace, args: string[]): CommandResult {
  const parsed = parseOptions(args);
  if (typeof parsed === 'string') return fail(`${parsed}\n`, 2);
  const dst = parseIpv4(parsed.destination);
  if (dst === undefined) return fail(`ping: ${parsed.destination}: Name or service not known\n`, 2);
  const stack = ns.ipv4;
  const route = stack.routeOutput(dst, {
    mark: parsed.mark,
    ...(parsed.source !== undefined ? { src: parsed.source } : {}),
  });
  if (!route.ok)
    return fail(
      `ping: connect: ${route.error === 'EACCES' ? 'Permission denied' : 'Network is unreachable'}\n`,
      2,
    );

  const scheduler = ns.sim.scheduler;
  const ident = ns.rng.int(0x10000);
  const lines: string[] = [
    `PING ${formatIpv4(dst)} (${formatIpv4(dst)}) ${parsed.size}(${parsed.size + 28}) bytes of data.`,
  ];
  let stderr = '';
  const sentAt = new Map<number, number>();
  const rtts: number[] = [];
  const answered = new Set<number>();
  let transmitted = 0;
  let received = 0;
  let repeats = 0;
  let errors = 0;
  let lastSendNs = 0;
  const startNs = scheduler.now;

  const onEcho = (event: EchoEvent): void => {
    if (event.kind === 'reply') {
      const sent = sentAt.get(event.seq);
      if (sent === undefined) return;
      // The trip time as iputils measures it: the send timestamp and the receive timestamp, both in microseconds.
      const us = Math.floor(scheduler.now / 1000) - Math.floor(sent / 1000);
      rtts.push(us);
      const duplicate = answered.has(event.seq);
      if (duplicate) repeats++;
      else {
        answered.add(event.seq);
        received++;
      }
      lines.push(
        `${event.bytes} bytes from ${formatIpv4(event.from)}: icmp_seq=${event.seq} ttl=${event.ttl} time=${formatRtt(us)} ms${duplicate ? ' (DUP!)' : ''}`,
      );
      return;
    }
    errors++;
    sentAt.delete(event.seq);
    lines.push(`From ${formatIpv4(event.from)} icmp_seq=${event.seq} ${errorText(event)}`);
  };
  stack.icmp.echoSockets.set(ident, onEcho);

  const sendOne = (seq: number): void => {
    transmitted++;
    lastSendNs = scheduler.now;
    const pkt = stack.allocatePacket(ICMPV4_HEADER_LEN + parsed.size);
    pkt.mark = parsed.mark;
    // ping's own socket, root's.
    pkt.skUid = 0;
    pkt.skGid = 0;
    const view = Icmpv4View.unchecked(pkt.buf, pkt.start);
    view.type = ICMPV4_ECHO_REQUEST;
    view.code = 0;
    view.ident = ident;
    view.seqNo = seq;
    fillPayload(pkt.buf, pkt.start + ICMPV4_HEADER_LEN, parsed.size, scheduler.now);
    view.fillChecksum();
    sentAt.set(seq, scheduler.now);
    const result = stack.output(pkt, route, {
      protocol: IPPROTO_ICMP,
      pmtudisc: parsed.pmtudisc,
      ...(parsed.ttl !== undefined ? { ttl: parsed.ttl } : {}),
    });
    if (!result.ok) {
      sentAt.delete(seq);
      errors++;
      if (result.error === 'EMSGSIZE') stderr += `ping: local error: message too long, mtu=${result.mtu}\n`;
      else
        stderr += `ping: sendmsg: ${result.error === 'EPERM' ? 'Operation not permitted' : 'Network is unreachable'}\n`;
    }
  };

  let seq = 0;
  let done = false;
  const count = parsed.count === Number.POSITIVE_INFINITY ? 1e9 : parsed.count;
  const tick = (): void => {
    seq++;
    sendOne(seq);
    if (seq < count) scheduler.schedule(parsed.intervalNs, tick);
    else {
      const waitNs = parsed.waitNs ?? 10e9;
      scheduler.schedule(waitNs, () => {
        done = true;
      });
    }
  };
  scheduler.schedule(0, tick);
  while (!done && scheduler.runNext()) {
    if (seq >= count && transmitted === count && answered.size + errors >= transmitted) break;
  }
  stack.icmp.echoSockets.delete(ident);

  // `%g%%` of a float, as iputils prints the loss.
  const loss = transmitted === 0 ? 0 : Math.fround(((transmitted - received) * 100) / transmitted);
  const elapsedMs = Math.round((lastSendNs - startNs) / 1e6);
  const repeatPart = repeats > 0 ? `, +${repeats} duplicates` : '';
  const errorPart = errors > 0 ? `, +${errors} errors` : '';
  lines.push('', `--- ${formatIpv4(dst)} ping statistics ---`);
  lines.push(
    `${transmitted} packets transmitted, ${received} received${repeatPart}${errorPart}, ${formatG(loss, 6)}% packet loss, time ${elapsedMs}ms`,
  );
  if (received > 0) lines.push(rttSummary(rtts));
  else {
    // iputils ends a summary that has no rtt line with an empty line.
    lines.push('');
  }
  return { stdout: `${lines.join('\n')}\n`, stderr, exitCode: received > 0 ? 0 : 1 };
}

function errorText(event: Extract<EchoEvent, { kind: 'error' }>): string {
  if (event.type === 11) return event.code === 0 ? 'Time to live exceeded' : 'Frag reassembly time exceeded';
  if (event.type === 3 && event.code === 4) return `Frag needed and DF set (mtu = ${event.info})`;
  if (event.type === 3) return UNREACHABLE_TEXT[event.code] ?? `Dest Unreachable, Bad Code: ${event.code}`;
  return `Bad ICMP type: ${event.type}`;
}

/** iputils fills the data with 0, 1, 2, ... and puts a struct timeval (two little-endian 64-bit words) first. */
function fillPayload(buf: Uint8Array, at: number, size: number, nowNs: number): void {
  for (let i = 0; i < size; i++) buf[at + i] = i & 0xff;
  if (size < 16) return;
  const seconds = Math.floor(nowNs / 1e9);
  const micros = Math.floor((nowNs % 1e9) / 1e3);
  buf.fill(0, at, at + 16);
  writeLe32(buf, at, seconds);
  writeLe32(buf, at + 8, micros);
}

function writeLe32(buf: Uint8Array, at: number, value: number): void {
  buf[at] = value & 0xff;
  buf[at + 1] = (value >>> 8) & 0xff;
  buf[at + 2] = (value >>> 16) & 0xff;
  buf[at + 3] = (value >>> 24) & 0xff;
}
