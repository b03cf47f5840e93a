// nft's datatypes for the values packetlab models (datatype.c, proto.c, ct.c, meta.c, fib.c): which type each
// selector reads, the symbolic names of each type, and how a constant of a type prints (`0x00004000` for a mark,
// `tcp` for protocol 6, `"eth*"` for a wildcard). Not modelled: IPv6, time and ifindex-to-name lookups.

import type { Constant, DataType, Selector } from '../ir.ts';
import { formatTcHandle, META_KEYS } from './expr-meta.ts';
import { formatClock } from './expr-time.ts';
import { ARP_OPS, FAMILY_FIELD_BITS, FAMILY_FIELD_TYPE, ICMPV6_CODES, ICMPV6_TYPES } from './family-types.ts';

export type NftType =
  | 'ipv4_addr'
  | 'inet_proto'
  | 'inet_service'
  | 'mark'
  | 'ifname'
  | 'ether_addr'
  | 'ct_state'
  | 'ct_status'
  | 'ct_dir'
  | 'integer'
  | 'tcp_flag'
  | 'icmp_type'
  | 'icmp_code'
  | 'dscp'
  | 'ecn'
  | 'pkttype'
  | 'fib_addrtype'
  | 'nfproto'
  | 'ether_type'
  | 'iface'
  | 'uid'
  | 'gid'
  | 'realm'
  | 'iftype'
  | 'devgroup'
  | 'boolean'
  | 'ifkind'
  | 'time'
  | 'ct_label'
  | 'tc_handle'
  /** `meta time`, `meta day`, `meta hour` (expr-time.ts). */
  | 'date'
  | 'day'
  | 'hour'
  /** The families' types (family-types.ts). */
  | 'arp_op'
  | 'ipv6_addr'
  | 'icmpv6_type'
  | 'icmpv6_code';

type SymbolTable = readonly (readonly [string, number])[];

/** /etc/protocols names nft prints for `meta l4proto`, `ip protocol`, `ct protocol` (getprotobynumber). */
const PROTOCOLS: SymbolTable = [
  ['ip', 0],
  ['icmp', 1],
  ['igmp', 2],
  ['ggp', 3],
  ['ipencap', 4],
  ['st', 5],
  ['tcp', 6],
  ['egp', 8],
  ['igp', 9],
  ['pup', 12],
  ['udp', 17],
  ['hmp', 20],
  ['xns-idp', 22],
  ['rdp', 27],
  ['iso-tp4', 29],
  ['dccp', 33],
  ['xtp', 36],
  ['ddp', 37],
  ['idpr-cmtp', 38],
  ['ipv6', 41],
  ['ipv6-route', 43],
  ['ipv6-frag', 44],
  ['idrp', 45],
  ['rsvp', 46],
  ['gre', 47],
  ['esp', 50],
  ['ah', 51],
  ['skip', 57],
  ['ipv6-icmp', 58],
  ['ipv6-nonxt', 59],
  ['ipv6-opts', 60],
  ['rspf', 73],
  ['vmtp', 81],
  ['eigrp', 88],
  ['ospf', 89],
  ['ax.25', 93],
  ['ipip', 94],
  ['etherip', 97],
  ['encap', 98],
  ['pim', 103],
  ['ipcomp', 108],
  ['vrrp', 112],
  ['l2tp', 115],
  ['isis', 124],
  ['sctp', 132],
  ['fc', 133],
  ['mobility-header', 135],
  ['udplite', 136],
  ['mpls-in-ip', 137],
  ['manet', 138],
  ['hip', 139],
  ['shim6', 140],
  ['wesp', 141],
  ['rohc', 142],
  ['ethernet', 143],
];

/** A few /etc/services names nft resolves (getservbyname); ports always print as numbers. */
const SERVICES: SymbolTable = [
  ['ftp-data', 20],
  ['ftp', 21],
  ['ssh', 22],
  ['telnet', 23],
  ['smtp', 25],
  ['domain', 53],
  ['bootps', 67],
  ['bootpc', 68],
  ['http', 80],
  ['pop3', 110],
  ['ntp', 123],
  ['imap2', 143],
  ['snmp', 161],
  ['bgp', 179],
  ['https', 443],
  ['syslog', 514],
  ['rsync', 873],
  ['mysql', 3306],
  ['postgresql', 5432],
];

export const TCP_FLAGS: SymbolTable = [
  ['fin', 0x01],
  ['syn', 0x02],
  ['rst', 0x04],
  ['psh', 0x08],
  ['ack', 0x10],
  ['urg', 0x20],
  ['ecn', 0x40],
  ['cwr', 0x80],
];

export const CT_STATES: SymbolTable = [
  ['invalid', 1],
  ['established', 2],
  ['related', 4],
  ['new', 8],
  ['untracked', 64],
];

const CT_STATUS: SymbolTable = [
  ['expected', 1],
  ['seen-reply', 2],
  ['assured', 4],
  ['confirmed', 8],
  ['snat', 16],
  ['dnat', 32],
  ['dying', 512],
];

export const ICMP_TYPES: SymbolTable = [
  ['echo-reply', 0],
  ['destination-unreachable', 3],
  ['source-quench', 4],
  ['redirect', 5],
  ['echo-request', 8],
  ['router-advertisement', 9],
  ['router-solicitation', 10],
  ['time-exceeded', 11],
  ['parameter-problem', 12],
  ['timestamp-request', 13],
  ['timestamp-reply', 14],
  ['info-request', 15],
  ['info-reply', 16],
  ['address-mask-request', 17],
  ['address-mask-reply', 18],
];

/** icmp_code_type: the codes `reject with icmp` and `icmp code` name. */
export const ICMP_CODES: SymbolTable = [
  ['net-unreachable', 0],
  ['host-unreachable', 1],
  ['prot-unreachable', 2],
  ['port-unreachable', 3],
  ['frag-needed', 4],
  ['net-prohibited', 9],
  ['host-prohibited', 10],
  ['admin-prohibited', 13],
];

export const DSCP: SymbolTable = [
  ['cs0', 0x00],
  ['cs1', 0x08],
  ['cs2', 0x10],
  ['cs3', 0x18],
  ['cs4', 0x20],
  ['cs5', 0x28],
  ['cs6', 0x30],
  ['cs7', 0x38],
  ['df', 0x00],
  ['be', 0x00],
  ['lephb', 0x01],
  ['af11', 0x0a],
  ['af12', 0x0c],
  ['af13', 0x0e],
  ['af21', 0x12],
  ['af22', 0x14],
  ['af23', 0x16],
  ['af31', 0x1a],
  ['af32', 0x1c],
  ['af33', 0x1e],
  ['af41', 0x22],
  ['af42', 0x24],
  ['af43', 0x26],
  ['va', 0x2c],
  ['ef', 0x2e],
];

export const ECN: SymbolTable = [
  ['not-ect', 0],
  ['ect1', 1],
  ['ect0', 2],
  ['ce', 3],
];

const PKTTYPES: SymbolTable = [
  ['host', 0],
  ['unicast', 0],
  ['broadcast', 1],
  ['multicast', 2],
  ['other', 3],
];

const FIB_ADDRTYPES: SymbolTable = [
  ['unspec', 0],
  ['unicast', 1],
  ['local', 2],
  ['broadcast', 3],
  ['anycast', 4],
  ['multicast', 5],
  ['blackhole', 6],
  ['unreachable', 7],
  ['prohibit', 8],
];

const CT_DIRS: SymbolTable = [
  ['original', 0],
  ['reply', 1],
];

const NFPROTOS: SymbolTable = [
  ['ipv4', 2],
  ['ipv6', 10],
];

const ETHER_TYPES: SymbolTable = [
  ['ip', 0x0800],
  ['arp', 0x0806],
  ['ip6', 0x86dd],
  // nft prints 0x8100 as 8021q and reads both names (proto.c: ethertype_tbl).
  ['8021q', 0x8100],
  ['vlan', 0x8100],
];

/** datatype.c: arphrd_tbl, the device types `meta iiftype` names. */
const ARPHRD: SymbolTable = [
  ['ether', 1],
  ['ppp', 512],
  ['ipip', 768],
  ['ipip6', 769],
  ['loopback', 772],
  ['sit', 776],
  ['ipgre', 778],
];

const TABLES: Partial<Record<NftType, SymbolTable>> = {
  iftype: ARPHRD,
  devgroup: [['default', 0]],
  // /etc/iproute2/rt_realms as iproute2 ships it (nft reads it for `rt classid` and `meta rtclassid`).
  realm: [['cosmos', 0]],
  boolean: [
    ['exists', 1],
    ['missing', 0],
  ],
  uid: [['root', 0]],
  gid: [['root', 0]],
  inet_proto: PROTOCOLS,
  inet_service: SERVICES,
  tcp_flag: TCP_FLAGS,
  ct_state: CT_STATES,
  ct_status: CT_STATUS,
  ct_dir: CT_DIRS,
  icmp_type: ICMP_TYPES,
  icmp_code: ICMP_CODES,
  dscp: DSCP,
  ecn: ECN,
  pkttype: PKTTYPES,
  fib_addrtype: FIB_ADDRTYPES,
  nfproto: NFPROTOS,
  ether_type: ETHER_TYPES,
  arp_op: ARP_OPS,
  icmpv6_type: ICMPV6_TYPES,
  icmpv6_code: ICMPV6_CODES,
};

/** Bitmask types: a bare list of names is a flag test (`ct state established,related`). */
export function isBitmask(type: NftType): boolean {
  return type === 'tcp_flag' || type === 'ct_state' || type === 'ct_status';
}

/** The bit width of a type's values, for range and mask checks. */
export function typeBits(type: NftType): number {
  switch (type) {
    case 'inet_proto':
    case 'tcp_flag':
    case 'icmp_type':
    case 'icmp_code':
    case 'icmpv6_type':
    case 'icmpv6_code':
    case 'pkttype':
    case 'ct_dir':
    case 'ecn':
    case 'dscp':
      return 8;
    case 'inet_service':
    case 'ether_type':
    case 'iftype':
      return 16;
    case 'boolean':
      return 1;
    case 'arp_op':
      return 16;
    case 'ipv6_addr':
      return 128;
    case 'ether_addr':
      return 48;
    default:
      return 32;
  }
}

export function symbolValue(type: NftType, name: string): number | undefined {
  const table = TABLES[type];
  if (table === undefined) return undefined;
  for (const [symbol, value] of table) if (symbol === name) return value;
  return undefined;
}

export function symbolName(type: NftType, value: number): string | undefined {
  const table = TABLES[type];
  if (table === undefined || type === 'inet_service') return undefined;
  for (const [symbol, symbolValue] of table) if (symbolValue === value) return symbol;
  return undefined;
}

/** How many bits a selector reads (range checks: `ip ttl 300` exceeds 0-255). */
export function selectorBits(selector: Selector): number {
  switch (selector.kind) {
    case 'family-field':
      return FAMILY_FIELD_BITS[selector.field];
    case 'payload':
      switch (selector.field) {
        case 'ip checksum':
        case 'tcp window':
        case 'tcp checksum':
        case 'tcp urgptr':
        case 'udp length':
        case 'udp checksum':
        case 'icmp checksum':
        case 'icmp sequence':
        case 'icmp mtu':
          return 16;
        case 'ip version':
        case 'ip hdrlength':
        case 'tcp doff':
          return 4;
        case 'tcp sequence':
        case 'tcp ackseq':
        case 'icmp gateway':
          return 32;
        case 'ip length':
        case 'ip id':
        case 'ip frag-off':
        case 'icmp id':
        case 'tcp sport':
        case 'tcp dport':
        case 'udp sport':
        case 'udp dport':
        case 'th sport':
        case 'th dport':
          return 16;
        case 'ip dscp':
          return 6;
        case 'ip ecn':
          return 2;
        case 'ether saddr':
        case 'ether daddr':
          return 48;
        case 'ip saddr':
        case 'ip daddr':
          return 32;
        default:
          return 8;
      }
    case 'meta':
      if (META_KEYS[selector.key] !== undefined) return META_KEYS[selector.key]!.bits;
      switch (selector.key) {
        case 'l4proto':
        case 'pkttype':
          return 8;
        case 'protocol':
          return 16;
        case 'nftrace':
          return 1;
        default:
          return 32;
      }
    case 'rt':
      return selector.key === 'mtu' ? 16 : 32;
    case 'socket':
      return selector.key === 'mark' ? 32 : 1;
    case 'ct':
      if (selector.key === 'zone') return 16;
      if (selector.key === 'helper') return 128;
      return selector.key === 'direction' || selector.key === 'protocol' || selector.key === 'l3proto'
        ? 8
        : selector.key.startsWith('proto-')
          ? 16
          : 32;
    default:
      return 32;
  }
}

/** The type of the value a selector reads (nft's expression datatypes). */
export function selectorType(selector: Selector): NftType {
  switch (selector.kind) {
    case 'family-field':
      return FAMILY_FIELD_TYPE[selector.field];
    case 'payload':
      switch (selector.field) {
        case 'ether saddr':
        case 'ether daddr':
          return 'ether_addr';
        case 'ip saddr':
        case 'ip daddr':
          return 'ipv4_addr';
        case 'ip protocol':
          return 'inet_proto';
        case 'ip dscp':
          return 'dscp';
        case 'ip ecn':
          return 'ecn';
        case 'tcp sport':
        case 'tcp dport':
        case 'udp sport':
        case 'udp dport':
        case 'th sport':
        case 'th dport':
          return 'inet_service';
        case 'tcp flags':
          return 'tcp_flag';
        case 'icmp type':
          return 'icmp_type';
        case 'icmp code':
          return 'icmp_code';
        default:
          return 'integer';
      }
    case 'meta':
      if (META_KEYS[selector.key] !== undefined) return META_KEYS[selector.key]!.type;
      switch (selector.key) {
        case 'mark':
          return 'mark';
        case 'iifname':
        case 'oifname':
          return 'ifname';
        case 'iif':
        case 'oif':
          return 'iface';
        case 'l4proto':
          return 'inet_proto';
        case 'nfproto':
          return 'nfproto';
        case 'protocol':
          return 'ether_type';
        case 'pkttype':
          return 'pkttype';
        default:
          return 'integer';
      }
    case 'ct':
      switch (selector.key) {
        case 'state':
          return 'ct_state';
        case 'status':
          return 'ct_status';
        case 'mark':
          return 'mark';
        case 'direction':
          return 'ct_dir';
        case 'protocol':
          return 'inet_proto';
        case 'saddr':
        case 'daddr':
          return 'ipv4_addr';
        case 'proto-src':
        case 'proto-dst':
          return 'inet_service';
        case 'expiration':
          return 'time';
        case 'l3proto':
          return 'nfproto';
        case 'helper':
          // nft's string_type, as the interface kinds read it (16 bytes, NF_CT_HELPER_NAME_LEN).
          return 'ifkind';
        default:
          return 'integer';
      }
    case 'fib':
      return selector.result === 'type' ? 'fib_addrtype' : selector.result === 'oifname' ? 'ifname' : 'iface';
    case 'rt':
      return selector.key === 'nexthop' ? 'ipv4_addr' : selector.key === 'classid' ? 'realm' : 'integer';
    case 'socket':
      return selector.key === 'mark' ? 'mark' : 'integer';
    case 'numgen':
    case 'hash':
      return 'integer';
  }
}

/** The nft type of a set key or map data type the IR names. */
export function fromDataType(type: DataType): NftType {
  return type === 'verdict' ? 'integer' : type;
}

/** Named-set types `type X` accepts, as the IR can hold them. */
export const SET_TYPES: readonly DataType[] = [
  'ipv4_addr',
  'inet_proto',
  'inet_service',
  'mark',
  'ifname',
  'ether_addr',
  'ct_state',
  'ct_status',
];

export function formatIpv4(addr: number): string {
  return `${(addr >>> 24) & 255}.${(addr >>> 16) & 255}.${(addr >>> 8) & 255}.${addr & 255}`;
}

export function formatMac(value: number): string {
  const bytes: string[] = [];
  for (let i = 5; i >= 0; i--)
    bytes.push((Math.floor(value / 2 ** (8 * i)) & 255).toString(16).padStart(2, '0'));
  return bytes.join(':');
}

/** nft's time_print: `1d2h3m4s5ms`, the zero units left out. */
function formatMilliseconds(ms: number): string {
  const units: readonly [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) text += `${count}${unit}`;
  }
  return text;
}

export function hex8(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, '0')}`;
}

/** The names of the bits set in `value`, in bit order (nft's flag lists); unnamed bits as hex. */
export function flagNames(type: NftType, value: number): string[] {
  const names: string[] = [];
  const table = TABLES[type] ?? [];
  let rest = value >>> 0;
  for (const [name, bit] of table) {
    if (bit !== 0 && (rest & bit) === bit) {
      names.push(name);
      rest &= ~bit;
    }
  }
  if (rest !== 0) names.push(`0x${rest.toString(16)}`);
  return names;
}

/** One number of a type, as nft prints it. */
export function formatNumber(type: NftType, value: number): string {
  switch (type) {
    case 'ipv4_addr':
      return formatIpv4(value);
    case 'mark':
      return hex8(value);
    case 'ether_addr':
      return formatMac(value);
    case 'inet_service':
    case 'integer':
    case 'iface':
    case 'uid':
    case 'gid':
    case 'ct_label':
      return String(value);
    case 'devgroup':
      return value === 0 ? '"default"' : String(value);
    case 'realm':
      return value === 0 ? '"cosmos"' : String(value);
    case 'tc_handle':
      return formatTcHandle(value);
    case 'date':
    case 'day':
    case 'hour':
      return formatClock(type, value);
    case 'time':
      return value === 0 ? '' : formatMilliseconds(value);
    case 'tcp_flag':
    case 'ct_state':
    case 'ct_status': {
      const name = symbolName(type, value);
      return name ?? `0x${(value >>> 0).toString(16)}`;
    }
    case 'dscp':
    case 'ether_type': {
      const name = symbolName(type, value);
      return name ?? `0x${value.toString(16).padStart(type === 'dscp' ? 2 : 4, '0')}`;
    }
    default:
      return symbolName(type, value) ?? String(value);
  }
}

function prefixLen(low: number, high: number): number | undefined {
  const size = high - low + 1;
  if (size <= 0 || size > 2 ** 32) return undefined;
  const bits = Math.log2(size);
  if (!Number.isInteger(bits) || low % size !== 0) return undefined;
  return 32 - bits;
}

/**
 * A constant as nft prints it; `inSet` applies set-element normalisation (aligned address ranges print as
 * prefixes, interval_map_decompose).
 */
export function formatConstant(type: NftType, constant: Constant, options: { inSet?: boolean } = {}): string {
  switch (constant.kind) {
    case 'number':
      return formatNumber(type, constant.value);
    case 'string':
      // IPv6 addresses are kept as their canonical text (family-rule.ts): nft prints them bare.
      if (type === 'ipv6_addr') return constant.value;
      return `"${constant.value}${constant.wildcard ? '*' : ''}"`;
    case 'prefix':
      if (type === 'ipv4_addr' && constant.len === 32) return formatIpv4(constant.addr);
      return `${formatNumber(type, constant.addr)}/${constant.len}`;
    case 'range': {
      if (options.inSet && type === 'ipv4_addr') {
        if (constant.low === constant.high) return formatIpv4(constant.low);
        const len = prefixLen(constant.low, constant.high);
        if (len !== undefined) return `${formatIpv4(constant.low)}/${len}`;
      }
      // icmp_code and day ranges list as numbers (`icmp code 0-3`, `meta day 1-5`).
      const rangeType = type === 'icmp_code' || type === 'day' ? 'integer' : type;
      return `${formatNumber(rangeType, constant.low)}-${formatNumber(rangeType, constant.high)}`;
    }
    case 'concat':
      return constant.parts.map((part) => formatConstant(type, part, options)).join(' . ');
  }
}
