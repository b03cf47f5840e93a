// One IPv4 route (the kernel's fib_alias plus its fib_info) and the names iproute2 prints for tables, types, scopes and protocols; no multipath, no IPv6.
//
// Numbers are the rtnetlink ones (include/uapi/linux/rtnetlink.h); names are those of
// iproute2's lib/rt_names.c plus the /etc/iproute2 files a Debian install ships
// (rt_tables, rt_protos, rt_scopes). Route types iproute2 knows but packetlab does not
// model (anycast, multicast, nat, xresolve) parse as `unsupported`.

import type { Ipv4Addr } from '../wire/address.ts';
import { prefixMask } from '../wire/address.ts';

export const RT_TABLE_UNSPEC = 0;
export const RT_TABLE_DEFAULT = 253;
export const RT_TABLE_MAIN = 254;
export const RT_TABLE_LOCAL = 255;
/** Table ids are u32 (RT_TABLE_MAX). */
export const RT_TABLE_MAX = 0xffff_ffff;

export const RT_SCOPE_UNIVERSE = 0;
export const RT_SCOPE_SITE = 200;
export const RT_SCOPE_LINK = 253;
export const RT_SCOPE_HOST = 254;
export const RT_SCOPE_NOWHERE = 255;

export const RTPROT_UNSPEC = 0;
export const RTPROT_REDIRECT = 1;
export const RTPROT_KERNEL = 2;
export const RTPROT_BOOT = 3;
export const RTPROT_STATIC = 4;

/** The ifindex of `lo`, fixed by the kernel (LOOPBACK_IFINDEX). */
export const LOOPBACK_IFINDEX = 1;

export type RouteType =
  | 'unicast'
  | 'local'
  | 'broadcast'
  | 'blackhole'
  | 'unreachable'
  | 'prohibit'
  | 'throw';

/**
 * A route as the kernel stores it. Every field is always present (a missing gateway is
 * `undefined`, not an absent key) so all routes share one shape.
 */
export interface Route {
  readonly table: number;
  /** Network address with the host bits zero. */
  readonly dstAddr: Ipv4Addr;
  readonly prefixLen: number;
  readonly type: RouteType;
  /** Output ifindex; undefined for reject routes (blackhole, unreachable, prohibit, throw). */
  readonly oif: number | undefined;
  readonly gateway: Ipv4Addr | undefined;
  /** RTNH_F_ONLINK: the gateway is on the link even without a route to it. */
  readonly onlink: boolean;
  /** Preferred source address (`src`). */
  readonly prefSrc: Ipv4Addr | undefined;
  readonly scope: number;
  readonly protocol: number;
  /** `metric` (fib_priority): lower wins between routes to the same prefix. */
  readonly metric: number;
  readonly mtu: number | undefined;
  /** `mtu lock`: path MTU discovery may not lower it. */
  readonly mtuLock: boolean;
  /** RTAX_CC_ALGO (`congctl`): the congestion control TCP connections over this route use. */
  readonly congctl: CongestionAlgorithm | undefined;
  /** `congctl lock`: the RTAX_LOCK bit of RTAX_CC_ALGO (setsockopt TCP_CONGESTION may not change it). */
  readonly congctlLock: boolean;
}

/** The TCP congestion control modules packetlab has (tcp_ca_find of a name): Reno and CUBIC, no BBR. */
export type CongestionAlgorithm = 'reno' | 'cubic';

/** True for a congestion control name packetlab models. */
export function isCongestionAlgorithm(name: string): name is CongestionAlgorithm {
  return name === 'reno' || name === 'cubic';
}

/** What a caller states about a route; the rest gets iproute2's defaults (see `makeRoute`). */
export interface RouteSpec {
  readonly dstAddr: Ipv4Addr;
  readonly prefixLen: number;
  readonly table?: number;
  readonly type?: RouteType;
  readonly oif?: number;
  readonly gateway?: Ipv4Addr;
  readonly onlink?: boolean;
  readonly prefSrc?: Ipv4Addr;
  readonly scope?: number;
  readonly protocol?: number;
  readonly metric?: number;
  readonly mtu?: number;
  readonly mtuLock?: boolean;
  readonly congctl?: CongestionAlgorithm;
  readonly congctlLock?: boolean;
}

/**
 * The scope iproute2 gives a new route when none is stated (ip/iproute.c: iproute_modify):
 * host for local, link for broadcast and for unicast without a gateway, else universe.
 */
export function defaultScope(type: RouteType, hasGateway: boolean): number {
  switch (type) {
    case 'local':
      return RT_SCOPE_HOST;
    case 'broadcast':
      return RT_SCOPE_LINK;
    case 'unicast':
      return hasGateway ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;
    case 'blackhole':
    case 'unreachable':
    case 'prohibit':
    case 'throw':
      return RT_SCOPE_UNIVERSE;
    default:
      return assertNever(type);
  }
}

/** The table iproute2 puts a route in when none is stated: local for local and broadcast routes. */
export function defaultTable(type: RouteType): number {
  return type === 'local' || type === 'broadcast' ? RT_TABLE_LOCAL : RT_TABLE_MAIN;
}

/** A complete route from a spec, with iproute2's defaults (table main, protocol boot, metric 0). */
export function makeRoute(spec: RouteSpec): Route {
  const type = spec.type ?? 'unicast';
  return {
    table: spec.table ?? defaultTable(type),
    dstAddr: spec.dstAddr,
    prefixLen: spec.prefixLen,
    type,
    oif: spec.oif,
    gateway: spec.gateway,
    onlink: spec.onlink ?? false,
    prefSrc: spec.prefSrc,
    scope: spec.scope ?? defaultScope(type, spec.gateway !== undefined),
    protocol: spec.protocol ?? RTPROT_BOOT,
    metric: spec.metric ?? 0,
    mtu: spec.mtu,
    mtuLock: spec.mtuLock ?? false,
    congctl: spec.congctl,
    congctlLock: spec.congctlLock ?? false,
  };
}

/** True when `addr` lies inside the route's prefix. */
export function routeCovers(route: Route, addr: Ipv4Addr): boolean {
  return ((addr ^ route.dstAddr) & prefixMask(route.prefixLen)) === 0;
}

/** Types whose lookup ends in an error instead of a path (fib_props[].error != 0). */
export function isRejectType(type: RouteType): boolean {
  return type === 'blackhole' || type === 'unreachable' || type === 'prohibit' || type === 'throw';
}

/** Errors of the routing code, named as in errno.h. */
export type Errno =
  | 'EPERM'
  | 'ENOENT'
  | 'ESRCH'
  | 'EEXIST'
  | 'ENODEV'
  | 'EINVAL'
  | 'EACCES'
  | 'ENOBUFS'
  | 'ENETDOWN'
  | 'ENETUNREACH'
  | 'EHOSTUNREACH'
  | 'EAGAIN';

/**
 * A refused change: the errno, and the extended-ack message when the kernel sets one
 * (iproute2 then prints `Error: <extack>.` instead of `RTNETLINK answers: <strerror>`).
 */
export interface KernelError {
  readonly ok: false;
  readonly errno: Errno;
  readonly extack: string | undefined;
}

export function kernelError(errno: Errno, extack?: string): KernelError {
  return { ok: false, errno, extack };
}

/** The error a lookup ending on a route of this type returns (fib_semantics.c: fib_props). */
export function rejectErrno(type: RouteType): Errno | undefined {
  switch (type) {
    case 'blackhole':
      return 'EINVAL';
    case 'unreachable':
      return 'EHOSTUNREACH';
    case 'prohibit':
      return 'EACCES';
    case 'throw':
      return 'EAGAIN';
    case 'unicast':
    case 'local':
    case 'broadcast':
      return undefined;
    default:
      return assertNever(type);
  }
}

// ---- names -------------------------------------------------------------------------------

/**
 * Parses a number as C's strtoul(text, &end, 0) does for iproute2's get_unsigned/get_u32:
 * decimal, 0x hex or leading-zero octal, the whole string, at most `max`.
 */
export function parseCUnsigned(text: string, max: number): number | undefined {
  let digits: string;
  let radix: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(text)) {
    digits = text.slice(2);
    radix = 16;
  } else if (/^0[0-7]*$/.test(text)) {
    digits = text;
    radix = 8;
  } else if (/^[1-9][0-9]*$/.test(text)) {
    digits = text;
    radix = 10;
  } else {
    return undefined;
  }
  const value = Number.parseInt(digits, radix);
  return Number.isSafeInteger(value) && value <= max ? value : undefined;
}

const TABLE_NAMES: ReadonlyMap<number, string> = new Map([
  [RT_TABLE_DEFAULT, 'default'],
  [RT_TABLE_MAIN, 'main'],
  [RT_TABLE_LOCAL, 'local'],
]);

/** rtnl_rttable_n2a: `local`, `main`, `default` or the number. */
export function tableName(id: number): string {
  return TABLE_NAMES.get(id) ?? String(id);
}

/** rtnl_rttable_a2n: a table name or a number up to RT_TABLE_MAX; `all` is the caller's business. */
export function parseTableId(text: string): number | undefined {
  for (const [id, name] of TABLE_NAMES) if (name === text) return id;
  return parseCUnsigned(text, RT_TABLE_MAX);
}

/** /etc/iproute2/rt_protos as Debian's iproute2 6.1 ships it. */
const PROTOCOL_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'unspec'],
  [1, 'redirect'],
  [2, 'kernel'],
  [3, 'boot'],
  [4, 'static'],
  [8, 'gated'],
  [9, 'ra'],
  [10, 'mrt'],
  [11, 'zebra'],
  [12, 'bird'],
  [13, 'dnrouted'],
  [14, 'xorp'],
  [15, 'ntk'],
  [16, 'dhcp'],
  [18, 'keepalived'],
  [42, 'babel'],
  [99, 'openr'],
  [186, 'bgp'],
  [187, 'isis'],
  [188, 'ospf'],
  [189, 'rip'],
  [192, 'eigrp'],
]);

export function protocolName(protocol: number): string {
  return PROTOCOL_NAMES.get(protocol) ?? String(protocol);
}

/** rtnl_rtprot_a2n: an exact name or a number up to 255. */
export function parseProtocol(text: string): number | undefined {
  for (const [id, name] of PROTOCOL_NAMES) if (name === text) return id;
  return parseCUnsigned(text, 255);
}

/** /etc/iproute2/rt_scopes. */
const SCOPE_NAMES: ReadonlyMap<number, string> = new Map([
  [RT_SCOPE_UNIVERSE, 'global'],
  [RT_SCOPE_SITE, 'site'],
  [RT_SCOPE_LINK, 'link'],
  [RT_SCOPE_HOST, 'host'],
  [RT_SCOPE_NOWHERE, 'nowhere'],
]);

export function scopeName(scope: number): string {
  return SCOPE_NAMES.get(scope) ?? String(scope);
}

/** rtnl_rtscope_a2n: an exact name or a number up to 255. */
export function parseScope(text: string): number | undefined {
  for (const [id, name] of SCOPE_NAMES) if (name === text) return id;
  return parseCUnsigned(text, 255);
}

/** iproute2's `matches(arg, word)`: arg is a non-empty prefix of word. */
export function matchesKeyword(arg: string, word: string): boolean {
  return arg.length > 0 && word.startsWith(arg);
}

/**
 * rtnl_rtntype_a2n (ip/rtm_map.c), including its abbreviations (`unr`, `black`, `any` for
 * anycast). Types packetlab does not model come back as `unsupported`.
 */
export function parseRouteType(text: string): RouteType | 'unsupported' | undefined {
  if (text === 'local') return 'local';
  if (text === 'nat') return 'unsupported';
  if (matchesKeyword(text, 'broadcast') || text === 'brd') return 'broadcast';
  if (matchesKeyword(text, 'anycast') || matchesKeyword(text, 'multicast')) return 'unsupported';
  if (matchesKeyword(text, 'prohibit')) return 'prohibit';
  if (matchesKeyword(text, 'unreachable')) return 'unreachable';
  if (matchesKeyword(text, 'blackhole')) return 'blackhole';
  if (matchesKeyword(text, 'xresolve')) return 'unsupported';
  if (matchesKeyword(text, 'unicast')) return 'unicast';
  if (text === 'throw') return 'throw';
  const number = parseCUnsigned(text, 255);
  if (number === undefined) return undefined;
  return RTN_BY_NUMBER[number] ?? 'unsupported';
}

/** Route types by their RTN_* number. */
const RTN_BY_NUMBER: Readonly<Record<number, RouteType>> = {
  1: 'unicast',
  2: 'local',
  3: 'broadcast',
  6: 'blackhole',
  7: 'unreachable',
  8: 'prohibit',
  9: 'throw',
};

export function assertNever(value: never): never {
  throw new Error(`unexpected value ${String(value)}`);
}
