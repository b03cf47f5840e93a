// Names and numbers as iptables parses and prints them: protocols (xtables_parse_protocol, proto_to_name), ports
// and services (xtables_parse_port, getservbyport), ICMP types (libipt_icmp's table), integers as strtoul reads
// them, IPv4 hosts and networks (xtables_ipparse_any); no DNS, no IPv6.

import { formatIpv4, parseIpv4 } from '../../wire/address.ts';
import { PROTOCOLS, TCP_SERVICES, UDP_SERVICES } from './netbase-data.ts';

function parseTable(data: string): { byNumber: Map<number, string>; byName: Map<string, number> } {
  const byNumber = new Map<number, string>();
  const byName = new Map<string, number>();
  for (const entry of data.split(' ')) {
    const colon = entry.indexOf(':');
    const number = Number(entry.slice(0, colon));
    const names = entry.slice(colon + 1).split('|');
    if (!byNumber.has(number)) byNumber.set(number, names[0]!);
    for (const name of names) if (!byName.has(name)) byName.set(name, number);
  }
  return { byNumber, byName };
}

const tcpServices = parseTable(TCP_SERVICES);
const udpServices = parseTable(UDP_SERVICES);
const protocols = parseTable(PROTOCOLS);

/** iptables' own protocol names (xtables_chain_protos), tried before /etc/protocols. */
const CHAIN_PROTOS: readonly (readonly [string, number])[] = [
  ['tcp', 6],
  ['sctp', 132],
  ['udp', 17],
  ['udplite', 136],
  ['icmp', 1],
  ['icmpv6', 58],
  ['esp', 50],
  ['ah', 51],
  ['mh', 135],
  ['all', 0],
];

/**
 * strtoul with base 0 as xtables_strtoul uses it: decimal, 0x hex or 0 octal, the whole word, within `max`.
 * Leading spaces and a sign are refused as iptables refuses them in practice.
 */
export function parseUnsigned(text: string, max = 0xffff_ffff): number | undefined {
  let value: number;
  if (/^0[xX][0-9a-fA-F]+$/.test(text)) value = Number.parseInt(text.slice(2), 16);
  else if (/^0[0-7]*$/.test(text)) value = Number.parseInt(text, 8);
  else if (/^[1-9][0-9]*$/.test(text)) value = Number(text);
  else return undefined;
  if (!Number.isFinite(value) || value > max) return undefined;
  return value;
}

/** A plain decimal number (no hex), as atoi-style option parsers want. */
export function parseDecimal(text: string, max = 0xffff_ffff): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return value > max ? undefined : value;
}

/** `-p` argument: a number, iptables' own names, or /etc/protocols names (xtables_parse_protocol). */
export function parseProtocol(text: string): number | undefined {
  const number = parseDecimal(text, 255);
  if (number !== undefined) return number;
  const lower = text.toLowerCase();
  const byName = protocols.byName.get(text);
  if (byName !== undefined) return byName;
  for (const [name, value] of CHAIN_PROTOS) if (name === lower) return value;
  return undefined;
}

/**
 * proto_to_name with lookups: /etc/protocols first (58 is `ipv6-icmp`), then iptables' own names; 0 is `all`;
 * undefined for unnamed numbers.
 */
export function protocolName(proto: number): string | undefined {
  if (proto === 0) return 'all';
  const listed = protocols.byNumber.get(proto);
  if (listed !== undefined) return listed;
  for (const [name, value] of CHAIN_PROTOS) if (value === proto) return name;
  return undefined;
}

function services(proto: string | undefined): ReturnType<typeof parseTable>[] {
  if (proto === 'tcp') return [tcpServices];
  if (proto === 'udp') return [udpServices];
  return [tcpServices, udpServices];
}

/** xtables_parse_port: a number 0-65535 or a service name for `proto`. */
export function parsePort(text: string, proto: string | undefined): number | undefined {
  const number = parseDecimal(text, 0xffff);
  if (number !== undefined) return number;
  for (const table of services(proto)) {
    const port = table.byName.get(text);
    if (port !== undefined) return port;
  }
  return undefined;
}

/** getservbyport, as `iptables -L` without -n prints ports. */
export function portName(port: number, proto: string | undefined, numeric: boolean): string {
  if (numeric) return String(port);
  const table = proto === 'udp' ? udpServices : tcpServices;
  return table.byNumber.get(port) ?? String(port);
}

/**
 * `A:B`, `A:`, `:B` or `A` (xtables parse_port_range); ports may be service names. The two ends come back as
 * given: each caller decides what a reversed range means (tcp refuses it, udp keeps it, multiport swaps it).
 */
export function parsePortRange(text: string, proto: string | undefined): [number, number] | string {
  const colon = text.indexOf(':');
  if (colon < 0) {
    const port = parsePort(text, proto);
    return port === undefined ? `invalid port/service \`${text}' specified` : [port, port];
  }
  const lowText = text.slice(0, colon);
  const highText = text.slice(colon + 1);
  const low = lowText === '' ? 0 : parsePort(lowText, proto);
  if (low === undefined) return `invalid port/service \`${lowText}' specified`;
  const high = highText === '' ? 0xffff : parsePort(highText, proto);
  if (high === undefined) return `invalid port/service \`${highText}' specified`;
  return [low, high];
}

/**
 * xtopt_parse_mport with xtables_getportbyname, the option parser of x6 modules such as udp: a number is taken
 * modulo 65536 (getaddrinfo keeps 16 bits), a name is looked up for any protocol, and a reversed range is kept.
 */
export function parsePortRangeX6(text: string): [number, number] | string {
  const parts = text.split(':');
  if (parts.length > 2) return `Too many ports specified: ${text}`;
  const one = (word: string, missing: number): number | string => {
    if (word === '') return missing;
    if (/^[0-9]+$/.test(word)) return Number(word) % 0x1_0000;
    const port = parsePort(word, undefined);
    return port === undefined ? `Port "${word}" does not resolve to anything.\n` : port;
  };
  const low = one(parts[0]!, 0);
  if (typeof low === 'string') return low;
  if (parts.length === 1) return [low, low];
  const high = one(parts[1]!, 0xffff);
  if (typeof high === 'string') return high;
  return [low, high];
}

// ---- ICMP types (libipt_icmp.c: icmp_codes) ----------------------------------------------------------

export interface IcmpName {
  readonly name: string;
  readonly type: number;
  readonly codeMin: number;
  readonly codeMax: number;
}

function icmp(name: string, type: number, codeMin = 0, codeMax = 0xff): IcmpName {
  return { name, type, codeMin, codeMax };
}

export const ICMP_NAMES: readonly IcmpName[] = [
  icmp('any', 0xff),
  icmp('echo-reply', 0),
  icmp('destination-unreachable', 3),
  icmp('network-unreachable', 3, 0, 0),
  icmp('host-unreachable', 3, 1, 1),
  icmp('protocol-unreachable', 3, 2, 2),
  icmp('port-unreachable', 3, 3, 3),
  icmp('fragmentation-needed', 3, 4, 4),
  icmp('source-route-failed', 3, 5, 5),
  icmp('network-unknown', 3, 6, 6),
  icmp('host-unknown', 3, 7, 7),
  icmp('network-prohibited', 3, 9, 9),
  icmp('host-prohibited', 3, 10, 10),
  icmp('TOS-network-unreachable', 3, 11, 11),
  icmp('TOS-host-unreachable', 3, 12, 12),
  icmp('communication-prohibited', 3, 13, 13),
  icmp('host-precedence-violation', 3, 14, 14),
  icmp('precedence-cutoff', 3, 15, 15),
  icmp('source-quench', 4),
  icmp('redirect', 5),
  icmp('network-redirect', 5, 0, 0),
  icmp('host-redirect', 5, 1, 1),
  icmp('TOS-network-redirect', 5, 2, 2),
  icmp('TOS-host-redirect', 5, 3, 3),
  icmp('echo-request', 8),
  icmp('router-advertisement', 9),
  icmp('router-solicitation', 10),
  icmp('time-exceeded', 11),
  icmp('ttl-zero-during-transit', 11, 0, 0),
  icmp('ttl-zero-during-reassembly', 11, 1, 1),
  icmp('parameter-problem', 12),
  icmp('ip-header-bad', 12, 0, 0),
  icmp('required-option-missing', 12, 1, 1),
  icmp('timestamp-request', 13),
  icmp('timestamp-reply', 14),
  icmp('address-mask-request', 17),
  icmp('address-mask-reply', 18),
];

/** Aliases iptables also accepts (xt_icmp.h's older names). */
const ICMP_ALIASES: Readonly<Record<string, string>> = {
  pong: 'echo-reply',
  ping: 'echo-request',
  'ttl-exceeded': 'time-exceeded',
};

/** nft's names for ICMP types, as `icmp type echo-request` prints them. */
export const NFT_ICMP_TYPES: Readonly<Record<number, string>> = {
  0: 'echo-reply',
  3: 'destination-unreachable',
  4: 'source-quench',
  5: 'redirect',
  8: 'echo-request',
  9: 'router-advertisement',
  10: 'router-solicitation',
  11: 'time-exceeded',
  12: 'parameter-problem',
  13: 'timestamp-request',
  14: 'timestamp-reply',
  15: 'info-request',
  16: 'info-reply',
  17: 'address-mask-request',
  18: 'address-mask-reply',
};

/** `--icmp-type` argument: a name, or `TYPE[/CODE]` (parse_icmp). */
export function parseIcmpType(text: string): { type: number; codeMin: number; codeMax: number } | string {
  const name = ICMP_ALIASES[text] ?? text;
  const named = ICMP_NAMES.find((entry) => entry.name === name);
  if (named !== undefined) return { type: named.type, codeMin: named.codeMin, codeMax: named.codeMax };
  const slash = text.indexOf('/');
  const typeText = slash < 0 ? text : text.slice(0, slash);
  const type = parseDecimal(typeText, 255);
  if (type === undefined) return `Invalid ICMP type \`${typeText}'\n`;
  if (slash < 0) return { type, codeMin: 0, codeMax: 0xff };
  const codeText = text.slice(slash + 1);
  const code = parseDecimal(codeText, 255);
  if (code === undefined) return `Invalid ICMP code \`${codeText}'\n`;
  return { type, codeMin: code, codeMax: code };
}

// ---- addresses ----------------------------------------------------------------------------------------

export interface AddrMask {
  readonly addr: number;
  readonly mask: number;
}

/** The prefix length of a contiguous mask, or -1. */
export function maskLength(mask: number): number {
  const m = mask >>> 0;
  let len = 0;
  while (len < 32 && (m & (0x8000_0000 >>> len)) !== 0) len++;
  const rest = len === 32 ? 0 : (m << len) >>> 0;
  return rest === 0 ? len : -1;
}

export function maskOf(len: number): number {
  return len === 0 ? 0 : (0xffff_ffff << (32 - len)) >>> 0;
}

/** xtables_ipparse_any for one address: `A.B.C.D[/LEN|/MASK]`; the address is masked as iptables does. */
export function parseAddrMask(text: string): AddrMask | string {
  const slash = text.indexOf('/');
  const hostText = slash < 0 ? text : text.slice(0, slash);
  let mask = 0xffff_ffff;
  if (slash >= 0) {
    const maskText = text.slice(slash + 1);
    const dotted = maskText.includes('.') ? parseIpv4(maskText) : undefined;
    if (dotted !== undefined) mask = dotted >>> 0;
    else {
      const len = parseDecimal(maskText, 32);
      if (len === undefined) return `invalid mask \`${maskText}' specified`;
      mask = maskOf(len);
    }
  }
  const addr = numericToIpaddr(hostText) ?? atonAddress(hostText);
  if (addr === undefined) return `host/network \`${hostText}' not found`;
  return { addr: (addr & mask) >>> 0, mask };
}

/** xtables_strtoui with base 0 for one byte: decimal, 0x hexadecimal or 0 octal, at most 255. */
function byteOf(text: string): number | undefined {
  return parseUnsigned(text, 0xff);
}

/**
 * xtables' __numeric_to_ipaddr: up to four dotted bytes (each decimal, hexadecimal or octal), the missing ones zero,
 * as a network address is written (`10/8` is 10.0.0.0/8, `10.1` is 10.1.0.0).
 */
function numericToIpaddr(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 4) return undefined;
  let addr = 0;
  for (let i = 0; i < 4; i++) {
    const part = parts[i];
    const byte = part === undefined ? 0 : byteOf(part);
    if (byte === undefined) return undefined;
    addr = addr * 256 + byte;
  }
  return addr >>> 0;
}

/** What the host lookup falls back to for a numeric name (getaddrinfo's inet_aton: `0x0a000001`, `167772161`). */
function atonAddress(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((part) => parseUnsigned(part) === undefined)) return undefined;
  const values = parts.map((part) => parseUnsigned(part)!);
  const last = values.at(-1)!;
  const head = values.slice(0, -1);
  if (head.some((value) => value > 0xff) || last >= 2 ** (8 * (5 - parts.length))) return undefined;
  return head.reduce((addr, value, i) => addr + value * 2 ** (24 - 8 * i), last) >>> 0;
}

/** `10.0.0.0/8`, `1.2.3.4/32`, or `/255.0.255.0` for a mask that is not a prefix (xtables_ipmask_to_numeric). */
export function formatAddrMask(value: AddrMask): string {
  const len = maskLength(value.mask);
  return `${formatIpv4(value.addr)}/${len < 0 ? formatIpv4(value.mask) : len}`;
}

/** netbase's /etc/hosts and /etc/networks, which -L without -n consults (gethostbyaddr, getnetbyaddr). */
const HOST_NAMES: ReadonlyMap<number, string> = new Map([[0x7f00_0001, 'localhost']]);
const NETWORK_NAMES: ReadonlyMap<number, string> = new Map([
  [0, 'default'],
  [0x7f00_0000, 'loopback'],
  [0xa9fe_0000, 'link-local'],
]);

/** As `iptables -L` prints a source or destination: `anywhere`/`0.0.0.0/0`, hosts without /32, names unless -n. */
export function listAddrMask(value: AddrMask | undefined, numeric: boolean): string {
  if (value === undefined || (value.mask === 0 && value.addr === 0))
    return numeric ? '0.0.0.0/0' : 'anywhere';
  const len = maskLength(value.mask);
  const mask = len === 32 ? '' : `/${len < 0 ? formatIpv4(value.mask) : len}`;
  const name = numeric ? undefined : (HOST_NAMES.get(value.addr) ?? NETWORK_NAMES.get(value.addr));
  return `${name ?? formatIpv4(value.addr)}${mask}`;
}

/** `0x4000` (printf %#x: plain 0 for zero). */
export function hex(value: number): string {
  return value === 0 ? '0' : `0x${(value >>> 0).toString(16)}`;
}

/** `0x0` even for zero (printf 0x%x). */
export function hex0x(value: number): string {
  return `0x${(value >>> 0).toString(16)}`;
}
