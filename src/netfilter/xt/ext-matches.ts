// Evaluates the xt matches of ext-options.ts on a packet as the kernel modules do: sctp (xt_sctp.c), hashlimit
// (xt_hashlimit.c), connlimit (xt_connlimit.c with nf_conncount.c), helper, rpfilter (ipt_rpfilter.c), u32
// (xt_u32.c), string (xt_string.c), time (xt_time.c), policy (xt_policy.c), ah/esp, ecn (xt_ecn.c), tos (xt_dscp.c:
// tos_mt). State lives per rule (connlimit) or per named table (hashlimit), in this object, one per namespace. Time
// is the virtual clock. `-m limit` compiles to nft's limit expression (expr/limit.ts), as iptables-nft writes it.

import { civilFromDays } from '../../core/civil-date.ts';
import type { Tuple } from '../conntrack/tuple.ts';
import type { Rule } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';
import { dccpMatches } from './dccp.ts';
import type { ExtMatchOptions, RangeTest, U32Test } from './ext-options.ts';

type Options<N extends ExtMatchOptions['name']> = Extract<ExtMatchOptions, { name: N }>;

/** Where the virtual clock's 0 is on the wall clock, for the time match: 2023-11-14T22:13:20Z. */
export const VIRTUAL_EPOCH_SECONDS = 1_700_000_000;

function u16(buf: Uint8Array, at: number): number {
  return (buf[at]! << 8) | buf[at + 1]!;
}

function u32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

function inRange(range: RangeTest | undefined, value: number): boolean {
  if (range === undefined) return true;
  return (value >= range.low && value <= range.high) !== range.invert;
}

/** One hashlimit entry (dsthash_ent): its credit in XT_HASHLIMIT_SCALE_v2 units and when it was last seen. */
interface HashEntry {
  credit: number;
  prev: number;
  expires: number;
}

const HASHLIMIT_SCALE = 1_000_000;
const NS_PER_SEC = 1e9;

export class ExtMatches {
  /** hashlimit tables by name (the first rule's name creates it; later rules of that name share it). */
  private readonly hashTables = new Map<string, Map<number, Map<number, Map<number, HashEntry>>>>();
  /** nf_conncount's lists: per rule, per key, the original tuples of the connections it saw. */
  private readonly counted = new WeakMap<object, Map<number, Tuple[]>>();
  /** sctp --chunk-types all: which wanted chunk types the packet has shown (reset after each packet). */
  private readonly chunkSeen = new Uint8Array(256);

  matches(state: PacketState, options: ExtMatchOptions, _rule: Rule): boolean {
    switch (options.name) {
      case 'sctp':
        return this.sctp(state, options);
      case 'dccp':
        return dccpMatches(state.pkt.buf, state.pkt.network, state.pkt.end, options);
      case 'hashlimit':
        return this.hashlimit(state, options);
      case 'connlimit':
        return this.connlimit(state, options);
      case 'helper':
        // helper_mt: with no helper on the connection (packetlab's conntrack assigns none) the result is `invert`.
        return options.invert;
      case 'rpfilter':
        return this.rpfilter(state, options);
      case 'u32':
        return u32Matches(state.pkt.buf, state.pkt.network, state.pkt.end, options.tests) !== options.invert;
      case 'string':
        return stringFound(state.pkt.buf, state.pkt.network, state.pkt.end, options) !== options.invert;
      case 'time':
        return timeMatches(options, VIRTUAL_EPOCH_SECONDS + Math.floor(state.host.now() / NS_PER_SEC));
      case 'policy':
        // No packet has a security path: policy_mt's -1 becomes "--pol none matches".
        return !options.ipsec;
      case 'ah':
      case 'esp': {
        const th = this.transport(state, options.name === 'ah' ? 8 : 4);
        if (th < 0) return false;
        return inRange(options.spi, u32(state.pkt.buf, th + (options.name === 'ah' ? 4 : 0)));
      }
      case 'ecn':
        return this.ecn(state, options);
      case 'tos': {
        const tos = state.pkt.buf[state.pkt.network + 1]!;
        return ((tos & options.mask) === options.value) !== options.invert;
      }
    }
  }

  /** The transport header's offset when this is a first fragment with `need` bytes of it, else -1. */
  private transport(state: PacketState, need: number): number {
    const { buf, network, end } = state.pkt;
    if ((u16(buf, network + 6) & 0x1fff) !== 0) return -1;
    const th = network + (buf[network]! & 0x0f) * 4;
    return th + need <= end ? th : -1;
  }

  /** sctp_mt: ports, then the chunks (match_packet) for all/any/only. */
  private sctp(state: PacketState, options: Options<'sctp'>): boolean {
    const th = this.transport(state, 12);
    if (th < 0) return false;
    const { buf, end } = state.pkt;
    if (!inRange(options.sport, u16(buf, th)) || !inRange(options.dport, u16(buf, th + 2))) return false;
    const chunks = options.chunks;
    if (chunks === undefined) return true;
    // The chunk types ALL still waits for, marked in a reused map (SCTP_CHUNKMAP_COPY without allocating).
    const done = this.chunkSeen;
    let pending = chunks.match === 'all' ? chunks.types.length : 0;
    let result: boolean | undefined;
    let offset = th + 12;
    do {
      if (offset + 4 > end) {
        result = false;
        break;
      }
      const type = buf[offset]!;
      const flags = buf[offset + 1]!;
      const length = u16(buf, offset + 2);
      if (length === 0) {
        result = false;
        break;
      }
      let flagsOk = true;
      for (const test of chunks.flags)
        if (test.type === type && (flags & test.mask) !== test.flags) flagsOk = false;
      if (chunks.types.includes(type)) {
        if (chunks.match === 'any' && flagsOk) {
          result = true;
          break;
        }
        if (chunks.match === 'all' && flagsOk && done[type] === 0) {
          done[type] = 1;
          pending--;
        }
        if (chunks.match === 'only' && !flagsOk) {
          result = false;
          break;
        }
      } else if (chunks.match === 'only') {
        result = false;
        break;
      }
      offset += (length + 3) & ~3;
    } while (offset < end);
    if (chunks.match === 'all') done.fill(0);
    if (result !== undefined) return result;
    if (chunks.match === 'all') return pending === 0;
    return chunks.match === 'only';
  }

  /** hashlimit_mt: the entry of the packet's key (created full), refilled by elapsed time, then charged. */
  private hashlimit(state: PacketState, options: Options<'hashlimit'>): boolean {
    const { buf, network } = state.pkt;
    let srcAddr = 0;
    let dstAddr = 0;
    let ports = 0;
    if (options.srcip) srcAddr = (u32(buf, network + 12) & maskOf(options.srcmask)) >>> 0;
    if (options.dstip) dstAddr = (u32(buf, network + 16) & maskOf(options.dstmask)) >>> 0;
    if (options.srcport || options.dstport) {
      if ((u16(buf, network + 6) & 0x1fff) !== 0) return false;
      const proto = buf[network + 9]!;
      const th = this.transport(state, 4);
      if (th >= 0 && (proto === 6 || proto === 17 || proto === 136 || proto === 132 || proto === 33)) {
        if (options.srcport) ports = u16(buf, th) * 0x1_0000;
        if (options.dstport) ports += u16(buf, th + 2);
      }
    }
    let table = this.hashTables.get(options.table);
    if (table === undefined) {
      table = new Map();
      this.hashTables.set(options.table, table);
    }
    let bySrc = table.get(srcAddr);
    if (bySrc === undefined) {
      bySrc = new Map();
      table.set(srcAddr, bySrc);
    }
    let byDst = bySrc.get(dstAddr);
    if (byDst === undefined) {
      byDst = new Map();
      bySrc.set(dstAddr, byDst);
    }
    const now = state.host.now();
    const cap = options.avg * options.burst;
    let entry = byDst.get(ports);
    if (entry === undefined || entry.expires <= now) {
      entry = { credit: cap, prev: now, expires: 0 };
      byDst.set(ports, entry);
    } else {
      // rateinfo_recalc: credit grows with the time since the last packet, up to the cap.
      entry.credit = Math.min(entry.credit + ((now - entry.prev) * HASHLIMIT_SCALE) / NS_PER_SEC, cap);
      entry.prev = now;
    }
    entry.expires = now + options.expire * 1e6;
    if (entry.credit >= options.avg) {
      entry.credit -= options.avg;
      return !options.above;
    }
    return options.above;
  }

  /**
   * connlimit_mt with nf_conncount: the connections of the key this rule saw (their original tuples) that conntrack
   * still holds, TCP ones in TIME_WAIT or CLOSE left out (already_closed), the packet's own counted once.
   */
  private connlimit(state: PacketState, options: Options<'connlimit'>): boolean {
    const pkt = state.pkt;
    const conntrack = state.conntrack;
    if (conntrack === undefined || pkt.ctIndex < 0) return false;
    const addr = u32(pkt.buf, pkt.network + (options.daddr ? 16 : 12));
    const key = (addr & options.mask) >>> 0;
    let lists = this.counted.get(options);
    if (lists === undefined) {
      lists = new Map();
      this.counted.set(options, lists);
    }
    let list = lists.get(key);
    if (list === undefined) {
      list = [];
      lists.set(key, list);
    }
    const now = state.host.now();
    const current = conntrack.tuple(pkt.ctIndex, 0, state.scratchTuple);
    let seen = false;
    for (let i = list.length - 1; i >= 0; i--) {
      const tuple = list[i]!;
      if (sameTuple(tuple, current)) {
        seen = true;
        continue;
      }
      const found = conntrack.find(tuple, now);
      const index = found >> 1;
      const tcpState = found >= 0 && tuple.protocol === 6 ? conntrack.tcpStateName(index) : '';
      if (found < 0 || tcpState === 'TIME_WAIT' || tcpState === 'CLOSE') list.splice(i, 1);
    }
    if (!seen) list.push({ ...current });
    return list.length > options.limit === options.above;
  }

  /** rpfilter_mt: loopback passes; the reverse route (daddr = saddr) must be unicast (or local) via iif. */
  private rpfilter(state: PacketState, options: Options<'rpfilter'>): boolean {
    const { buf, network } = state.pkt;
    if (state.inDev === undefined || state.inDev.kind === 'loopback') return !options.invert;
    const saddr = u32(buf, network + 12);
    const daddr = u32(buf, network + 16);
    if (saddr === 0 && (daddr === 0xffff_ffff || (daddr & 0xffff_ff00) >>> 0 === 0xe000_0000))
      return !options.invert;
    const multicast = (daddr & 0xf000_0000) >>> 0 === 0xe000_0000;
    const route = state.host.reverseRoute?.(
      saddr,
      multicast || daddr === 0xffff_ffff || daddr === 0 ? 0 : daddr,
      options.validmark ? state.pkt.mark : 0,
      buf[network + 1]! & 0x1e,
    );
    let ok = false;
    if (route !== undefined) {
      const typeOk = route.type === 'unicast' || (route.type === 'local' && options.acceptLocal);
      ok = typeOk && (options.loose || route.oif === state.inDev.ifindex);
    }
    return ok !== options.invert;
  }

  /** ecn_mt4: the IP field, then the TCP flags (first fragments only). */
  private ecn(state: PacketState, options: Options<'ecn'>): boolean {
    const { buf, network } = state.pkt;
    if (options.ect !== undefined && ((buf[network + 1]! & 3) === options.ect.value) === options.ect.invert)
      return false;
    if (options.cwr === undefined && options.ece === undefined) return true;
    const th = this.transport(state, 14);
    if (th < 0) return false;
    const flags = buf[th + 13]!;
    if (options.ece !== undefined && ((flags & 0x40) !== 0) === options.ece.invert) return false;
    if (options.cwr !== undefined && ((flags & 0x80) !== 0) === options.cwr.invert) return false;
    return true;
  }
}

function sameTuple(a: Tuple, b: Tuple): boolean {
  return (
    a.src === b.src &&
    a.dst === b.dst &&
    a.protocol === b.protocol &&
    a.srcPort === b.srcPort &&
    a.dstPort === b.dstPort
  );
}

function maskOf(len: number): number {
  return len === 0 ? 0 : (0xffff_ffff << (32 - len)) >>> 0;
}

/** u32_match_it over the IP packet `buf[ip, end)`. */
export function u32Matches(buf: Uint8Array, ip: number, end: number, tests: readonly U32Test[]): boolean {
  const len = end - ip;
  for (const test of tests) {
    let at = 0;
    let pos = test.start;
    if (len < 4 || pos > len - 4) return false;
    let val = u32(buf, ip + pos);
    for (const step of test.steps) {
      switch (step.op) {
        case 'and':
          val = (val & step.value) >>> 0;
          break;
        case 'shl':
          val = step.value >= 32 ? 0 : (val << step.value) >>> 0;
          break;
        case 'shr':
          val = step.value >= 32 ? 0 : val >>> step.value;
          break;
        case 'at':
          if (at + val > 0xffff_ffff) return false;
          at += val;
          pos = step.value;
          if (len < at + 4 || pos > len - at - 4) return false;
          val = u32(buf, ip + at + pos);
          break;
      }
    }
    if (!test.ranges.some(([low, high]) => low <= val && val <= high)) return false;
  }
  return true;
}

/** skb_find_text between from and to (offsets from the IP header); the whole pattern must lie within. */
export function stringFound(
  buf: Uint8Array,
  ip: number,
  end: number,
  options: {
    readonly pattern: readonly number[];
    readonly from: number;
    readonly to: number;
    readonly icase: boolean;
  },
): boolean {
  const pattern = options.pattern;
  const stop = Math.min(end - ip, options.to);
  const lower = (byte: number) => (options.icase && byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);
  for (let start = options.from; start + pattern.length <= stop; start++) {
    let k = 0;
    while (k < pattern.length && lower(buf[ip + start + k]!) === lower(pattern[k]!)) k++;
    if (k === pattern.length) return true;
  }
  return false;
}

/** time_mt at wall-clock second `stamp` (packetlab's kernel timezone is UTC, so --kerneltz changes nothing). */
export function timeMatches(options: Options<'time'>, stamp: number): boolean {
  let seconds = stamp;
  if (seconds < options.dateStart || seconds > options.dateStop) return false;
  const daytime = ((seconds % 86400) + 86400) % 86400;
  if (options.dayStart < options.dayStop) {
    if (daytime < options.dayStart || daytime > options.dayStop) return false;
  } else {
    if (daytime < options.dayStart && daytime > options.dayStop) return false;
    if (options.contiguous && daytime <= options.dayStop) seconds -= 86400;
  }
  const days = Math.floor(seconds / 86400);
  // localtime_2: 1970-01-01 was a Thursday (4); Monday is 1, Sunday 7.
  const weekday = ((((4 + days - 1) % 7) + 7) % 7) + 1;
  if (!(options.weekdays & (1 << weekday))) return false;
  if (options.monthdays !== 0xffff_fffe) {
    const monthday = civilFromDays(days).day;
    if (!((options.monthdays >>> monthday) & 1)) return false;
  }
  return true;
}
