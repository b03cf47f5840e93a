// Constants as written (`10.0.0.0/8`, `tcp . 80`, `established,related`) and their resolution into IR constants
// once the type they are compared with is known, with nft's messages for values that do not fit the type.

import { formatIpv6, maskIpv6, parseIpv6 } from '../../wire/ipv6-text.ts';
import type { Constant } from '../ir.ts';
import { isClockType, parseClock } from './expr-time.ts';
import type { Token } from './lexer.ts';
import { type ErrorRecord, errorAt, type Location } from './location.ts';
import { isBitmask, type NftType, symbolValue, typeBits } from './types.ts';

export interface RawAtom {
  readonly kind: 'atom';
  readonly token: Token;
}

export type RawValue =
  | RawAtom
  | { readonly kind: 'prefix'; readonly base: RawAtom; readonly len: Token; readonly loc: Location }
  | { readonly kind: 'range'; readonly low: RawAtom; readonly high: RawAtom; readonly loc: Location }
  | { readonly kind: 'concat'; readonly parts: readonly RawValue[]; readonly loc: Location }
  /** A flag list (`syn,ack`, `syn|ack`), only meaningful for bitmask types. */
  | { readonly kind: 'flags'; readonly parts: readonly RawAtom[]; readonly loc: Location };

export function rawLoc(value: RawValue): Location {
  return value.kind === 'atom' ? value.token.loc : value.loc;
}

/** nft's datatype descriptions, used in its "Could not parse" messages. */
export const DESCRIPTIONS: Record<NftType, string> = {
  ipv4_addr: 'IPv4 address',
  inet_proto: 'Internet protocol',
  inet_service: 'internet network service',
  mark: 'packet mark',
  ifname: 'network interface name',
  ether_addr: 'Ethernet address',
  ct_state: 'conntrack state',
  ct_status: 'conntrack status',
  ct_dir: 'conntrack direction',
  integer: 'integer',
  tcp_flag: 'TCP flag',
  icmp_type: 'ICMP type',
  icmp_code: 'icmp code',
  dscp: 'Differentiated Services Code Point',
  ecn: 'Explicit Congestion Notification',
  pkttype: 'packet type',
  fib_addrtype: 'fib address type',
  nfproto: 'netfilter protocol',
  ether_type: 'Ethernet protocol',
  iface: 'network interface index',
  uid: 'user ID',
  gid: 'group ID',
  realm: 'routing realm',
  iftype: 'network interface type',
  devgroup: 'devgroup name',
  boolean: 'boolean type',
  ifkind: 'network interface kind',
  time: 'relative time',
  ct_label: 'conntrack label',
  tc_handle: 'TC handle',
  date: 'Relative time of packet reception',
  day: 'Day of week of packet reception',
  hour: 'Hour of day of packet reception',
  arp_op: 'ARP operation',
  ipv6_addr: 'IPv6 address',
  icmpv6_type: 'ICMPv6 type',
  icmpv6_code: 'icmpv6 code',
};

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const MAC = /^[0-9a-fA-F]{1,2}(?::[0-9a-fA-F]{1,2}){5}$/;

export function parseIpv4(text: string): number | undefined {
  const match = IPV4.exec(text);
  if (match === null) return undefined;
  let addr = 0;
  for (let i = 1; i <= 4; i++) {
    const byte = Number(match[i]);
    if (byte > 255) return undefined;
    addr = addr * 256 + byte;
  }
  return addr;
}

function maxValue(type: NftType): number {
  return 2 ** typeBits(type) - 1;
}

/** Resolves one written value to a number or interface-name constant of `type`. */
export function resolveAtom(type: NftType, atom: RawAtom, width?: number): Constant | ErrorRecord {
  const { token } = atom;
  const loc = token.loc;
  if (type === 'time') return timeConstant(atom);
  if (isClockType(type)) {
    const value = parseClock(type, token.text, token.kind === 'number');
    return typeof value === 'number' ? { kind: 'number', value } : errorAt(loc, value.message);
  }
  if (type === 'uid' || type === 'gid') {
    const id = token.kind === 'number' ? token.value : symbolValue(type, token.text);
    if (id === undefined)
      return errorAt(loc, type === 'uid' ? 'User does not exist' : 'Group does not exist');
    return { kind: 'number', value: id };
  }
  if (type === 'ifname' || type === 'ifkind' || (type === 'iface' && token.kind !== 'number')) {
    const text = token.text;
    if (text.length > 16) return errorAt(loc, 'String exceeds maximum length of 16');
    if (text.endsWith('*')) return { kind: 'string', value: text.slice(0, -1), wildcard: true };
    return { kind: 'string', value: text, wildcard: false };
  }
  if (token.kind === 'number') {
    if (type === 'ipv4_addr') return errorAt(loc, 'Could not resolve hostname: Name or service not known');
    const max = width === undefined ? maxValue(type) : 2 ** width - 1;
    if (token.value > max) {
      if (type === 'inet_service') return errorAt(loc, 'Service out of range');
      if (type === 'inet_proto') return errorAt(loc, 'Protocol out of range');
      return errorAt(loc, `Value ${token.value} exceeds valid range 0-${max}`);
    }
    return { kind: 'number', value: token.value };
  }
  const text = token.text;
  switch (type) {
    case 'ipv6_addr': {
      const groups = parseIpv6(text);
      if (groups === undefined) return errorAt(loc, 'Could not resolve hostname: Name or service not known');
      return { kind: 'string', value: formatIpv6(groups), wildcard: false };
    }
    case 'ipv4_addr': {
      const addr = parseIpv4(text);
      if (addr === undefined) return errorAt(loc, 'Could not resolve hostname: Name or service not known');
      return { kind: 'number', value: addr };
    }
    case 'ether_addr': {
      if (!MAC.test(text)) return errorAt(loc, `Could not parse ${DESCRIPTIONS[type]}`);
      let value = 0;
      for (const byte of text.split(':')) value = value * 256 + Number.parseInt(byte, 16);
      return { kind: 'number', value };
    }
    case 'inet_service': {
      const port = symbolValue(type, text);
      if (port === undefined)
        return errorAt(loc, 'Could not resolve service: Servname not supported for ai_socktype');
      return { kind: 'number', value: port };
    }
    case 'inet_proto': {
      const proto = symbolValue(type, text);
      if (proto === undefined) return errorAt(loc, 'Could not resolve protocol name');
      return { kind: 'number', value: proto };
    }
    default: {
      const value = symbolValue(type, text);
      if (value === undefined) return errorAt(loc, `Could not parse ${DESCRIPTIONS[type]}`);
      return { kind: 'number', value };
    }
  }
}

/** A relative time (`30s`, `1m30s`, `250ms`; a bare number is seconds), in ms; `10s-20s` is one word, a range. */
function timeConstant(atom: RawAtom): Constant | ErrorRecord {
  const { token } = atom;
  if (token.kind === 'number') return { kind: 'number', value: token.value * 1000 };
  const parts = token.kind === 'word' ? token.text.split('-') : [];
  const values = parts.map(parseTimeText);
  if (values.length === 0 || values.length > 2 || values.some((value) => value === undefined))
    return errorAt(token.loc, 'wrong time format');
  if (values.length === 2) return { kind: 'range', low: values[0]!, high: values[1]! };
  return { kind: 'number', value: values[0]! };
}

function parseTimeText(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/^(\d+(d|h|ms|m|s))+$/.test(text)) return undefined;
  const size: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)(d|h|ms|m|s)/g)) total += Number(count) * size[unit!]!;
  return total;
}

function isError(value: Constant | ErrorRecord): value is ErrorRecord {
  return 'message' in value;
}

function numberOf(type: NftType, atom: RawAtom, width?: number): number | ErrorRecord {
  const constant = resolveAtom(type, atom, width);
  if (isError(constant)) return constant;
  if (constant.kind !== 'number') return errorAt(atom.token.loc, `Could not parse ${DESCRIPTIONS[type]}`);
  return constant.value;
}

/** Resolves a written value against the types of the expression it is compared with (one per concat part). */
export function resolveValue(
  types: readonly NftType[],
  raw: RawValue,
  widths?: readonly number[],
): Constant | ErrorRecord {
  if (raw.kind === 'concat') {
    if (raw.parts.length !== types.length)
      return errorAt(raw.loc, `datatype mismatch, expected concatenation of (${types.join(', ')})`);
    const parts: Constant[] = [];
    for (let i = 0; i < types.length; i++) {
      const part = resolveValue([types[i]!], raw.parts[i]!, widths === undefined ? undefined : [widths[i]!]);
      if (isError(part)) return part;
      parts.push(part);
    }
    return { kind: 'concat', parts };
  }
  if (types.length !== 1)
    return errorAt(rawLoc(raw), `datatype mismatch, expected concatenation of (${types.join(', ')})`);
  const type = types[0]!;
  const width = widths?.[0];
  switch (raw.kind) {
    case 'atom':
      return resolveAtom(type, raw, width);
    case 'prefix': {
      if (type === 'ipv6_addr') return ipv6Prefix(raw);
      if (type !== 'ipv4_addr' && type !== 'mark' && type !== 'integer')
        return errorAt(raw.loc, `Could not parse ${DESCRIPTIONS[type]}`);
      const base = numberOf(type, raw.base);
      if (typeof base !== 'number') return base;
      const width = typeBits(type);
      if (raw.len.kind !== 'number' || raw.len.value > width)
        return errorAt(
          raw.loc,
          `Prefix length ${raw.len.kind === 'number' ? raw.len.value : raw.len.text} is invalid for type of ${width} bits width`,
        );
      const len = raw.len.value;
      const mask = len === 0 ? 0 : (0xffff_ffff << (32 - len)) >>> 0;
      if (len === 32) return { kind: 'number', value: base };
      return { kind: 'prefix', addr: (base & mask) >>> 0, len };
    }
    case 'range': {
      const low = numberOf(type, raw.low, width);
      if (typeof low !== 'number') return low;
      const high = numberOf(type, raw.high, width);
      if (typeof high !== 'number') return high;
      if (low > high) return errorAt(raw.loc, 'Range has zero or negative size');
      return { kind: 'range', low, high };
    }
    case 'flags': {
      if (!isBitmask(type)) return errorAt(raw.loc, `Could not parse ${DESCRIPTIONS[type]}`);
      let value = 0;
      for (const part of raw.parts) {
        const bit = numberOf(type, part);
        if (typeof bit !== 'number') return bit;
        value = (value | bit) >>> 0;
      }
      return { kind: 'number', value };
    }
  }
}

/** `fe80::/10`: the network's canonical text and length, kept as text (packetlab has no IPv6 packets). */
function ipv6Prefix(raw: Extract<RawValue, { kind: 'prefix' }>): Constant | ErrorRecord {
  const groups = parseIpv6(raw.base.token.text);
  if (groups === undefined) return errorAt(raw.loc, 'Could not resolve hostname: Name or service not known');
  if (raw.len.kind !== 'number' || raw.len.value > 128)
    return errorAt(raw.loc, `Prefix length ${raw.len.text} is invalid for type of 128 bits width`);
  if (raw.len.value === 128) return { kind: 'string', value: formatIpv6(groups), wildcard: false };
  return {
    kind: 'string',
    value: `${formatIpv6(maskIpv6(groups, raw.len.value))}/${raw.len.value}`,
    wildcard: false,
  };
}

export function isErrorRecord(value: unknown): value is ErrorRecord {
  return typeof value === 'object' && value !== null && 'message' in value && 'loc' in value;
}
