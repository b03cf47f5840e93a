// Recursive-descent parser for pcap-filter expressions into a typed AST, with libpcap's qualifier inheritance
// and error texts; no IPv6 addresses, host or network name lookups, protochain, MPLS/PPPoE/Geneve, 802.11 or ATM.
//
// The grammar follows libpcap's grammar.y in spirit (our own parser, not a port):
//
//   prog  := ε | expr
//   expr  := term { ('and' | 'or') (term | id) }         and/or share one precedence, left to right
//   term  := 'not' term | rterm
//   rterm := head id | '(' expr ')' | pname | arth relop arth | other
//   head  := [pname] dqual [aqual] | [pname] aqual | [pname] 'proto' | [pname] 'gateway'
//   id    := nid | pnum | '(' pid ')'                    an id inherits the qualifiers of what came before it
//   nid   := ID | HID ['/' NUM | 'mask' HID] | EID | 'not' id
//   pid   := (nid | pnum) { ('and' | 'or') id }
//   other := [pname] 'broadcast' | [pname] 'multicast' | 'less' NUM | 'greater' NUM | 'vlan' [pnum]
//          | 'inbound' | 'outbound' | 'ifindex' NUM
//   arth  := pnum | pname '[' arth [':' NUM] ']' | arth op arth | '-' arth | '(' arth ')' | 'len'
//
// "host 10.0.0.1 or 10.0.0.2" works because the bare id after `or` takes the qualifiers {host} of the term
// before it; a parenthesised expression passes on the qualifiers from before its parenthesis, and a bare
// protocol name passes on none, so "tcp and 80" fails with libpcap's "syntax error in filter expression".
//
// Semantic checks run as soon as a primitive is complete, as libpcap's code generator does during the parse,
// so the first error in reading order wins, whether lexical, semantic or syntactic.

import type { FilterLinkType } from './compile.ts';
import { ipv6Words, type Keyword, type Punct, type Token, tokenize } from './lexer.ts';

/** Which address of a packet a primitive looks at. */
export type Direction = 'src' | 'dst' | 'srcOrDst' | 'srcAndDst';

export type ArithOp = '+' | '-' | '*' | '/' | '%' | '&' | '|' | '^' | '<<' | '>>';
export type RelOp = '>' | '>=' | '=' | '<=' | '<' | '!=';

/**
 * Where a `proto[offset:size]` load counts from, and what the packet must be for it to happen:
 * the link header (no check), the network header of a given EtherType, the IPv4 payload of a given protocol
 * (first fragment only; offset after the real IHL), or the payload of a fixed 40-byte IPv6 header.
 */
export type LoadBase =
  | { readonly layer: 'link' }
  | { readonly layer: 'network'; readonly etherType: number }
  | { readonly layer: 'transport'; readonly protocol: number }
  | { readonly layer: 'transport6'; readonly protocol: number };

export type ArithNode =
  | { readonly kind: 'const'; readonly value: number }
  /** The packet's length on the wire. */
  | { readonly kind: 'len' }
  | { readonly kind: 'load'; readonly base: LoadBase; readonly offset: ArithNode; readonly size: 1 | 2 | 4 }
  | { readonly kind: 'neg'; readonly operand: ArithNode }
  | { readonly kind: 'binary'; readonly op: ArithOp; readonly left: ArithNode; readonly right: ArithNode };

/** A filter expression; every leaf is one test libpcap would compile to BPF. */
export type FilterNode =
  /** The empty filter. */
  | { readonly kind: 'true' }
  | { readonly kind: 'and'; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly kind: 'or'; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly kind: 'not'; readonly operand: FilterNode }
  /**
   * The link layer carries protocol `etherType`: the SLL2 protocol type, or on Ethernet the type field, an
   * 802.2 LLC SAP for values up to 1500, and the SNAP/802.3 forms of IPX and AppleTalk (gen_linktype).
   */
  | { readonly kind: 'etherType'; readonly etherType: number }
  /** An IPv4 packet whose protocol field is `protocol` (any fragment). */
  | { readonly kind: 'ipProto'; readonly protocol: number }
  /** An IPv6 packet whose next header is `protocol`, directly or after one fragment header. */
  | { readonly kind: 'ip6Proto'; readonly protocol: number }
  /** IPv4 (0x0800), ARP (0x0806) or RARP (0x8035) addresses under `mask` equal `addr`. */
  | {
      readonly kind: 'hostAddr';
      readonly etherType: 0x0800 | 0x0806 | 0x8035;
      readonly dir: Direction;
      readonly addr: number;
      readonly mask: number;
    }
  /** IPv6 source/destination address under a mask, each as four 32-bit words (most significant first). */
  | {
      readonly kind: 'host6';
      readonly dir: Direction;
      readonly addr: readonly number[];
      readonly mask: readonly number[];
    }
  /** Ethernet source/destination MAC (a 48-bit number). */
  | { readonly kind: 'etherAddr'; readonly dir: Direction; readonly mac: number }
  /**
   * A TCP/UDP/SCTP port in [low, high] over IPv4 (first fragments only) or IPv6 (no extension headers);
   * `protocols` lists the IP protocol numbers accepted.
   */
  | {
      readonly kind: 'port';
      readonly family: 'ip' | 'ip6';
      readonly protocols: readonly number[];
      readonly dir: Direction;
      readonly low: number;
      readonly high: number;
    }
  /** `less N` (length <= N) and `greater N` (length >= N). */
  | { readonly kind: 'length'; readonly op: '<=' | '>='; readonly value: number }
  /** An 802.1Q/802.1ad tag (and its VLAN id); shifts every later primitive's offsets by 4 bytes. */
  | { readonly kind: 'vlan'; readonly id: number | undefined }
  | { readonly kind: 'relation'; readonly op: RelOp; readonly left: ArithNode; readonly right: ArithNode }
  | { readonly kind: 'linkBroadcast' }
  | { readonly kind: 'linkMulticast' }
  /** `inbound`/`outbound`: the SLL2 packet type is (not) PACKET_OUTGOING. */
  | { readonly kind: 'packetDirection'; readonly outbound: boolean }
  /** `ifindex N`: the SLL2 interface index. */
  | { readonly kind: 'ifindex'; readonly index: number }
  /** `byte N op V` (=, <, >): libpcap 1.10 compares the byte at offset N of the link-layer header. */
  | {
      readonly kind: 'linkByte';
      readonly offset: number;
      readonly op: '=' | '<' | '>';
      readonly value: number;
    };

export type ParseResult =
  | { readonly ok: true; readonly ast: FilterNode }
  | { readonly ok: false; readonly message: string };

/**
 * Parses a filter expression; never throws. Error messages are libpcap's, without tcpdump's "tcpdump: ".
 * With a link type, primitives that link type cannot carry fail here, in reading order as in libpcap.
 */
export function parseFilter(text: string, linkType?: FilterLinkType): ParseResult {
  const parser = new Parser(tokenize(text), linkType);
  try {
    return { ok: true, ast: parser.parseProgram() };
  } catch (error) {
    if (error instanceof FilterError) return { ok: false, message: error.message };
    throw error;
  }
}

/** The message libpcap gives for any grammar error. */
export const SYNTAX_ERROR = "can't parse filter expression: syntax error";
/** The message libpcap's code generator gives for an id with no usable qualifier ("tcp and 80"). */
export const QUALIFIER_SYNTAX_ERROR = 'syntax error in filter expression';

class FilterError extends Error {}

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

function fail(message: string): never {
  throw new FilterError(message);
}

// ---------------------------------------------------------------------------------------------------------
// Qualifiers

const PNAMES = new Set<Keyword>([
  'link',
  'ip',
  'arp',
  'rarp',
  'sctp',
  'tcp',
  'udp',
  'icmp',
  'igmp',
  'igrp',
  'pim',
  'vrrp',
  'carp',
  'atalk',
  'aarp',
  'decnet',
  'lat',
  'sca',
  'moprc',
  'mopdl',
  'ip6',
  'icmp6',
  'ah',
  'esp',
  'iso',
  'esis',
  'isis',
  'l1',
  'l2',
  'iih',
  'lsp',
  'snp',
  'psnp',
  'csnp',
  'clnp',
  'stp',
  'ipx',
  'netbeui',
  'radio',
]);

type ProtoQual = Keyword | 'default' | 'undef';
type DirQual =
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
type AddrQual =
  | 'default'
  | 'undef'
  | 'host'
  | 'net'
  | 'port'
  | 'portrange'
  | 'proto'
  | 'protochain'
  | 'gateway';

interface Qual {
  readonly proto: ProtoQual;
  readonly dir: DirQual;
  readonly addr: AddrQual;
}

/** What a bare protocol name, an `other` primitive or a relation passes on to a following bare id. */
const QERR: Qual = { proto: 'undef', dir: 'undef', addr: 'undef' };

const DIR_KEYWORDS = new Set<Keyword>(['src', 'dst', 'addr1', 'addr2', 'addr3', 'addr4', 'ra', 'ta']);
const AQUAL_KEYWORDS = new Set<Keyword>(['host', 'net', 'port', 'portrange']);
const HEAD_END_KEYWORDS = new Set<Keyword>(['proto', 'protochain', 'gateway']);

/** Keywords libpcap accepts that packetlab's filter compiler does not implement. */
const UNSUPPORTED_KEYWORDS = new Set<Keyword>([
  'lane',
  'llc',
  'metac',
  'bcc',
  'oam',
  'oamf4',
  'oamf4ec',
  'oamf4sc',
  'sc',
  'ilmic',
  'vpi',
  'vci',
  'connectmsg',
  'metaconnect',
  'on',
  'rset',
  'rnr',
  'srnr',
  'reason',
  'action',
  'fisu',
  'lssu',
  'msu',
  'hfisu',
  'hlssu',
  'hmsu',
  'sio',
  'opc',
  'dpc',
  'sls',
  'hsio',
  'hopc',
  'hdpc',
  'hsls',
  'type',
  'subtype',
  'dir',
]);

/**
 * Something libpcap accepts that we do not implement. It is reported only if the whole expression parses
 * without a libpcap error, since tcpdump would have reported that error instead.
 */
class Unsupported extends Error {}

function unsupported(what: string): never {
  throw new Unsupported(`packetlab does not support '${what}' in filter expressions`);
}

/** Stands in for an unsupported primitive until the parse ends (and is then refused). */
const PLACEHOLDER: FilterNode = { kind: 'true' };

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
const VLAN_ID_MAX = 4095;

// ---------------------------------------------------------------------------------------------------------
// Semantics: each function below builds the AST for one primitive, or fails with libpcap's message.

function or(left: FilterNode, right: FilterNode): FilterNode {
  return { kind: 'or', left, right };
}

function and(left: FilterNode, right: FilterNode): FilterNode {
  return { kind: 'and', left, right };
}

function not(operand: FilterNode): FilterNode {
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
function genProtoAbbrev(name: Keyword): FilterNode {
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
function genNumber(q: Qual, value: number, dotted: string | undefined): FilterNode {
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
function genMasked(q: Qual, netText: string, maskText: string | undefined, maskLen: number): FilterNode {
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
function genIpv6(q: Qual, text: string, maskLen: number, written: string): FilterNode {
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
function genEther(q: Qual, text: string): FilterNode {
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
function genName(q: Qual, name: string): FilterNode {
  switch (q.addr) {
    case 'net':
      return fail(`unknown network '${name}'`);
    case 'default':
    case 'host': {
      if (q.proto === 'link') return fail(`unknown ether host '${name}'`);
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
      return genProto(0, q);
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
function genBroadcast(proto: ProtoQual): FilterNode {
  if (proto === 'default' || proto === 'link') return { kind: 'linkBroadcast' };
  if (proto === 'ip') {
    const dst = ipLoad(16, 4);
    return or(relation('=', dst, constant(0)), relation('=', dst, constant(0xffff_ffff)));
  }
  return fail('only link-layer/IP broadcast filters supported');
}

function genMulticast(proto: ProtoQual): FilterNode {
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

function constant(value: number): ArithNode {
  return { kind: 'const', value };
}

function relation(op: RelOp, left: ArithNode, right: ArithNode): FilterNode {
  return { kind: 'relation', op, left, right };
}

/** The base of `name[...]`; mirrors the cases of gencode.c:gen_load. */
function loadBase(name: Keyword): LoadBase {
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
function binary(op: ArithOp, left: ArithNode, right: ArithNode): ArithNode {
  if (right.kind === 'const') {
    if (op === '/' && right.value === 0) fail('division by zero');
    if (op === '%' && right.value === 0) fail('modulus by zero');
    if ((op === '<<' || op === '>>') && right.value > 31) fail('shift by more than 31 bits');
  }
  return { kind: 'binary', op, left, right };
}

// ---------------------------------------------------------------------------------------------------------
// The parser proper

const ARITH_PRECEDENCE: ReadonlyMap<Punct, number> = new Map<Punct, number>([
  ['|', 1],
  ['&', 2],
  ['<<', 3],
  ['>>', 3],
  ['+', 4],
  ['-', 4],
  ['*', 5],
  ['/', 5],
]);
/** Above every binary operator, as bison's %prec UMINUS. */
const UMINUS_PRECEDENCE = 6;
const RELOPS = new Set<Punct>(['>', '>=', '=', '<=', '<', '!=']);

function isArithOperator(token: Token | undefined): boolean {
  return (
    token !== undefined &&
    token.kind === 'punct' &&
    (ARITH_PRECEDENCE.has(token.punct) || token.punct === '%' || token.punct === '^')
  );
}

/** A token that can appear inside an arithmetic operand (`name` only when it indexes, `name[`). */
function isArithToken(token: Token, next: Token | undefined): boolean {
  switch (token.kind) {
    case 'num':
      return true;
    case 'punct':
      return isArithOperator(token) || token.punct === '[' || token.punct === ']' || token.punct === ':';
    case 'keyword':
      return token.keyword === 'len' || (PNAMES.has(token.keyword) && isPunct(next, '['));
    default:
      return false;
  }
}

function isKeyword(token: Token, keyword: Keyword): boolean {
  return token.kind === 'keyword' && token.keyword === keyword;
}

function isPunct(token: Token | undefined, punct: Punct): boolean {
  return token !== undefined && token.kind === 'punct' && token.punct === punct;
}

function isNot(token: Token | undefined): boolean {
  return token !== undefined && (isKeyword(token, 'not') || isPunct(token, '!'));
}

function isConnective(token: Token | undefined): boolean {
  return token !== undefined && (isKeyword(token, 'and') || isKeyword(token, 'or'));
}

interface Parsed {
  readonly node: FilterNode;
  /** The qualifiers a bare id after this piece inherits. */
  readonly q: Qual;
}

class Parser {
  private pos = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly linkType: FilterLinkType | undefined,
  ) {}

  /** Fails now when the capture's link type cannot carry `node`, as libpcap's code generator does. */
  private linked(node: FilterNode): FilterNode {
    if (this.linkType !== undefined) {
      const error = linkTypeError(node, this.linkType);
      if (error !== undefined) fail(error);
    }
    return node;
  }

  /** The first unsupported feature met, reported once the parse succeeds. */
  private unsupportedFeature: string | undefined;

  parseProgram(): FilterNode {
    if (this.peek().kind === 'eof') return { kind: 'true' };
    const { node } = this.parseExpr(QERR);
    if (this.peek().kind !== 'eof') this.syntaxError();
    if (this.unsupportedFeature !== undefined) fail(this.unsupportedFeature);
    return node;
  }

  /** Runs a semantic action; an unsupported feature is noted and parsing goes on. */
  private semantic<T>(action: () => T, placeholder: T): T {
    try {
      return action();
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      this.unsupportedFeature ??= error.message;
      return placeholder;
    }
  }

  /** The next token; reaching a lexical error reports it, as libpcap does when bison asks for that token. */
  private peek(): Token {
    const token = this.tokens[this.pos]!;
    if (token.kind === 'error') fail(token.message ?? SYNTAX_ERROR);
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.pos++;
    return token;
  }

  /**
   * The next token without reporting a lexical error: for optional continuations, where bison reduces (and
   * runs the pending semantic action, whose error then wins) before it notices a bad lookahead.
   */
  private peekRaw(): Token {
    return this.tokens[this.pos]!;
  }

  private syntaxError(): never {
    this.peek();
    return fail(SYNTAX_ERROR);
  }

  private expectPunct(punct: Punct): void {
    if (!isPunct(this.peek(), punct)) this.syntaxError();
    this.pos++;
  }

  private expectNumber(): number {
    const token = this.peek();
    if (token.kind !== 'num') this.syntaxError();
    this.pos++;
    return token.value;
  }

  private parseExpr(qBefore: Qual): Parsed {
    let { node, q } = this.parseTerm(qBefore);
    while (isConnective(this.peek())) {
      const connective = this.next();
      const combine = isKeyword(connective, 'and') ? and : or;
      if (this.startsId(this.pos)) {
        node = combine(node, this.parseId(q));
      } else {
        const term = this.parseTerm(q);
        node = combine(node, term.node);
        q = term.q;
      }
    }
    return { node, q };
  }

  private parseTerm(qBefore: Qual): Parsed {
    if (isNot(this.peek())) {
      this.pos++;
      const term = this.parseTerm(qBefore);
      return { node: not(term.node), q: term.q };
    }
    return this.parseRterm(qBefore);
  }

  private parseRterm(qBefore: Qual): Parsed {
    const token = this.peek();
    if (isPunct(token, '(')) {
      if (this.parenIsArith(this.pos)) return { node: this.parseRelation(), q: QERR };
      this.pos++;
      const inner = this.parseExpr(qBefore);
      this.expectPunct(')');
      return { node: inner.node, q: qBefore };
    }
    if (token.kind === 'num' || isPunct(token, '-') || isKeyword(token, 'len')) {
      return { node: this.parseRelation(), q: QERR };
    }
    if (token.kind !== 'keyword') return this.syntaxError();
    const keyword = token.keyword;
    if (PNAMES.has(keyword)) {
      this.pos++;
      const after = this.peek();
      this.pos--;
      if (isPunct(after, '[')) return { node: this.parseRelation(), q: QERR };
      if (after !== undefined && after.kind === 'keyword' && this.startsHeadOrOther(after.keyword)) {
        this.pos++;
        return this.parseQualified(keyword);
      }
      this.pos++;
      // bison reduces a bare protocol name only when what follows can end a term.
      if (!this.atTermEnd()) this.syntaxError();
      return { node: this.semantic(() => genProtoAbbrev(keyword), PLACEHOLDER), q: QERR };
    }
    if (this.startsHeadOrOther(keyword)) return this.parseQualified('default');
    switch (keyword) {
      case 'less':
      case 'greater': {
        this.pos++;
        const value = this.expectNumber();
        return { node: { kind: 'length', op: keyword === 'less' ? '<=' : '>=', value }, q: QERR };
      }
      case 'vlan': {
        this.pos++;
        const next = this.peekRaw();
        if (next.kind !== 'num' && !isPunct(next, '(')) {
          return { node: this.linked({ kind: 'vlan', id: undefined }), q: QERR };
        }
        const id = this.parsePnum();
        const node = this.linked({ kind: 'vlan', id });
        if (id > VLAN_ID_MAX) fail(`VLAN tag ${id} greater than maximum ${VLAN_ID_MAX}`);
        return { node, q: QERR };
      }
      case 'inbound':
      case 'outbound':
        this.pos++;
        return { node: this.linked({ kind: 'packetDirection', outbound: keyword === 'outbound' }), q: QERR };
      case 'ifindex': {
        this.pos++;
        const index = this.expectNumber();
        return { node: this.linked({ kind: 'ifindex', index }), q: QERR };
      }
      default:
        if (keyword === 'byte') return { node: this.parseByte(), q: QERR };
        if (keyword === 'mpls' || keyword === 'pppoes' || keyword === 'geneve' || keyword === 'pppoed') {
          return this.parseUnsupportedEncapsulation(keyword);
        }
        if (UNSUPPORTED_KEYWORDS.has(keyword)) return unsupported(token.text);
        return this.syntaxError();
    }
  }

  private atTermEnd(): boolean {
    const token = this.peek();
    return token.kind === 'eof' || isConnective(token) || isPunct(token, ')');
  }

  private startsHeadOrOther(keyword: Keyword): boolean {
    return (
      DIR_KEYWORDS.has(keyword) ||
      AQUAL_KEYWORDS.has(keyword) ||
      HEAD_END_KEYWORDS.has(keyword) ||
      keyword === 'broadcast' ||
      keyword === 'multicast'
    );
  }

  /** `byte NUM byteop NUM`; the `&` and `|` forms (which libpcap 1.10 compiles without a load) are refused. */
  private parseByte(): FilterNode {
    this.pos++;
    const offset = this.expectNumber();
    const op = this.peek();
    if (op.kind !== 'punct' || !['&', '|', '<', '>', '='].includes(op.punct)) return this.syntaxError();
    this.pos++;
    const value = this.expectNumber();
    if (op.punct === '&' || op.punct === '|') {
      this.unsupportedFeature ??= `packetlab does not support 'byte ${op.punct}' in filter expressions`;
      return PLACEHOLDER;
    }
    return { kind: 'linkByte', offset, op: op.punct as '=' | '<' | '>', value };
  }

  /** `mpls [N]`, `pppoes [N]`, `geneve [N]`, `pppoed`: parsed as libpcap does, then refused. */
  private parseUnsupportedEncapsulation(keyword: Keyword): Parsed {
    this.pos++;
    if (keyword !== 'pppoed') {
      const next = this.peekRaw();
      if (next.kind === 'num' || isPunct(next, '(')) this.parsePnum();
    }
    if (keyword === 'mpls' && this.linkType === 276) fail('no MPLS support for Linux cooked v2');
    this.unsupportedFeature ??= `packetlab does not support '${keyword}' in filter expressions`;
    return { node: PLACEHOLDER, q: QERR };
  }

  /** After an optional protocol name: a head and its id, or `broadcast`/`multicast`. */
  private parseQualified(proto: ProtoQual): Parsed {
    const token = this.next();
    if (token.kind !== 'keyword') return this.syntaxError();
    if (token.keyword === 'broadcast') return { node: this.linked(genBroadcast(proto)), q: QERR };
    if (token.keyword === 'multicast') return { node: this.linked(genMulticast(proto)), q: QERR };
    if (token.keyword === 'protochain') {
      const q: Qual = { proto, dir: 'default', addr: 'protochain' };
      return { node: this.parseId(q), q };
    }
    let dir: DirQual = 'default';
    let addr: AddrQual = 'default';
    if (DIR_KEYWORDS.has(token.keyword)) {
      dir = token.keyword as DirQual;
      if ((dir === 'src' || dir === 'dst') && isConnective(this.peek())) {
        const connective = this.next();
        if (!isKeyword(this.peek(), dir === 'src' ? 'dst' : 'src')) this.syntaxError();
        this.pos++;
        dir = isKeyword(connective, 'and') ? 'and' : 'or';
      }
      const after = this.peek();
      if (after.kind === 'keyword' && AQUAL_KEYWORDS.has(after.keyword)) {
        addr = after.keyword as AddrQual;
        this.pos++;
      }
    } else {
      addr = token.keyword as AddrQual;
    }
    const q: Qual = { proto, dir, addr };
    return { node: this.parseId(q), q };
  }

  /** `id := nid | pnum | '(' pid ')'`, with the inherited qualifiers `q`. */
  private parseId(q: Qual): FilterNode {
    const token = this.peek();
    if (token.kind === 'num') {
      this.pos++;
      return this.semantic(() => genNumber(q, token.value, undefined), PLACEHOLDER);
    }
    if (isPunct(token, '(')) {
      this.pos++;
      let node: FilterNode;
      if (this.isPnumStart()) {
        const value = this.parsePnum();
        node = this.semantic(() => genNumber(q, value, undefined), PLACEHOLDER);
      } else {
        node = this.parseNid(q);
      }
      while (isConnective(this.peek())) {
        const combine = isKeyword(this.next(), 'and') ? and : or;
        node = combine(node, this.parseId(q));
      }
      this.expectPunct(')');
      return node;
    }
    return this.parseNid(q);
  }

  private isPnumStart(): boolean {
    const token = this.peek();
    return token.kind === 'num' || isPunct(token, '(');
  }

  /** `pnum := NUM | '(' pnum ')'`. */
  private parsePnum(): number {
    if (isPunct(this.peek(), '(')) {
      this.pos++;
      const value = this.parsePnum();
      this.expectPunct(')');
      return value;
    }
    return this.expectNumber();
  }

  private parseNid(q: Qual): FilterNode {
    const token = this.peek();
    switch (token.kind) {
      case 'id':
        this.pos++;
        return this.semantic(() => genName(q, token.name), PLACEHOLDER);
      case 'hid': {
        this.pos++;
        const after = this.peekRaw();
        if (isPunct(after, '/')) {
          this.pos++;
          const maskLen = this.expectNumber();
          return this.semantic(() => genMasked(q, token.text, undefined, maskLen), PLACEHOLDER);
        }
        if (isKeyword(after, 'mask')) {
          this.pos++;
          const mask = this.peek();
          if (mask.kind !== 'hid') return this.syntaxError();
          this.pos++;
          return this.semantic(() => genMasked(q, token.text, mask.text, 0), PLACEHOLDER);
        }
        if (q.addr === 'port' || q.addr === 'portrange' || q.addr === 'proto' || q.addr === 'protochain') {
          return fail(`'${q.addr}' modifier applied to ip host`);
        }
        return this.semantic(() => genNumber(q, 0, token.text), PLACEHOLDER);
      }
      case 'hid6': {
        this.pos++;
        if (isPunct(this.peekRaw(), '/')) {
          this.pos++;
          const maskLen = this.expectNumber();
          return genIpv6(q, token.text, maskLen, `${token.text}/${maskLen}`);
        }
        return genIpv6(q, token.text, 128, token.text);
      }
      case 'eid':
        this.pos++;
        return this.linked(genEther(q, token.text));
      case 'aid':
        return fail('aid supported only on ARCnet');
      default:
        if (isNot(token)) {
          this.pos++;
          return not(this.parseId(q));
        }
        return this.syntaxError();
    }
  }

  // --- deciding between a term and a bare id after and/or (bison decides this with its LALR tables)

  private startsId(at: number): boolean {
    const token = this.tokens[at]!;
    switch (token.kind) {
      case 'id':
      case 'hid':
      case 'hid6':
      case 'eid':
      case 'aid':
      case 'error':
        return true;
      case 'num': {
        // bison prefers `arth: pnum` unless the lookahead can only follow an id.
        const after = this.tokens[at + 1];
        return isConnective(after) || isPunct(after, ')') || after?.kind === 'eof';
      }
      case 'keyword':
        return token.keyword === 'not' ? this.startsId(at + 1) : false;
      case 'punct':
        if (token.punct === '!') return this.startsId(at + 1);
        if (token.punct === '(') return this.parenStartsId(at);
        return false;
      case 'eof':
        return false;
      default:
        return assertNever(token);
    }
  }

  /** `( pid )` or `( pnum )` rather than `( expr )` or an arithmetic parenthesis. */
  private parenStartsId(at: number): boolean {
    if (this.parenIsArith(at)) {
      // `(80)` is a pnum id when what follows can follow an id; otherwise bison takes it as an operand.
      const close = this.matchingClose(at);
      const after = this.tokens[close + 1];
      if (!isConnective(after) && !isPunct(after, ')') && after?.kind !== 'eof') return false;
      let numbers = 0;
      for (let i = at; i < close; i++) {
        const token = this.tokens[i]!;
        if (token.kind === 'num') numbers++;
        else if (!isPunct(token, '(') && !isPunct(token, ')')) return false;
      }
      return numbers === 1;
    }
    let inner = at;
    let opened = 0;
    for (; isPunct(this.tokens[inner], '(') || isNot(this.tokens[inner]); inner++) {
      if (isPunct(this.tokens[inner], '(')) opened++;
    }
    const first = this.tokens[inner]!;
    if (first.kind === 'num') {
      // A number is an id (pnum) when, past the parentheses closing around it, an id may follow.
      let after = inner + 1;
      for (let closed = 0; closed < opened && isPunct(this.tokens[after], ')'); closed++) after++;
      const next = this.tokens[after];
      return isConnective(next) || isPunct(next, ')') || next?.kind === 'eof';
    }
    return (
      first.kind === 'id' ||
      first.kind === 'hid' ||
      first.kind === 'hid6' ||
      first.kind === 'eid' ||
      first.kind === 'aid'
    );
  }

  /** The index of the parenthesis closing the one at `at` (callers know it is balanced). */
  private matchingClose(at: number): number {
    let depth = 0;
    for (let i = at; i < this.tokens.length; i++) {
      if (isPunct(this.tokens[i], '(')) depth++;
      else if (isPunct(this.tokens[i], ')') && --depth === 0) return i;
    }
    return this.tokens.length - 1;
  }

  /**
   * True when the parenthesis at `at` holds only arithmetic (numbers, operators, `len`, `name[...]`), so that
   * it opens an operand of a relation rather than a parenthesised expression.
   */
  private parenIsArith(at: number): boolean {
    let depth = 0;
    for (let i = at; i < this.tokens.length; i++) {
      const token = this.tokens[i]!;
      if (isPunct(token, '(')) depth++;
      else if (isPunct(token, ')')) {
        depth--;
        if (depth === 0) return true;
      } else if (!isArithToken(token, this.tokens[i + 1])) return false;
    }
    return false;
  }

  // --- arithmetic

  private parseRelation(): FilterNode {
    const left = this.parseArith(0);
    const token = this.peek();
    if (token.kind !== 'punct' || !RELOPS.has(token.punct)) return this.syntaxError();
    this.pos++;
    const right = this.parseArith(0);
    return relation(token.punct as RelOp, left, right);
  }

  /**
   * Precedence climbing with bison's resolution of grammar.y: `%` and `^` have no declared precedence, so a
   * conflict on them always shifts: they take the operand just before them and everything after them.
   */
  private parseArith(minPrecedence: number): ArithNode {
    let left = this.parseArithOperand();
    for (;;) {
      const token = this.peekRaw();
      if (token.kind !== 'punct') return left;
      if (token.punct === '%' || token.punct === '^') {
        this.pos++;
        left = binary(token.punct, left, this.parseArith(0));
        continue;
      }
      const precedence = ARITH_PRECEDENCE.get(token.punct);
      if (precedence === undefined || precedence < minPrecedence) return left;
      this.pos++;
      left = binary(token.punct as ArithOp, left, this.parseArith(precedence + 1));
    }
  }

  private parseArithOperand(): ArithNode {
    const token = this.peek();
    if (token.kind === 'num') {
      this.pos++;
      return constant(token.value);
    }
    if (isPunct(token, '-')) {
      this.pos++;
      return { kind: 'neg', operand: this.parseArith(UMINUS_PRECEDENCE) };
    }
    if (isPunct(token, '(')) {
      this.pos++;
      const inner = this.parseArith(0);
      this.expectPunct(')');
      return inner;
    }
    if (isKeyword(token, 'len')) {
      this.pos++;
      return { kind: 'len' };
    }
    if (token.kind === 'keyword' && PNAMES.has(token.keyword)) {
      this.pos++;
      this.expectPunct('[');
      const offset = this.parseArith(0);
      let size = 1;
      if (isPunct(this.peek(), ':')) {
        this.pos++;
        size = this.expectNumber();
      }
      this.expectPunct(']');
      if (size !== 1 && size !== 2 && size !== 4) return fail('data size must be 1, 2, or 4');
      const base = this.semantic<LoadBase>(() => loadBase(token.keyword), { layer: 'link' });
      return { kind: 'load', base, offset, size };
    }
    return this.syntaxError();
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
