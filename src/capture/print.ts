// A tcpdump-style one-line printer for captured frames (what `tcpdump -nn [-e]` 4.99 prints after the timestamp), Ethernet and Linux cooked v2 link types; no -v detail, no IPv6, no LLC/SNAP, and of the application protocols only HTTP request/status lines and VXLAN/OTV are decoded.
//
// The printer walks the bytes as tcpdump's dissectors do (print-ether.c, print-sll.c,
// print-arp.c, print-ip.c, print-tcp.c, print-udp.c, print-icmp.c, print-vxlan.c, print-otv.c,
// util-print.c, read as a reference for the output format): every read is bounds-checked
// against the captured bytes, and a read past them ends the line with tcpdump's ` [|proto]`
// truncation marker, naming the protocol being decoded. Malformed headers print tcpdump's own
// complaints (`bad-hlen`, `truncated-udplength`, `[bad hdr length ...]`, `[bad opt]`).
// Bad or truncated input never throws.
//
// tcpdump prints TCP sequence numbers relative to the first segment with ACK it sees of a
// conversation, so it keeps state across packets: pass one TcpSeqTable (or use a
// TcpdumpPrinter) for a whole capture, or none to print each frame as if it were the first.
// Interface names of an SLL2 capture come from the `ifName` callback (tcpdump asks the host it
// runs on); an unknown index prints `?`, as tcpdump does.

import { formatIpv4, formatMac } from '../wire/address.ts';

/** Link types the printer reads: LINKTYPE_ETHERNET and LINKTYPE_LINUX_SLL2. */
export type PrintLinkType = 1 | 276;

export interface PrintOptions {
  readonly linkType: PrintLinkType;
  /** `tcpdump -e`: print the link-level header on every line. */
  readonly showLinkLayer?: boolean;
  /** Interface names for SLL2 headers (tcpdump's if_indextoname); undefined prints `?`. */
  readonly ifName?: (ifIndex: number) => string | undefined;
  /** The frame's length on the wire when the capture cut it (pcap orig_len); default its captured length. */
  readonly wireLength?: number;
  /** `tcpdump -S`: absolute TCP sequence numbers. */
  readonly absoluteSeq?: boolean;
  /** Conversation state for relative sequence numbers; without it every frame prints as the first of its conversation. */
  readonly tcpSeq?: TcpSeqTable;
}

/** How the timestamp is printed: `clock` is tcpdump's default, `epoch` is -tt, `none` is -t. */
export type TimestampFormat = 'clock' | 'epoch' | 'none';

export interface LineOptions extends PrintOptions {
  readonly timestamp?: TimestampFormat;
  /** `--nano`: nine fractional digits instead of six (micro digits are truncated, as libpcap does). */
  readonly nano?: boolean;
}

/**
 * The initial sequence numbers tcpdump records per TCP conversation (print-tcp.c's
 * tcp_seq_hash4): both directions share one entry, keyed with the lower port first.
 */
export class TcpSeqTable {
  private readonly entries = new Map<string, { seq: number; ack: number }>();

  /** Forgets every conversation. */
  clear(): void {
    this.entries.clear();
  }

  /** @internal Looks up, records or rebases one segment's numbers; returns what to print. */
  relate(
    srcAddr: number,
    dstAddr: number,
    srcPort: number,
    dstPort: number,
    syn: boolean,
    seq: number,
    ack: number,
  ): { seq: number; ack: number; baseSeq: number; baseAck: number; reversed: boolean } {
    const reversed = srcPort > dstPort || (srcPort === dstPort && srcAddr > dstAddr);
    const key = reversed
      ? `${dstAddr}/${srcAddr}/${dstPort}/${srcPort}`
      : `${srcAddr}/${dstAddr}/${srcPort}/${dstPort}`;
    const entry = this.entries.get(key);
    if (entry === undefined || syn) {
      const recorded = reversed ? { ack: seq, seq: (ack - 1) >>> 0 } : { seq, ack: (ack - 1) >>> 0 };
      this.entries.set(key, recorded);
      return { seq, ack, baseSeq: recorded.seq, baseAck: recorded.ack, reversed };
    }
    const relSeq = reversed ? seq - entry.ack : seq - entry.seq;
    const relAck = reversed ? ack - entry.seq : ack - entry.ack;
    return {
      seq: relSeq >>> 0,
      ack: relAck >>> 0,
      baseSeq: entry.seq,
      baseAck: entry.ack,
      reversed,
    };
  }
}

/** A printer that keeps tcpdump's per-capture state (relative TCP sequence numbers) across frames. */
export class TcpdumpPrinter {
  private readonly tcpSeq = new TcpSeqTable();

  constructor(private readonly options: Omit<LineOptions, 'tcpSeq' | 'wireLength'>) {}

  /** The text after the timestamp. */
  format(frame: Uint8Array, wireLength: number = frame.length): string {
    return formatFrame(frame, { ...this.options, wireLength, tcpSeq: this.tcpSeq });
  }

  /** The whole line (lines, for VXLAN and hex dumps), timestamp first. */
  formatLine(timeNs: number, frame: Uint8Array, wireLength: number = frame.length): string {
    return formatTcpdumpLine(timeNs, frame, { ...this.options, wireLength, tcpSeq: this.tcpSeq });
  }
}

const NS_PER_SEC = 1_000_000_000;
const SECONDS_PER_DAY = 86_400;

/**
 * tcpdump's timestamp for virtual time `timeNs`, where time 0 is 1970-01-01 00:00:00 UTC:
 * `HH:MM:SS.uuuuuu` (clock, wrapping at midnight), `S.uuuuuu` (epoch), and nine digits with `nano`.
 */
export function formatTimestamp(timeNs: number, format: TimestampFormat = 'clock', nano = false): string {
  if (format === 'none') return '';
  const ns = Math.max(0, Math.floor(timeNs));
  const seconds = Math.floor(ns / NS_PER_SEC);
  const fraction = ns - seconds * NS_PER_SEC;
  const digits = nano
    ? String(fraction).padStart(9, '0')
    : String(Math.floor(fraction / 1000)).padStart(6, '0');
  if (format === 'epoch') return `${seconds}.${digits}`;
  const ofDay = seconds % SECONDS_PER_DAY;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(ofDay / 3600))}:${two(Math.floor(ofDay / 60) % 60)}:${two(ofDay % 60)}.${digits}`;
}

/** The full tcpdump line for one frame: timestamp, a space, then formatFrame's text. */
export function formatTcpdumpLine(timeNs: number, frame: Uint8Array, options: LineOptions): string {
  const body = formatFrame(frame, options);
  if (frame.length === 0) return body; // tcpdump prints the invalid-header notice without a timestamp
  const stamp = formatTimestamp(timeNs, options.timestamp ?? 'clock', options.nano ?? false);
  return stamp === '' ? body : `${stamp} ${body}`;
}

/**
 * What `tcpdump -nn` (with `showLinkLayer`, `-e`) prints for one captured frame after the
 * timestamp and its space. Several lines for VXLAN (the inner frame starts a new line) and
 * for unknown EtherTypes (a hex dump follows, each line starting with a tab).
 */
export function formatFrame(frame: Uint8Array, options: PrintOptions): string {
  const wireLength = options.wireLength ?? frame.length;
  if (frame.length === 0) return '[Invalid header: caplen==0]';
  if (wireLength < frame.length) return `[Invalid header: len(${wireLength}) < caplen(${frame.length})]`;
  const printer = new Dissector(frame, options);
  try {
    if (options.linkType === 276) printer.sll2(0, wireLength);
    else printer.ether(0, wireLength, frame.length);
  } catch (error) {
    if (!(error instanceof Truncated)) throw error;
    printer.printTrunc();
  }
  return printer.out;
}

/** Thrown by a read past the captured bytes; caught at the top like tcpdump's longjmp. */
class Truncated {}
const TRUNCATED = new Truncated();

const ETHER_HEADER_LEN = 14;
const SLL2_HEADER_LEN = 20;
const MAX_ETHERNET_LENGTH_VAL = 1500;

const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_ARP = 0x0806;
const ETHERTYPE_8021Q = 0x8100;
const ETHERTYPE_8021QINQ = 0x88a8;
const ETHERTYPE_8021Q9100 = 0x9100;
const ETHERTYPE_8021Q9200 = 0x9200;

/** EtherType names as tcpdump's ethertype_values table spells them. */
const ETHERTYPE_NAMES = new Map<number, string>([
  [0x0800, 'IPv4'],
  [0x8847, 'MPLS unicast'],
  [0x8848, 'MPLS multicast'],
  [0x86dd, 'IPv6'],
  [0x8100, '802.1Q'],
  [0x9100, '802.1Q-9100'],
  [0x88a8, '802.1Q-QinQ'],
  [0x9200, '802.1Q-9200'],
  [0x88e5, '802.1AE MACsec'],
  [0x0200, 'PUP'],
  [0x0806, 'ARP'],
  [0x8035, 'Reverse ARP'],
  [0x0600, 'NS'],
  [0x0500, 'Sprite'],
  [0x1000, 'Trail'],
  [0x6001, 'MOP DL'],
  [0x6002, 'MOP RC'],
  [0x6003, 'DN'],
  [0x6004, 'LAT'],
  [0x6007, 'SCA'],
  [0x6558, 'TEB'],
  [0x8038, 'Lanbridge'],
  [0x803c, 'DEC DNS'],
  [0x803e, 'DEC DTS'],
  [0x805b, 'VEXP'],
  [0x805c, 'VPROD'],
  [0x809b, 'Appletalk'],
  [0x80f3, 'Appletalk ARP'],
  [0x8137, 'IPX'],
  [0x880b, 'PPP'],
  [0x8808, 'MPCP'],
  [0x8809, 'Slow Protocols'],
  [0x8863, 'PPPoE D'],
  [0x8864, 'PPPoE S'],
  [0x888e, 'EAPOL'],
  [0x8899, 'Realtek protocols'],
  [0x886f, 'MS NLB heartbeat'],
  [0x8870, 'Jumbo'],
  [0x894f, 'NSH'],
  [0x9000, 'Loopback'],
  [0xfefe, 'OSI'],
  [0x00fe, 'GRE-OSI'],
  [0xabcd, 'CFM (old)'],
  [0x8902, 'CFM'],
  [0x893a, 'IEEE1905.1'],
  [0x88cc, 'LLDP'],
  [0x88ca, 'TIPC'],
  [0x0707, 'GeoNet (old)'],
  [0x8947, 'GeoNet'],
  [0x1111, 'CALM FAST'],
  [0x88a2, 'AoE'],
  [0x88f7, 'PTP'],
  [0xd28b, 'Arista Vendor Specific Protocol'],
]);

function ethertypeName(type: number): string {
  return ETHERTYPE_NAMES.get(type) ?? 'Unknown';
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}
function hex4(n: number): string {
  return n.toString(16).padStart(4, '0');
}

const IPPROTO_ICMP = 1;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPPROTO_IPIP = 4;
const IPPROTO_DCCP = 33;
const IPPROTO_ESP = 50;
const IPPROTO_ICMPV6 = 58;
const IPPROTO_NONE = 59;
const IPPROTO_SCTP = 132;

// TCP flags in tcpdump's print order (tcp_flag_values).
const TCP_FLAG_LETTERS: readonly [number, string][] = [
  [0x01, 'F'],
  [0x02, 'S'],
  [0x04, 'R'],
  [0x08, 'P'],
  [0x10, '.'],
  [0x20, 'U'],
  [0x40, 'E'],
  [0x80, 'W'],
];
const TH_FIN = 0x01;
const TH_SYN = 0x02;
const TH_RST = 0x04;
const TH_ACK = 0x10;
const TH_URG = 0x20;

const TCP_OPTION_NAMES = new Map<number, string>([
  [0, 'eol'],
  [1, 'nop'],
  [2, 'mss'],
  [3, 'wscale'],
  [4, 'sackOK'],
  [5, 'sack'],
  [6, 'echo'],
  [7, 'echoreply'],
  [8, 'TS'],
  [11, 'cc'],
  [12, 'ccnew'],
  [13, ''],
  [19, 'md5'],
  [20, 'scps'],
  [28, 'uto'],
  [29, 'tcp-ao'],
  [30, 'mptcp'],
  [34, 'tfo'],
  [254, 'exp'],
]);

const HTTP_PORT = 80;
const HTTP_PORT_ALT = 8080;
const VXLAN_PORT = 4789;
const OTV_PORT = 8472;

/** HTTP request methods tcpdump's http_print recognises (httpcmds in print-http.c). */
const HTTP_METHODS = new Set([
  'GET',
  'PUT',
  'COPY',
  'HEAD',
  'LOCK',
  'MOVE',
  'POLL',
  'POST',
  'BCOPY',
  'BMOVE',
  'MKCOL',
  'TRACE',
  'LABEL',
  'MERGE',
  'DELETE',
  'SEARCH',
  'UNLOCK',
  'REPORT',
  'UPDATE',
  'NOTIFY',
  'BDELETE',
  'CONNECT',
  'OPTIONS',
  'CHECKIN',
  'PROPFIND',
  'CHECKOUT',
  'CHECKOUT',
  'BPROPFIND',
  'BPROPPATCH',
  'PROPPATCH',
  'SUBSCRIBE',
  'MKACTIVITY',
  'MKWORKSPACE',
  'UNCHECKOUT',
  'VERSION-CONTROL',
  'BASELINE-CONTROL',
  'UNSUBSCRIBE',
  'POLL',
  'BMOVE',
]);

const ARP_OPERATIONS = new Map<number, string>([
  [1, 'Request'],
  [2, 'Reply'],
  [3, 'Reverse Request'],
  [4, 'Reverse Reply'],
  [8, 'Inverse Request'],
  [9, 'Inverse Reply'],
  [10, 'NACK Reply'],
]);

const ARP_HARDWARE_NAMES = new Map<number, string>([
  [1, 'Ethernet'],
  [2, 'Experimental Ethernet'],
  [3, 'AX.25'],
  [4, 'ProNET'],
  [5, 'Chaos'],
  [6, 'IEEE 802'],
  [7, 'ARCNet'],
  [15, 'Frame Relay'],
  [19, 'ATM'],
  [24, 'IEEE 1394'],
  [32, 'InfiniBand'],
]);

const SLL_PACKET_TYPES = new Map<number, string>([
  [0, 'In'],
  [1, 'B'],
  [2, 'M'],
  [3, 'P'],
  [4, 'Out'],
]);

const ICMP_UNREACH_TEXT: readonly ((dst: string) => string)[] = [
  (dst) => `net ${dst} unreachable`,
  (dst) => `host ${dst} unreachable`,
];
const ICMP_UNREACH_SUFFIX = new Map<number, (dst: string) => string>([
  [5, (dst) => `${dst} unreachable - source route failed`],
  [6, (dst) => `net ${dst} unreachable - unknown`],
  [7, (dst) => `host ${dst} unreachable - unknown`],
  [8, (dst) => `${dst} unreachable - source host isolated`],
  [9, (dst) => `net ${dst} unreachable - admin prohibited`],
  [10, (dst) => `host ${dst} unreachable - admin prohibited`],
  [11, (dst) => `net ${dst} unreachable - tos prohibited`],
  [12, (dst) => `host ${dst} unreachable - tos prohibited`],
  [13, (dst) => `host ${dst} unreachable - admin prohibited filter`],
  [14, (dst) => `host ${dst} unreachable - host precedence violation`],
  [15, (dst) => `host ${dst} unreachable - precedence cutoff`],
]);
const ICMP_TYPE_NAMES = new Map<number, string>([
  [0, 'echo reply'],
  [4, 'source quench'],
  [8, 'echo request'],
  [10, 'router solicitation'],
  [13, 'time stamp request'],
  [14, 'time stamp reply'],
  [15, 'information request'],
  [16, 'information reply'],
  [17, 'address mask request'],
]);

/** One frame's walk: the captured bytes, the current end of readable data, and the text so far. */
class Dissector {
  out = '';
  /** Where reads stop: the captured end, pulled in by IPv4's total length (tcpdump's snapend). */
  private snapEnd: number;
  /** The protocol named by a truncation marker, as tcpdump's ndo_protocol. */
  private protocol = 'ether';
  private readonly eflag: boolean;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly options: PrintOptions,
  ) {
    this.snapEnd = bytes.length;
    this.eflag = options.showLinkLayer === true;
  }

  printTrunc(): void {
    this.out += ` [|${this.protocol}]`;
  }

  private print(text: string): void {
    this.out += text;
  }

  /** True when [at, at + n) is readable. */
  private has(at: number, n: number): boolean {
    return at >= 0 && n >= 0 && at + n <= this.snapEnd;
  }
  private need(at: number, n: number): void {
    if (!this.has(at, n)) throw TRUNCATED;
  }
  private u8(at: number): number {
    this.need(at, 1);
    return this.bytes[at]!;
  }
  private u16(at: number): number {
    this.need(at, 2);
    return (this.bytes[at]! << 8) | this.bytes[at + 1]!;
  }
  private u24(at: number): number {
    this.need(at, 3);
    return (this.bytes[at]! << 16) | (this.bytes[at + 1]! << 8) | this.bytes[at + 2]!;
  }
  private u32(at: number): number {
    this.need(at, 4);
    return (
      ((this.bytes[at]! << 24) |
        (this.bytes[at + 1]! << 16) |
        (this.bytes[at + 2]! << 8) |
        this.bytes[at + 3]!) >>>
      0
    );
  }
  private ipv4At(at: number): string {
    return formatIpv4(this.u32(at));
  }
  private macAt(at: number): string {
    this.need(at, 6);
    return formatMac(this.u16(at) * 0x1_0000_0000 + this.u32(at + 2));
  }
  /** A link-layer address of any length as colon-separated hex (tcpdump's linkaddr_string). */
  private linkAddr(at: number, length: number): string {
    this.need(at, length);
    return Array.from(this.bytes.subarray(at, at + length), hex2).join(':');
  }
  /** Bytes readable from `at` to the current end. */
  private available(at: number): number {
    return Math.max(0, this.snapEnd - at);
  }

  /** tcpdump's default print of undecoded bytes: a hex and ASCII dump, 16 bytes a line. */
  private hexDump(at: number, length: number): void {
    const end = at + Math.min(length, this.available(at));
    for (let line = at; line < end; line += 16) {
      let hexPart = '';
      let ascii = '';
      const lineEnd = Math.min(line + 16, end);
      for (let i = line; i < lineEnd; i += 2) {
        hexPart +=
          i + 1 < lineEnd
            ? ` ${hex2(this.bytes[i]!)}${hex2(this.bytes[i + 1]!)}`
            : ` ${hex2(this.bytes[i]!)}`;
      }
      for (let i = line; i < lineEnd; i++) {
        const c = this.bytes[i]!;
        ascii += c > 0x20 && c <= 0x7e ? String.fromCharCode(c) : '.';
      }
      this.print(`\n\t0x${hex4(line - at)}: ${hexPart.padEnd(40, ' ')}  ${ascii}`);
    }
  }

  // --- link layers ------------------------------------------------------------------------

  /** Ethernet II with 802.1Q tags (print-ether.c's ether_print); `length` is the wire length. */
  ether(at: number, length: number, caplen: number): void {
    this.protocol = 'ether';
    if (length < caplen) {
      // Only an encapsulated frame can claim less than was captured (a VXLAN payload).
      this.print(`[length ${length} < caplen ${caplen}] (invalid)`);
      return;
    }
    const end = at + caplen;
    if (caplen < ETHER_HEADER_LEN || length < ETHER_HEADER_LEN) {
      this.printTrunc();
      return;
    }
    const dst = this.macAt(at);
    const src = this.macAt(at + 6);
    let type = this.u16(at + 12);
    let cursor = at + ETHER_HEADER_LEN;
    let remaining = length - ETHER_HEADER_LEN;
    let first = true;
    const typeText = (t: number) =>
      t <= MAX_ETHERNET_LENGTH_VAL ? '802.3' : `ethertype ${ethertypeName(t)} (0x${hex4(t)})`;
    const printType = (t: number) => {
      this.print(`${typeText(t)}${first ? `, length ${length}: ` : ', '}`);
      first = false;
    };
    if (this.eflag) this.print(`${src} > ${dst}, `);
    while (
      type === ETHERTYPE_8021Q ||
      type === ETHERTYPE_8021QINQ ||
      type === ETHERTYPE_8021Q9100 ||
      type === ETHERTYPE_8021Q9200
    ) {
      if (end - cursor < 4 || remaining < 4) {
        this.protocol = 'vlan';
        this.printTrunc();
        return;
      }
      if (this.eflag) printType(type);
      const tci = this.u16(cursor);
      type = this.u16(cursor + 2);
      if (this.eflag) this.print(`${vlanTciText(tci)}, `);
      cursor += 4;
      remaining -= 4;
    }
    if (this.eflag) printType(type);
    if (type <= MAX_ETHERNET_LENGTH_VAL || !this.ethertypePayload(type, cursor, remaining)) {
      // An 802.3 length field (LLC, not decoded here) or an EtherType not decoded: raw bytes.
      if (!this.eflag) this.print(`${src} > ${dst}, ${typeText(type)}, length ${length}: `);
      this.hexDump(cursor, end - cursor);
    }
  }

  /** Dispatches the payload of a known EtherType; false when the type is not decoded. */
  private ethertypePayload(type: number, at: number, length: number): boolean {
    switch (type) {
      case ETHERTYPE_IPV4:
        this.ipv4(at, length);
        return true;
      case ETHERTYPE_ARP:
        this.arp(at, length);
        return true;
      default:
        return false;
    }
  }

  /** Linux cooked capture v2 (print-sll.c's sll2_if_print and sll2_print). */
  sll2(at: number, length: number): void {
    this.protocol = 'sll2';
    const caplen = this.bytes.length - at;
    if (caplen < SLL2_HEADER_LEN) {
      this.printTrunc();
      return;
    }
    const protocol = this.u16(at);
    const ifIndex = this.u32(at + 4);
    const packetType = this.u8(at + 10);
    const addrLen = this.u8(at + 11);
    const name = this.options.ifName?.(ifIndex) ?? '?';
    this.print(`${name.padEnd(5, ' ')} `);
    this.print(`${(SLL_PACKET_TYPES.get(packetType) ?? '?').padEnd(3, ' ')} `);
    const header = (wireLength: number) => {
      this.print(`ifindex ${ifIndex} `);
      if (addrLen === 6) this.print(`${this.macAt(at + 12)} `);
      if (protocol === 0x0001) this.print('802.3');
      else if (protocol === 0x0004) this.print('802.2');
      else this.print(`ethertype ${ethertypeName(protocol)} (0x${hex4(protocol)})`);
      this.print(`, length ${wireLength}: `);
    };
    if (this.eflag) header(length);
    let type = protocol;
    let cursor = at + SLL2_HEADER_LEN;
    let remaining = length - SLL2_HEADER_LEN;
    while (type === ETHERTYPE_8021Q) {
      if (this.bytes.length - cursor < 4 || remaining < 4) {
        this.protocol = 'vlan';
        this.printTrunc();
        return;
      }
      const tci = this.u16(cursor);
      type = this.u16(cursor + 2);
      if (type <= MAX_ETHERNET_LENGTH_VAL) type = 0x0004;
      if (this.eflag) this.print(`${vlanTciText(tci)}, `);
      this.print(`ethertype ${ethertypeName(type)}, `);
      cursor += 4;
      remaining -= 4;
    }
    if (type <= MAX_ETHERNET_LENGTH_VAL || !this.ethertypePayload(type, cursor, remaining)) {
      if (!this.eflag && type > MAX_ETHERNET_LENGTH_VAL) header(remaining + SLL2_HEADER_LEN);
      this.hexDump(cursor, this.bytes.length - cursor);
    }
  }

  // --- ARP ------------------------------------------------------------------------------

  /** ARP (print-arp.c's arp_print) for any hardware and protocol lengths. */
  private arp(at: number, length: number): void {
    this.protocol = 'arp';
    this.need(at, 8);
    const hardware = this.u16(at);
    const proto = this.u16(at + 2);
    const hlen = this.u8(at + 4);
    const plen = this.u8(at + 5);
    const op = this.u16(at + 6);
    const sha = at + 8;
    const spa = sha + hlen;
    const tha = spa + plen;
    const tpa = tha + hlen;
    if (!this.has(tpa, plen)) {
      this.printTrunc();
      return;
    }
    if (!this.eflag) this.print('ARP, ');
    if ((proto !== ETHERTYPE_IPV4 && proto !== 0x1000) || plen !== 4 || hlen === 0) {
      const hwName = ARP_HARDWARE_NAMES.get(hardware) ?? `Unknown Hardware (${hardware})`;
      const protoName = ETHERTYPE_NAMES.get(proto) ?? `Unknown Protocol (0x${hex4(proto)})`;
      this.print(`${hwName} (len ${hlen}), ${protoName} (len ${plen}), length ${length}`);
      return;
    }
    this.print(`${ARP_OPERATIONS.get(op) ?? `Unknown (${op})`} `);
    switch (op) {
      case 1: {
        this.print(`who-has ${this.ipv4At(tpa)}`);
        let targetSet = false;
        for (let i = 0; i < hlen; i++) if (this.u8(tha + i) !== 0) targetSet = true;
        if (targetSet) this.print(` (${this.linkAddr(tha, hlen)})`);
        this.print(` tell ${this.ipv4At(spa)}`);
        break;
      }
      case 2:
        this.print(`${this.ipv4At(spa)} is-at ${this.linkAddr(sha, hlen)}`);
        break;
      case 3:
      case 8:
        this.print(`who-is ${this.linkAddr(tha, hlen)} tell ${this.linkAddr(sha, hlen)}`);
        break;
      case 4:
        this.print(`${this.linkAddr(tha, hlen)} at ${this.ipv4At(tpa)}`);
        break;
      case 9:
        this.print(`${this.linkAddr(sha, hlen)} at ${this.ipv4At(spa)}`);
        break;
      default:
        this.hexDump(at, this.available(at));
        return;
    }
    this.print(`, length ${length}`);
  }

  // --- IPv4 -----------------------------------------------------------------------------

  /** IPv4 (print-ip.c's ip_print); `length` is what the link layer says follows its header. */
  private ipv4(at: number, length: number): void {
    this.protocol = 'ip';
    const versionIhl = this.u8(at);
    const version = versionIhl >>> 4;
    if (version !== 4) {
      this.print(version === 6 ? 'IP6, wrong link-layer encapsulation' : `IP${version}`);
      this.print(' (invalid)');
      return;
    }
    if (!this.eflag) this.print('IP ');
    this.need(at, 20);
    const hlen = (versionIhl & 0x0f) * 4;
    if (hlen < 20) {
      this.print(`bad-hlen ${hlen}`);
      return;
    }
    const totalLen = this.u16(at + 2);
    if (totalLen > length) this.print(`truncated-ip - ${totalLen - length} bytes missing! `);
    if (totalLen < hlen) {
      this.print(`bad-len ${totalLen}`);
      return;
    }
    this.snapEnd = Math.min(this.snapEnd, at + totalLen);
    const payloadLen = totalLen - hlen;
    const flagsOffset = this.u16(at + 6);
    const proto = this.u8(at + 9);
    const src = this.ipv4At(at + 12);
    const dst = this.ipv4At(at + 16);
    if ((flagsOffset & 0x1fff) !== 0) {
      this.print(`${src} > ${dst}: ip-proto-${proto}`);
      return;
    }
    if (proto !== IPPROTO_TCP && proto !== IPPROTO_UDP && proto !== IPPROTO_SCTP && proto !== IPPROTO_DCCP) {
      this.print(`${src} > ${dst}: `);
    }
    if (!this.has(at, hlen)) {
      this.print(` [remaining caplen(${this.available(at)}) < header length(${hlen})]`);
      throw TRUNCATED;
    }
    const fragmented = (flagsOffset & 0x2000) !== 0;
    const payload = at + hlen;
    const ip: IpContext = { at, src: this.u32(at + 12), dst: this.u32(at + 16), proto };
    switch (proto) {
      case IPPROTO_TCP:
        this.tcp(payload, payloadLen, ip);
        return;
      case IPPROTO_UDP:
        this.udp(payload, payloadLen, ip, fragmented);
        return;
      case IPPROTO_ICMP:
        this.icmp(payload, payloadLen);
        return;
      case IPPROTO_IPIP:
        this.ipv4(payload, payloadLen);
        return;
      case IPPROTO_ESP:
        this.protocol = 'esp';
        this.print(`ESP(spi=0x${this.u32(payload).toString(16).padStart(8, '0')}`);
        this.print(`,seq=0x${this.u32(payload + 4).toString(16)}), length ${payloadLen}`);
        return;
      case IPPROTO_ICMPV6:
        this.print('[ICMPv6 requires IPv6] (invalid)');
        return;
      case IPPROTO_NONE:
        this.print('no next header');
        return;
      default:
        this.print(` ip-proto-${proto} ${payloadLen}`);
    }
  }

  // --- TCP ------------------------------------------------------------------------------

  /** TCP (print-tcp.c's tcp_print) without -v: flags, numbers, options, length, HTTP lines. */
  private tcp(at: number, length: number, ip: IpContext): void {
    this.protocol = 'tcp';
    const src = formatIpv4(ip.src);
    const dst = formatIpv4(ip.dst);
    if (!this.has(at + 2, 2)) {
      this.print(`${src} > ${dst}:`);
      throw TRUNCATED;
    }
    const srcPort = this.u16(at);
    const dstPort = this.u16(at + 2);
    this.print(`${src}.${srcPort} > ${dst}.${dstPort}: `);
    this.need(at, 20);
    let hlen = (this.u8(at + 12) >>> 4) * 4;
    if (hlen < 20) {
      this.print(` tcp ${(length - hlen) >>> 0} [bad hdr length ${hlen} - too short, < 20]`);
      return;
    }
    let seq = this.u32(at + 4);
    let ack = this.u32(at + 8);
    const win = this.u16(at + 14);
    const urp = this.u16(at + 18);
    const flags = this.u8(at + 13);
    let flagText = '';
    for (const [bit, letter] of TCP_FLAG_LETTERS) if ((flags & bit) !== 0) flagText += letter;
    this.print(`Flags [${flagText === '' ? 'none' : flagText}]`);
    let baseSeq = 0;
    let baseAck = 0;
    let reversed = false;
    if (this.options.absoluteSeq !== true && (flags & TH_ACK) !== 0) {
      const table = this.options.tcpSeq ?? new TcpSeqTable();
      const related = table.relate(ip.src, ip.dst, srcPort, dstPort, (flags & TH_SYN) !== 0, seq, ack);
      seq = related.seq;
      ack = related.ack;
      baseSeq = related.baseSeq;
      baseAck = related.baseAck;
      reversed = related.reversed;
    }
    if (hlen > length) {
      this.print(` [bad hdr length ${hlen} - too long, > ${length}]`);
      return;
    }
    const dataLen = length - hlen;
    if (dataLen > 0 || (flags & (TH_SYN | TH_FIN | TH_RST)) !== 0) {
      this.print(`, seq ${seq}`);
      if (dataLen > 0) this.print(`:${(seq + dataLen) >>> 0}`);
    }
    if ((flags & TH_ACK) !== 0) this.print(`, ack ${ack}`);
    this.print(`, win ${win}`);
    if ((flags & TH_URG) !== 0) this.print(`, urg ${urp}`);
    if (hlen > 20) {
      const ok = this.tcpOptions(at + 20, hlen - 20, { baseSeq, baseAck, reversed });
      if (!ok) return;
    }
    this.print(`, length ${dataLen}`);
    if (dataLen === 0) return;
    hlen = (this.u8(at + 12) >>> 4) * 4;
    if (!this.has(at, hlen)) {
      this.print(` [remaining caplen(${this.available(at)}) < header length(${hlen})]`);
      throw TRUNCATED;
    }
    const data = at + hlen;
    if (
      srcPort === HTTP_PORT ||
      dstPort === HTTP_PORT ||
      srcPort === HTTP_PORT_ALT ||
      dstPort === HTTP_PORT_ALT
    ) {
      this.print(': ');
      this.http(data, dataLen);
    }
  }

  /**
   * The options list, `, options [...]`. Returns false when tcpdump stops the line inside it
   * (`[bad opt]`, or a truncation it reports itself with a closing `>`).
   */
  private tcpOptions(
    start: number,
    optionsLen: number,
    seqBase: { baseSeq: number; baseAck: number; reversed: boolean },
  ): boolean {
    let hlen = optionsLen;
    let cp = start;
    let separator = '';
    this.print(', options [');
    const bad = (): false => {
      this.print('[bad opt]');
      if (separator !== '') this.print(']');
      return false;
    };
    const trunc = (): false => {
      this.printTrunc();
      if (separator !== '') this.print('>');
      return false;
    };
    while (hlen > 0) {
      this.print(separator);
      const opt = this.u8(cp);
      cp++;
      let len: number;
      if (opt === 0 || opt === 1) {
        len = 1;
      } else {
        len = this.u8(cp);
        cp++;
        if (len < 2 || len > hlen) return bad();
        hlen--;
      }
      hlen--;
      let datalen = 0;
      // tcpdump's LENCHECK: past the declared option area is a bad option, past the capture a truncation.
      const lencheck = (l: number): 'ok' | 'bad' | 'trunc' => {
        if (l > hlen) return 'bad';
        if (!this.has(cp, l)) return 'trunc';
        return 'ok';
      };
      this.print(TCP_OPTION_NAMES.get(opt) ?? `unknown-${opt}`);
      let check: 'ok' | 'bad' | 'trunc' = 'ok';
      switch (opt) {
        case 2: // mss
          datalen = 2;
          check = lencheck(datalen);
          if (check === 'ok') this.print(` ${this.u16(cp)}`);
          break;
        case 3: // wscale
          datalen = 1;
          check = lencheck(datalen);
          if (check === 'ok') this.print(` ${this.u8(cp)}`);
          break;
        case 5: // sack
          datalen = len - 2;
          if (datalen % 8 !== 0) {
            this.print(' invalid sack');
          } else {
            this.print(` ${datalen / 8} `);
            for (let i = 0; i < datalen && check === 'ok'; i += 8) {
              check = lencheck(i + 4);
              if (check !== 'ok') break;
              let s = this.u32(cp + i);
              check = lencheck(i + 8);
              if (check !== 'ok') break;
              let e = this.u32(cp + i + 4);
              const base = seqBase.reversed ? seqBase.baseSeq : seqBase.baseAck;
              s = (s - base) >>> 0;
              e = (e - base) >>> 0;
              this.print(`{${s}:${e}}`);
            }
          }
          break;
        case 6:
        case 7:
        case 11:
        case 12:
        case 13:
          datalen = 4;
          check = lencheck(datalen);
          if (check === 'ok') this.print(` ${this.u32(cp)}`);
          break;
        case 8: // timestamps
          datalen = 8;
          check = lencheck(datalen);
          if (check === 'ok') this.print(` val ${this.u32(cp)} ecr ${this.u32(cp + 4)}`);
          break;
        case 19: // md5 signature: tcpdump cannot check it without the secret
          datalen = 16;
          check = lencheck(datalen);
          if (check === 'ok') {
            this.print(" can't check - ");
            for (let i = 0; i < 16; i++) this.print(hex2(this.u8(cp + i)));
          }
          break;
        case 20: // scps
          datalen = 2;
          check = lencheck(datalen);
          if (check === 'ok') this.print(` cap ${hex2(this.u8(cp))} id ${this.u8(cp + 1)}`);
          break;
        case 29: // tcp-ao
          datalen = len - 2;
          if (datalen < 2) {
            this.print(' (invalid)');
          } else {
            check = lencheck(1);
            if (check !== 'ok') break;
            this.print(` keyid ${this.u8(cp)}`);
            check = lencheck(2);
            if (check !== 'ok') break;
            this.print(` rnextkeyid ${this.u8(cp + 1)}`);
            if (datalen > 2) {
              this.print(' mac 0x');
              for (let i = 2; i < datalen; i++) {
                check = lencheck(i + 1);
                if (check !== 'ok') break;
                this.print(hex2(this.u8(cp + i)));
              }
            }
          }
          break;
        case 0:
        case 1:
        case 4:
          break;
        case 28: {
          // uto
          datalen = 2;
          check = lencheck(datalen);
          if (check !== 'ok') break;
          const raw = this.u16(cp);
          this.print(` 0x${raw.toString(16)} ${(raw & 1) !== 0 ? (raw >>> 1) * 60 : raw >>> 1}`);
          break;
        }
        case 34: // tfo
          datalen = len - 2;
          check = lencheck(datalen);
          if (check !== 'ok') break;
          this.print(' ');
          this.fastOpen(cp, datalen, false);
          break;
        case 254: {
          datalen = len - 2;
          check = lencheck(datalen);
          if (check !== 'ok') break;
          if (datalen < 2) {
            check = 'bad';
            break;
          }
          const magic = this.u16(cp);
          this.print('-');
          if (magic === 0xf989) this.fastOpen(cp + 2, datalen - 2, true);
          else this.print(hex4(magic));
          break;
        }
        default:
          datalen = len - 2;
          if (datalen > 0) this.print(' 0x');
          for (let i = 0; i < datalen; i++) {
            check = lencheck(i + 1);
            if (check !== 'ok') break;
            this.print(hex2(this.u8(cp + i)));
          }
          break;
      }
      if (check === 'bad') return bad();
      if (check === 'trunc') return trunc();
      cp += datalen;
      hlen -= datalen;
      datalen += opt === 0 || opt === 1 ? 1 : 2;
      if (datalen !== len) this.print(`[len ${len}]`);
      separator = ',';
      if (opt === 0) break;
    }
    this.print(']');
    return true;
  }

  private fastOpen(at: number, datalen: number, experimental: boolean): void {
    if (experimental) this.print('tfo');
    if (datalen === 0) {
      this.print(' cookiereq');
    } else if (datalen % 2 !== 0 || datalen < 4 || datalen > 16) {
      this.print(' (invalid)');
    } else {
      this.print(' cookie ');
      for (let i = 0; i < datalen; i++) this.print(hex2(this.u8(at + i)));
    }
  }

  /** HTTP (util-print.c's txtproto_print without -v): `HTTP`, then the request or status line. */
  private http(at: number, length: number): void {
    this.protocol = 'http';
    let printIt = false;
    let token = this.fetchToken(at, 0, length);
    if (token !== undefined) {
      if (HTTP_METHODS.has(token.text.toUpperCase())) printIt = true;
      // Responses carry the status code as the second token ("HTTP/1.1 200 OK").
      token = this.fetchToken(at, token.next, length);
      if (token !== undefined && /^[0-9]{3}$/.test(token.text)) printIt = true;
    }
    this.print('HTTP');
    if (printIt) this.textLine(at, length);
  }

  /** One whitespace-delimited printable token at `idx`, and where the next one starts. */
  private fetchToken(at: number, start: number, length: number): { text: string; next: number } | undefined {
    let idx = start;
    let text = '';
    for (; idx < length; idx++) {
      if (!this.has(at + idx, 1)) return undefined;
      const c = this.bytes[at + idx]!;
      if (c > 0x7f) return undefined;
      if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) break;
      if (c < 0x20 || c > 0x7e) return undefined;
      if (text.length + 2 > 128) return undefined;
      text += String.fromCharCode(c);
    }
    if (text === '') return undefined;
    for (; idx < length; idx++) {
      if (!this.has(at + idx, 1)) break;
      const c = this.bytes[at + idx]!;
      if (c === 0x0d || c === 0x0a) break;
      if (c < 0x20 || c > 0x7e) break;
      if (c !== 0x20 && c !== 0x09) break;
    }
    return { text, next: idx };
  }

  /** The first text line after `: `, or nothing when it holds binary data; no line end yet is a truncation. */
  private textLine(at: number, length: number): void {
    let idx = 0;
    while (idx < length) {
      const c = this.u8(at + idx);
      if (c === 0x0a) break;
      if (c === 0x0d) {
        if (idx + 1 >= length) return;
        if (this.u8(at + idx + 1) === 0x0a) break;
        return;
      }
      if ((c < 0x20 || c > 0x7e) && c !== 0x09) return;
      idx++;
    }
    let line = '';
    for (let i = at; i < at + idx; i++) line += String.fromCharCode(this.bytes[i]!);
    this.print(`: ${line}`);
    if (idx >= length) this.printTrunc();
  }

  // --- UDP and tunnels --------------------------------------------------------------------

  /** UDP (print-udp.c's udp_print): addresses and ports, then VXLAN/OTV or `UDP, length N`. */
  private udp(at: number, length: number, ip: IpContext, fragmented: boolean): void {
    this.protocol = 'udp';
    const src = formatIpv4(ip.src);
    const dst = formatIpv4(ip.dst);
    if (!this.has(at + 2, 2)) {
      this.print(`${src} > ${dst}: `);
      throw TRUNCATED;
    }
    const srcPort = this.u16(at);
    const dstPort = this.u16(at + 2);
    const addresses = `${src}.${srcPort} > ${dst}.${dstPort}: `;
    if (length < 8) {
      this.print(`${addresses}truncated-udp ${length}`);
      return;
    }
    if (!this.has(at + 4, 2)) {
      this.print(addresses);
      throw TRUNCATED;
    }
    let ulen = this.u16(at + 4);
    if (ulen < 8) {
      this.print(`${addresses}truncated-udplength ${ulen}`);
      return;
    }
    ulen -= 8;
    let payloadLen = length - 8;
    if (ulen < payloadLen) payloadLen = ulen;
    const data = at + 8;
    if (data > this.snapEnd) {
      this.print(addresses);
      throw TRUNCATED;
    }
    this.print(addresses);
    if (srcPort === VXLAN_PORT || dstPort === VXLAN_PORT) {
      this.vxlan(data, payloadLen);
    } else if (dstPort === OTV_PORT || srcPort === OTV_PORT) {
      this.otv(data, payloadLen);
    } else if (ulen > payloadLen && !fragmented) {
      this.print(`UDP, bad length ${ulen} > ${payloadLen}`);
    } else {
      this.print(`UDP, length ${ulen}`);
    }
  }

  /** VXLAN (print-vxlan.c): flags and VNI, a line break, then the inner Ethernet frame. */
  private vxlan(at: number, length: number): void {
    this.protocol = 'vxlan';
    this.print('VXLAN');
    if (length < 8) {
      this.print(' (invalid)');
      return;
    }
    const flags = this.u8(at);
    this.print(`, flags [${(flags & 0x08) !== 0 ? 'I' : 'invalid'}] (0x${hex2(flags)}), `);
    this.print(`vni ${this.u24(at + 4)}\n`);
    this.need(at + 7, 1);
    this.innerEther(at + 8, length - 8);
  }

  /** OTV (print-otv.c), which is what tcpdump calls UDP port 8472 (Linux's VXLAN default). */
  private otv(at: number, length: number): void {
    this.protocol = 'otv';
    this.print('OTV, ');
    if (length < 8) {
      this.print(`[length ${length} < 8] (invalid)`);
      return;
    }
    const flags = this.u8(at);
    this.print(`flags [${(flags & 0x08) !== 0 ? 'I' : '.'}] (0x${hex2(flags)}), `);
    this.print(`overlay ${this.u24(at + 1)}, `);
    this.print(`instance ${this.u24(at + 4)}\n`);
    this.u8(at + 7);
    this.innerEther(at + 8, length - 8);
  }

  private innerEther(at: number, length: number): void {
    this.ether(at, length, this.available(at));
  }

  // --- ICMP -----------------------------------------------------------------------------

  /** ICMP (print-icmp.c's icmp_print without -v): the type's summary and the ICMP length. */
  private icmp(at: number, length: number): void {
    this.protocol = 'icmp';
    const type = this.u8(at);
    const code = this.u8(at + 1);
    const quotedDst = () => this.ipv4At(at + 8 + 16);
    let text: string;
    switch (type) {
      case 0:
      case 8:
        text = `echo ${type === 8 ? 'request' : 'reply'}, id ${this.u16(at + 4)}, seq ${this.u16(at + 6)}`;
        break;
      case 3:
        text = this.icmpUnreachable(at, code, quotedDst);
        break;
      case 5: {
        const gateway = () => this.ipv4At(at + 4);
        switch (code) {
          case 0:
            text = `redirect ${quotedDst()} to net ${gateway()}`;
            break;
          case 1:
            text = `redirect ${quotedDst()} to host ${gateway()}`;
            break;
          case 2:
            text = `redirect-tos ${quotedDst()} to net ${gateway()}`;
            break;
          case 3:
            text = `redirect-tos ${quotedDst()} to host ${gateway()}`;
            break;
          default:
            text = `redirect-#${code} ${quotedDst()} to ${gateway()}`;
        }
        break;
      }
      case 9:
        text = this.icmpRouterAdvert(at);
        break;
      case 11:
        this.need(at + 8 + 16, 4);
        text =
          code === 0
            ? 'time exceeded in-transit'
            : code === 1
              ? 'ip reassembly time exceeded'
              : `time exceeded-#${code}`;
        break;
      case 12:
        text =
          code !== 0 ? `parameter problem - code ${code}` : `parameter problem - octet ${this.u8(at + 4)}`;
        break;
      case 18:
        text = `address mask is 0x${this.u32(at + 8)
          .toString(16)
          .padStart(8, '0')}`;
        break;
      case 13:
        text = `time stamp query id ${this.u16(at + 4)} seq ${this.u16(at + 6)}`;
        break;
      case 14:
        this.need(at + 16, 4);
        text =
          `time stamp reply id ${this.u16(at + 4)} seq ${this.u16(at + 6)}: org ${icmpTime(this.u32(at + 8))}` +
          `, recv ${icmpTime(this.u32(at + 12))}, xmit ${icmpTime(this.u32(at + 16))}`;
        break;
      default:
        text = ICMP_TYPE_NAMES.get(type) ?? `type-#${type}`;
    }
    this.print(`ICMP ${text}, length ${length}`);
  }

  private icmpUnreachable(at: number, code: number, quotedDst: () => string): string {
    const quoted = at + 8;
    switch (code) {
      case 0:
      case 1:
        return ICMP_UNREACH_TEXT[code]!(quotedDst());
      case 2:
        return `${quotedDst()} protocol ${this.u8(quoted + 9)} unreachable`;
      case 3: {
        this.need(quoted + 9, 1);
        const hlen = (this.u8(quoted) & 0x0f) * 4;
        const port = this.u16(quoted + hlen + 2);
        const proto = this.u8(quoted + 9);
        if (proto === IPPROTO_TCP) return `${quotedDst()} tcp port ${port} unreachable`;
        if (proto === IPPROTO_UDP) return `${quotedDst()} udp port ${port} unreachable`;
        return `${quotedDst()} protocol ${proto} port ${port} unreachable`;
      }
      case 4: {
        const mtu = this.u16(at + 6);
        return mtu !== 0
          ? `${quotedDst()} unreachable - need to frag (mtu ${mtu})`
          : `${quotedDst()} unreachable - need to frag`;
      }
      default: {
        const describe = ICMP_UNREACH_SUFFIX.get(code);
        return describe !== undefined ? describe(quotedDst()) : `${quotedDst()} unreachable - #${code}`;
      }
    }
  }

  private icmpRouterAdvert(at: number): string {
    this.need(at + 4, 4);
    let text = 'router advertisement lifetime ';
    const lifetime = this.u16(at + 6);
    const two = (n: number) => String(n).padStart(2, '0');
    if (lifetime < 60) text += `${lifetime}`;
    else if (lifetime < 3600) text += `${Math.floor(lifetime / 60)}:${two(lifetime % 60)}`;
    else
      text += `${Math.floor(lifetime / 3600)}:${two(Math.floor((lifetime % 3600) / 60))}:${two(lifetime % 60)}`;
    let count = this.u8(at + 4);
    text += ` ${count}:`;
    const size = this.u8(at + 5);
    if (size !== 2) return `${text} [size ${size}]`;
    let entry = at + 8;
    while (count > 0) {
      this.need(entry, 8);
      text += ` {${this.ipv4At(entry)} ${this.u32(entry + 4)}}`;
      entry += 8;
      count--;
    }
    return text;
  }
}

interface IpContext {
  readonly at: number;
  readonly src: number;
  readonly dst: number;
  readonly proto: number;
}

/** An 802.1Q tag as tcpdump prints it: `vlan 100, p 5` and `, DEI` when set. */
function vlanTciText(tci: number): string {
  return `vlan ${tci & 0x0fff}, p ${tci >>> 13}${(tci & 0x1000) !== 0 ? ', DEI' : ''}`;
}

/** Milliseconds since midnight UTC as `HH:MM:SS.mmm` (ICMP timestamp messages). */
function icmpTime(ms: number): string {
  const msec = ms % 1000;
  let sec = Math.floor(ms / 1000);
  let min = Math.floor(sec / 60);
  sec -= min * 60;
  const hrs = Math.floor(min / 60);
  min -= hrs * 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(hrs)}:${two(min)}:${two(sec)}.${String(msec).padStart(3, '0')}`;
}
