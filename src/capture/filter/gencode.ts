// Builds the AST of each primitive from its qualifiers, with libpcap's checks and error texts (mirrors
// gencode.c); no resolver: a few service, protocol and host names are built in, the rest are unknown.

import type { FilterLinkType } from './compile.ts';
import { ipv6Words, type Keyword } from './lexer.ts';
import type { ArithNode, ArithOp, Direction, FilterNode, LoadBase, RelOp } from './parser.ts';

/** The message libpcap gives for any grammar error. */
export const SYNTAX_ERROR = "can't parse filter expression: syntax error";
/** The message libpcap's code generator gives for an id with no usable qualifier ("tcp and 80"). */
export const QUALIFIER_SYNTAX_ERROR = 'syntax error in filter expression';

export class FilterError extends Error {}

/** libpcap's complaint when `node` cannot be compiled for `linkType`, if any. */
export function linkTypeError(node: FilterNode, linkType: FilterLinkType): string | undefined {
  const ethernet = linkType === 1;
  switch (node.kind) {
    case 'etherAddr':
      return ethernet
        ? undefined
        : 'ethernet addresses supported only on ethernet/FDDI/token ring/802.11/ATM LANE/Fibre Channel';
    case 'vlan':
      return ethernet ? undefined : 'no VLAN support for Linux cooked v2';
    case 'linkBroadcast':
      return ethernet ? undefined : 'not a broadcast link';
    case 'linkMulticast':
      return ethernet
        ? undefined
        : 'link-layer multicast filters supported only on ethernet/FDDI/token ring/ARCNET/802.11/ATM LANE/Fibre Channel';
    case 'packetDirection':
      return ethernet ? 'inbound/outbound not supported on Ethernet when reading savefiles' : undefined;
    case 'ifindex':
      return ethernet ? 'ifindex not supported on Ethernet when reading savefiles' : undefined;
    default:
      return undefined;
  }
}

export function fail(message: string): never {
  throw new FilterError(message);
}

// ---------------------------------------------------------------------------------------------------------
// Qualifiers

export type ProtoQual = Keyword | 'default' | 'undef';
export type DirQual =
  | 'default'
  | 'undef'
  | 'src'
  | 'dst'
  | 'or'
  | 'and'
  | 'addr1'
  | 'addr2'
  | 'addr3'
  | 'addr4'
  | 'ra'
  | 'ta';
export type AddrQual =
  | 'default'
  | 'undef'
  | 'host'
  | 'net'
  | 'port'
  | 'portrange'
  | 'proto'
  | 'protochain'
  | 'gateway';

export interface Qual {
  readonly proto: ProtoQual;
  readonly dir: DirQual;
  readonly addr: AddrQual;
}

/** What a bare protocol name, an `other` primitive or a relation passes on to a following bare id. */
export const QERR: Qual = { proto: 'undef', dir: 'undef', addr: 'undef' };

/**
 * Something libpcap accepts that we do not implement. It is reported only if the whole expression parses
 * without a libpcap error, since tcpdump would have reported that error instead.
 */
export class Unsupported extends FilterError {}

export function unsupported(what: string): never {
  throw new Unsupported(`packetlab does not support '${what}' in filter expressions`);
}

/** Stands in for an unsupported primitive until the parse ends (and is then refused). */
export const PLACEHOLDER: FilterNode = { kind: 'true' };

// ---------------------------------------------------------------------------------------------------------
// Name tables (a subset of a Debian /etc/services and /etc/protocols, since src/ cannot read files)

/** Service name -> port and the transports /etc/services lists it for. */
const SERVICES: ReadonlyMap<string, { readonly port: number; readonly tcp: boolean; readonly udp: boolean }> =
  buildServices(`
    echo 7 tu; ftp-data 20 t; ftp 21 t; ssh 22 t; telnet 23 t; smtp 25 t mail; domain 53 tu;
    bootps 67 u; bootpc 68 u; tftp 69 u; http 80 t www; kerberos 88 tu kerberos5 krb5 kerberos-sec;
    pop3 110 t pop-3; sunrpc 111 tu portmapper; ntp 123 u; imap2 143 t imap; snmp 161 tu;
    snmp-trap 162 tu snmptrap; bgp 179 t; ldap 389 tu; https 443 tu; isakmp 500 u; syslog 514 u;
    submission 587 t; ipp 631 t; rsync 873 t; imaps 993 t; pop3s 995 t; openvpn 1194 tu;
    radius 1812 tu; nfs 2049 tu; mysql 3306 t; sip 5060 tu; postgresql 5432 t postgres;
    http-alt 8080 t webcache`);

function buildServices(table: string): Map<string, { port: number; tcp: boolean; udp: boolean }> {
  const services = new Map<string, { port: number; tcp: boolean; udp: boolean }>();
  for (const entry of table.split(';')) {
    const [name, port, transports, ...aliases] = entry.trim().split(/\s+/);
    const service = { port: Number(port), tcp: transports!.includes('t'), udp: transports!.includes('u') };
    for (const key of [name!, ...aliases]) services.set(key, service);
  }
  return services;
}

/** Host names resolved without a resolver (a minimal /etc/hosts). */
const HOSTS: ReadonlyMap<string, number> = new Map([['localhost', 0x7f00_0001]]);

/** IP protocol name or alias -> number, as getprotobyname() finds them. */
const IP_PROTOCOLS: ReadonlyMap<string, number> = buildNames(`
  ip IP 0; hopopt HOPOPT 0; icmp ICMP 1; igmp IGMP 2; ipencap IP-ENCAP 4; tcp TCP 6; egp EGP 8;
  igp IGP 9; udp UDP 17; ipv6 IPv6 41; ipv6-route IPv6-Route 43; ipv6-frag IPv6-Frag 44; rsvp RSVP 46;
  gre GRE 47; esp IPSEC-ESP 50; ah IPSEC-AH 51; ipv6-icmp IPv6-ICMP 58; ipv6-nonxt IPv6-NoNxt 59;
  ipv6-opts IPv6-Opts 60; eigrp EIGRP 88; ospf OSPFIGP 89; ipip IPIP 94; etherip ETHERIP 97; encap ENCAP 98;
  pim PIM 103; ipcomp IPCOMP 108; vrrp VRRP 112; l2tp L2TP 115; sctp SCTP 132; udplite UDPLite 136`);

/** EtherType names libpcap knows for `ether proto \name`. */
const ETHER_PROTOCOLS: ReadonlyMap<string, number> = buildNames(`
  ip 0x0800; ip6 0x86dd; arp 0x0806; rarp 0x8035; decnet 0x6003; lat 0x6004; sca 0x6007; moprc 0x6002;
  mopdl 0x6001; loopback 0x9000; atalk 0x809b; aarp 0x80f3`);

function buildNames(table: string): Map<string, number> {
  const names = new Map<string, number>();
  for (const entry of table.split(';')) {
    const words = entry.trim().split(/\s+/);
    const value = Number(words.pop());
    for (const word of words) names.set(word, value);
  }
  return names;
}

const ETHERTYPE_IP = 0x0800;
const ETHERTYPE_ARP = 0x0806;
const ETHERTYPE_REVARP = 0x8035;
const ETHERTYPE_IPV6 = 0x86dd;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPPROTO_SCTP = 132;
/** libpcap's PROTO_UNDEF: the port may be SCTP, TCP or UDP (in the order gen_port tries them). */
const ANY_TRANSPORT: readonly number[] = [IPPROTO_SCTP, IPPROTO_TCP, IPPROTO_UDP];
export const VLAN_ID_MAX = 4095;

// ---------------------------------------------------------------------------------------------------------
// Semantics: each function below builds the AST for one primitive, or fails with libpcap's message.

export function or(left: FilterNode, right: FilterNode): FilterNode {
  return { kind: 'or', left, right };
}

export function and(left: FilterNode, right: FilterNode): FilterNode {
  return { kind: 'and', left, right };
}

export function not(operand: FilterNode): FilterNode {
  return { kind: 'not', operand };
}

/** Reads libpcap's partial dotted quad ("10", "10.1", "10.1.2.3"); the value and the number of bits given. */
function atoin(text: string): { value: number; bits: number } | undefined {
  let value = 0;
  let bits = 0;
  for (const part of text.split('.')) {
    if (!/^[0-9]+$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
    bits += 8;
  }
  return { value, bits };
}

function shiftLeft(value: number, bits: number): number {
  return bits >= 32 ? 0 : (value * 2 ** bits) % 2 ** 32;
}

function maskOfLength(bits: number): number {
  return bits === 0 ? 0 : (0xffff_ffff << (32 - bits)) >>> 0;
}

function directionOf(dir: DirQual, context: 'host' | 'port' | 'portrange' | 'ether'): Direction {
  const what = context === 'port' ? 'ports' : 'port ranges';
  switch (dir) {
    case 'src':
      return 'src';
    case 'dst':
      return 'dst';
    case 'and':
      return 'srcAndDst';
    case 'or':
    case 'default':
    case 'undef':
      return 'srcOrDst';
    case 'addr1':
    case 'addr2':
    case 'addr3':
    case 'addr4': {
      const n = dir.slice(4);
      if (context === 'ether')
        return fail(`'addr${n}' and 'address${n}' are only supported on 802.11 with 802.11 headers`);
      if (context === 'port' || context === 'portrange') {
        return fail(`'addr${n}' and 'address${n}' are not valid qualifiers for ${what}`);
      }
      return fail(
        `'addr${n}' and 'address${n}' are not valid qualifiers for addresses other than 802.11 MAC addresses`,
      );
    }
    case 'ra':
    case 'ta':
      if (context === 'ether') return fail(`'${dir}' is only supported on 802.11 with 802.11 headers`);
      if (context === 'port' || context === 'portrange')
        return fail(`'${dir}' is not a valid qualifier for ${what}`);
      return fail(`'${dir}' is not a valid qualifier for addresses other than 802.11 MAC addresses`);
    default:
      return assertNever(dir);
  }
}

/** `host`/`net` with a numeric address; mirrors gencode.c:gen_host. */
function genHost(addr: number, mask: number, q: Qual): FilterNode {
  const typeName = q.addr === 'net' ? 'net' : 'host';
  const hostop = (etherType: 0x0800 | 0x0806 | 0x8035): FilterNode => ({
    kind: 'hostAddr',
    etherType,
    dir: directionOf(q.dir, 'host'),
    addr: (addr & mask) >>> 0,
    mask,
  });
  switch (q.proto) {
    case 'default':
    case 'undef':
      return or(or(hostop(ETHERTYPE_IP), hostop(ETHERTYPE_ARP)), hostop(ETHERTYPE_REVARP));
    case 'ip':
      return hostop(ETHERTYPE_IP);
    case 'arp':
      return hostop(ETHERTYPE_ARP);
    case 'rarp':
      return hostop(ETHERTYPE_REVARP);
    case 'link':
      return fail(`link-layer modifier applied to ${typeName}`);
    case 'ip6':
      return fail("'ip6' modifier applied to ip host");
    case 'decnet':
      return unsupported('decnet');
    default:
      return fail(`'${q.proto}' modifier applied to ${typeName}`);
  }
}

function transportFor(q: Qual, qualifier: 'port' | 'portrange'): readonly number[] {
  switch (q.proto) {
    case 'udp':
      return [IPPROTO_UDP];
    case 'tcp':
      return [IPPROTO_TCP];
    case 'sctp':
      return [IPPROTO_SCTP];
    case 'default':
      return ANY_TRANSPORT;
    default:
      return fail(`illegal qualifier of '${qualifier}'`);
  }
}

/** `port`/`portrange` over IPv4 or IPv6; mirrors gen_port/gen_port6 (their results are or'ed). */
function genPorts(
  qualifier: 'port' | 'portrange',
  low: number,
  high: number,
  protocols: readonly number[],
  dir: DirQual,
): FilterNode {
  const direction = directionOf(dir, qualifier);
  const [lo, hi] = low <= high ? [low, high] : [high, low];
  const port = (family: 'ip' | 'ip6'): FilterNode => ({
    kind: 'port',
    family,
    protocols,
    dir: direction,
    low: lo,
    high: hi,
  });
  // gen_ncode or's the IPv6 test in front of the IPv4 one.
  return or(port('ip6'), port('ip'));
}

/** `proto N` under a protocol qualifier; mirrors gencode.c:gen_proto. */
function genProto(protocol: number, q: Qual): FilterNode {
  switch (q.proto) {
    case 'default':
      return or({ kind: 'ipProto', protocol }, { kind: 'ip6Proto', protocol });
    case 'ip':
      return { kind: 'ipProto', protocol };
    case 'ip6':
      return { kind: 'ip6Proto', protocol };
    case 'link':
      return { kind: 'etherType', etherType: protocol };
    case 'arp':
    case 'rarp':
      return fail(`${q.proto} does not encapsulate another protocol`);
    case 'sctp':
    case 'tcp':
    case 'udp':
    case 'icmp':
    case 'igmp':
    case 'igrp':
    case 'pim':
    case 'vrrp':
    case 'carp':
    case 'icmp6':
    case 'ah':
    case 'esp':
    case 'stp':
    case 'ipx':
    case 'netbeui':
    case 'radio':
    case 'aarp':
      return fail(`'${q.proto} proto' is bogus`);
    default:
      return unsupported(`${q.proto} proto`);
  }
}

/** A bare protocol name; mirrors gencode.c:gen_proto_abbrev. */
export function genProtoAbbrev(name: Keyword): FilterNode {
  const either = (protocol: number): FilterNode =>
    or({ kind: 'ipProto', protocol }, { kind: 'ip6Proto', protocol });
  switch (name) {
    case 'sctp':
      return either(IPPROTO_SCTP);
    case 'tcp':
      return either(IPPROTO_TCP);
    case 'udp':
      return either(IPPROTO_UDP);
    case 'icmp':
      return { kind: 'ipProto', protocol: 1 };
    case 'igmp':
      return { kind: 'ipProto', protocol: 2 };
    case 'igrp':
      return { kind: 'ipProto', protocol: 9 };
    case 'pim':
      return either(103);
    case 'vrrp':
    case 'carp':
      return { kind: 'ipProto', protocol: 112 };
    case 'ip':
      return { kind: 'etherType', etherType: ETHERTYPE_IP };
    case 'arp':
      return { kind: 'etherType', etherType: ETHERTYPE_ARP };
    case 'rarp':
      return { kind: 'etherType', etherType: ETHERTYPE_REVARP };
    case 'ip6':
      return { kind: 'etherType', etherType: ETHERTYPE_IPV6 };
    case 'icmp6':
      return { kind: 'ip6Proto', protocol: 58 };
    case 'ah':
      return either(51);
    case 'esp':
      return either(50);
    case 'link':
      return fail('link layer applied in wrong context');
    default:
      return unsupported(name);
  }
}

/** An id that is a number or a dotted quad; mirrors gencode.c:gen_ncode. */
export function genNumber(q: Qual, value: number, dotted: string | undefined): FilterNode {
  let bits = 32;
  if (dotted !== undefined) {
    const parsed = atoin(dotted);
    if (parsed === undefined) return fail(`invalid IPv4 address '${dotted}'`);
    value = parsed.value;
    bits = parsed.bits;
  }
  switch (q.addr) {
    case 'default':
    case 'host':
    case 'net': {
      if (q.proto === 'decnet') return unsupported('decnet');
      if (q.proto === 'link') return fail('illegal link layer address');
      let mask = 0xffff_ffff;
      if (dotted === undefined && q.addr === 'net') {
        // A bare number after `net` is a network number: 10 means 10.0.0.0/8.
        while (value !== 0 && (value & 0xff00_0000) === 0) {
          value = shiftLeft(value, 8);
          mask = shiftLeft(mask, 8);
        }
      } else {
        value = shiftLeft(value, 32 - bits);
        mask = shiftLeft(mask, 32 - bits);
      }
      return genHost(value, mask, q);
    }
    case 'port':
    case 'portrange': {
      const protocols = transportFor(q, q.addr);
      if (value > 65535) return fail(`illegal port number ${value} > 65535`);
      return genPorts(q.addr, value, value, protocols, q.dir);
    }
    case 'gateway':
      return fail("'gateway' requires a name");
    case 'proto':
      return genProto(value, q);
    case 'protochain':
      return unsupported('protochain');
    case 'undef':
      return fail(QUALIFIER_SYNTAX_ERROR);
    default:
      return assertNever(q.addr);
  }
}

/** `HID/NUM` and `HID mask HID`; mirrors gencode.c:gen_mcode. */
export function genMasked(
  q: Qual,
  netText: string,
  maskText: string | undefined,
  maskLen: number,
): FilterNode {
  const net = atoin(netText);
  if (net === undefined) return fail(`invalid IPv4 address '${netText}'`);
  const addr = shiftLeft(net.value, 32 - net.bits);
  let mask: number;
  if (maskText !== undefined) {
    const parsed = atoin(maskText);
    if (parsed === undefined) return fail(`invalid IPv4 address '${maskText}'`);
    mask = shiftLeft(parsed.value, 32 - parsed.bits);
    if ((addr & ~mask) !== 0) return fail(`non-network bits set in "${netText} mask ${maskText}"`);
  } else {
    if (maskLen > 32) return fail('mask length must be <= 32');
    mask = maskOfLength(maskLen);
    if ((addr & ~mask) !== 0) return fail(`non-network bits set in "${netText}/${maskLen}"`);
  }
  if (q.addr !== 'net') return fail('Mask syntax for networks only');
  return genHost(addr, mask, q);
}

function ipv6Mask(bits: number): number[] {
  return [0, 1, 2, 3].map((word) => maskOfLength(Math.max(0, Math.min(32, bits - word * 32))));
}

/** An IPv6 id, `HID6` or `HID6/NUM`; mirrors gencode.c:gen_mcode6 and gen_host6. */
export function genIpv6(q: Qual, text: string, maskLen: number, written: string): FilterNode {
  const addr = ipv6Words(text);
  if (addr === undefined) return fail(`bogus IPv6 address ${text}`);
  if (maskLen > 128) return fail('mask length must be <= 128');
  const mask = ipv6Mask(maskLen);
  if (addr.some((word, i) => (word & ~mask[i]!) !== 0)) return fail(`non-network bits set in "${written}"`);
  if (q.addr === 'default' || q.addr === 'host') {
    if (maskLen !== 128) return fail('Mask syntax for networks only');
  } else if (q.addr !== 'net') {
    return fail('invalid qualifier against IPv6 address');
  }
  const typeName = q.addr === 'net' ? 'net' : 'host';
  switch (q.proto) {
    case 'default':
    case 'ip6':
      return { kind: 'host6', dir: directionOf(q.dir, 'host'), addr, mask };
    case 'link':
      return fail(`link-layer modifier applied to ip6 ${typeName}`);
    default:
      return fail(`'${q.proto}' modifier applied to ip6 ${typeName}`);
  }
}

/** A MAC address id; mirrors gencode.c:gen_ecode (Ethernet only is checked when compiling). */
export function genEther(q: Qual, text: string): FilterNode {
  if ((q.addr === 'host' || q.addr === 'default') && q.proto === 'link') {
    const hex = text.replace(/[-:.]/g, '');
    const mac =
      hex.length === 12
        ? Number.parseInt(hex, 16)
        : text.split(/[-:.]/).reduce((acc, octet) => acc * 256 + Number.parseInt(octet, 16), 0);
    return { kind: 'etherAddr', dir: directionOf(q.dir, 'ether'), mac };
  }
  return fail('ethernet address used in non-ether expression');
}

/** A service name, as pcap_nametoport finds it: TCP wins, both means "either". */
function lookupPort(name: string): { port: number; protocols: readonly number[] } | undefined {
  if (/^[0-9]+$/.test(name)) return { port: Number(name), protocols: ANY_TRANSPORT };
  const service = SERVICES.get(name);
  if (service === undefined) return undefined;
  if (service.tcp && service.udp) return { port: service.port, protocols: ANY_TRANSPORT };
  return { port: service.port, protocols: [service.tcp ? IPPROTO_TCP : IPPROTO_UDP] };
}

/** Narrows a looked-up service to the transport the filter asked for, as gen_scode does. */
function narrowTransport(
  wanted: readonly number[],
  found: readonly number[],
  what: string,
): readonly number[] {
  if (wanted.length === 1 && found.length === 1 && wanted[0] !== found[0]) {
    return fail(`${what} is ${found[0] === IPPROTO_TCP ? 'tcp' : found[0] === IPPROTO_UDP ? 'udp' : 'sctp'}`);
  }
  return wanted.length === 1 ? wanted : found;
}

/** `a-b` as sscanf("%d-%d") reads it: the numbers, or undefined when it does not read two. */
function scanRange(text: string): [number, number] | undefined {
  const match = /^([0-9]+)-(-?[0-9]+)/.exec(text);
  return match === null ? undefined : [Number(match[1]), Number(match[2])];
}

/** An id that is a name; mirrors gencode.c:gen_scode without resolver lookups. */
export function genName(q: Qual, name: string, linkType: FilterLinkType | undefined): FilterNode {
  switch (q.addr) {
    case 'net':
      return fail(`unknown network '${name}'`);
    case 'default':
    case 'host': {
      if (q.proto === 'link') {
        if (linkType === 276) {
          return fail(
            'only ethernet/FDDI/token ring/802.11/ATM LANE/Fibre Channel supports link-level host name',
          );
        }
        return fail(`unknown ether host '${name}'`);
      }
      if (q.proto === 'decnet') return unsupported('decnet');
      const addr = HOSTS.get(name);
      if (addr === undefined || q.proto === 'ip6') return fail(`unknown host '${name}'`);
      return genHost(addr, 0xffff_ffff, q);
    }
    case 'port': {
      const wanted = transportFor(q, 'port');
      const found = lookupPort(name);
      if (found === undefined) return fail(`unknown port '${name}'`);
      const protocols = narrowTransport(wanted, found.protocols, `port '${name}'`);
      return genPorts('port', found.port, found.port, protocols, q.dir);
    }
    case 'portrange': {
      const wanted = transportFor(q, 'portrange');
      let low: number;
      let high: number;
      let found: readonly number[] = ANY_TRANSPORT;
      const numeric = scanRange(name);
      if (numeric !== undefined) {
        [low, high] = numeric;
      } else {
        const dash = name.indexOf('-');
        const first = dash < 0 ? undefined : lookupPort(name.slice(0, dash));
        const second = dash < 0 ? undefined : lookupPort(name.slice(dash + 1));
        if (first === undefined || second === undefined) return fail(`unknown port in range '${name}'`);
        low = first.port;
        high = second.port;
        found =
          first.protocols.length === second.protocols.length && first.protocols[0] === second.protocols[0]
            ? first.protocols
            : ANY_TRANSPORT;
      }
      const protocols = narrowTransport(wanted, found, `port in range '${name}'`);
      for (const port of [low, high]) {
        if (port > 65535) return fail(`illegal port number ${port} > 65535`);
        if (port < 0) return fail(`illegal port number ${port} < 0`);
      }
      return genPorts('portrange', low, high, protocols, q.dir);
    }
    case 'gateway':
      return fail("'gateway' not supported in this configuration");
    case 'proto': {
      if (q.proto === 'link') {
        const etherType = ETHER_PROTOCOLS.get(name);
        if (etherType === undefined) return fail(`unknown ether proto '${name}'`);
        return genProto(etherType, q);
      }
      if (q.proto === 'default' || q.proto === 'ip' || q.proto === 'ip6') {
        const protocol = IP_PROTOCOLS.get(name);
        if (protocol === undefined) return fail(`unknown ip proto '${name}'`);
        return genProto(protocol, q);
      }
      if (q.proto === 'iso' || q.proto === 'esis' || q.proto === 'isis' || q.proto === 'clnp') {
        return unsupported(`${q.proto} proto`);
      }
      // lookup_proto knows no names under any other protocol.
      return fail(`unknown protocol: ${name}`);
    }
    case 'protochain':
      return unsupported('protochain');
    case 'undef':
      return fail(QUALIFIER_SYNTAX_ERROR);
    default:
      return assertNever(q.addr);
  }
}

/** `[pname] broadcast`; `ip broadcast` uses tcpdump's netmask 0 when reading a file (dst 0 or all-ones). */
export function genBroadcast(proto: ProtoQual): FilterNode {
  if (proto === 'default' || proto === 'link') return { kind: 'linkBroadcast' };
  if (proto === 'ip') {
    const dst = ipLoad(16, 4);
    return or(relation('=', dst, constant(0)), relation('=', dst, constant(0xffff_ffff)));
  }
  return fail('only link-layer/IP broadcast filters supported');
}

export function genMulticast(proto: ProtoQual): FilterNode {
  if (proto === 'ip') return relation('>=', ipLoad(16, 1), constant(224));
  if (proto === 'ip6') {
    const load: ArithNode = {
      kind: 'load',
      base: { layer: 'network', etherType: ETHERTYPE_IPV6 },
      offset: constant(24),
      size: 1,
    };
    return relation('=', load, constant(255));
  }
  if (proto === 'default' || proto === 'link') return { kind: 'linkMulticast' };
  return fail(
    'link-layer multicast filters supported only on ethernet/FDDI/token ring/ARCNET/802.11/ATM LANE/Fibre Channel',
  );
}

function ipLoad(offset: number, size: 1 | 2 | 4): ArithNode {
  return {
    kind: 'load',
    base: { layer: 'network', etherType: ETHERTYPE_IP },
    offset: constant(offset),
    size,
  };
}

export function constant(value: number): ArithNode {
  return { kind: 'const', value };
}

export function relation(op: RelOp, left: ArithNode, right: ArithNode): FilterNode {
  return { kind: 'relation', op, left, right };
}

/** The base of `name[...]`; mirrors the cases of gencode.c:gen_load. */
export function loadBase(name: Keyword): LoadBase {
  switch (name) {
    case 'link':
      return { layer: 'link' };
    case 'ip':
      return { layer: 'network', etherType: ETHERTYPE_IP };
    case 'arp':
      return { layer: 'network', etherType: ETHERTYPE_ARP };
    case 'rarp':
      return { layer: 'network', etherType: ETHERTYPE_REVARP };
    case 'ip6':
      return { layer: 'network', etherType: ETHERTYPE_IPV6 };
    case 'tcp':
      return { layer: 'transport', protocol: IPPROTO_TCP };
    case 'udp':
      return { layer: 'transport', protocol: IPPROTO_UDP };
    case 'sctp':
      return { layer: 'transport', protocol: IPPROTO_SCTP };
    case 'icmp':
      return { layer: 'transport', protocol: 1 };
    case 'igmp':
      return { layer: 'transport', protocol: 2 };
    case 'igrp':
      return { layer: 'transport', protocol: 9 };
    case 'pim':
      return { layer: 'transport', protocol: 103 };
    case 'vrrp':
    case 'carp':
      return { layer: 'transport', protocol: 112 };
    case 'icmp6':
      return { layer: 'transport6', protocol: 58 };
    default:
      return unsupported(`${name}[]`);
  }
}

/** Mirrors gencode.c:gen_arth's checks on a constant right operand. */
export function binary(op: ArithOp, left: ArithNode, right: ArithNode): ArithNode {
  if (right.kind === 'const') {
    if (op === '/' && right.value === 0) fail('division by zero');
    if (op === '%' && right.value === 0) fail('modulus by zero');
    if ((op === '<<' || op === '>>') && right.value > 31) fail('shift by more than 31 bits');
  }
  return { kind: 'binary', op, left, right };
}

export function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
