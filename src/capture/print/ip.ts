// IPv4 (print-ip.c's ip_print) and the dispatch to the transport printers; with -v the header summary, its options and checksum.

import { icmpPrint } from './icmp.ts';
import {
  IPPROTO_DCCP,
  IPPROTO_ESP,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_IPIP,
  IPPROTO_NONE,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
} from './ipproto.ts';
import { type Dissector, type IpContext, inCksum, inCksumShouldbe, TRUNCATED } from './netdissect.ts';
import { tcpPrint } from './tcp.ts';
import { udpPrint } from './udp.ts';

/** IPv4 (print-ip.c's ip_print); `length` is what the link layer says follows its header. */
export function ipPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'ip';
  const versionIhl = d.u8(at);
  const version = versionIhl >>> 4;
  if (version !== 4) {
    d.print(version === 6 ? 'IP6, wrong link-layer encapsulation' : `IP${version}`);
    d.print(' (invalid)');
    return;
  }
  if (!d.eflag) d.print('IP ');
  // A header cut short ends this line only (ip_print's `trunc:`), not the walk: -x still leaves out the link header.
  if (!d.has(at, 20)) {
    d.printTrunc();
    return;
  }
  const hlen = (versionIhl & 0x0f) * 4;
  if (hlen < 20) {
    d.print(`bad-hlen ${hlen}`);
    return;
  }
  const totalLen = d.u16(at + 2);
  if (totalLen > length) d.print(`truncated-ip - ${totalLen - length} bytes missing! `);
  if (totalLen < hlen) {
    d.print(`bad-len ${totalLen}`);
    return;
  }
  d.snapEnd = Math.min(d.snapEnd, at + totalLen);
  const payloadLen = totalLen - hlen;
  const flagsOffset = d.u16(at + 6);
  const proto = d.u8(at + 9);
  if (d.vflag > 0 && !ipVerbosePrint(d, at, hlen, flagsOffset, proto, totalLen)) {
    d.print(`${d.ipv4At(at + 12)} > ${d.ipv4At(at + 16)}: `);
    d.printTrunc();
    return;
  }
  const src = d.ipv4At(at + 12);
  const dst = d.ipv4At(at + 16);
  if ((flagsOffset & 0x1fff) !== 0) {
    d.print(`${src} > ${dst}: ip-proto-${proto}`);
    return;
  }
  if (proto !== IPPROTO_TCP && proto !== IPPROTO_UDP && proto !== IPPROTO_SCTP && proto !== IPPROTO_DCCP) {
    d.print(`${src} > ${dst}: `);
  }
  if (!d.has(at, hlen)) {
    d.print(` [remaining caplen(${d.available(at)}) < header length(${hlen})]`);
    throw TRUNCATED;
  }
  const fragmented = (flagsOffset & 0x2000) !== 0;
  const payload = at + hlen;
  const ip: IpContext = { at, src: d.u32(at + 12), dst: d.u32(at + 16), proto, fragmented };
  switch (proto) {
    case IPPROTO_TCP:
      tcpPrint(d, payload, payloadLen, ip);
      return;
    case IPPROTO_UDP:
      udpPrint(d, payload, payloadLen, ip);
      return;
    case IPPROTO_ICMP:
      icmpPrint(d, payload, payloadLen, fragmented);
      return;
    case IPPROTO_IPIP:
      ipPrint(d, payload, payloadLen);
      return;
    case IPPROTO_ESP:
      d.protocol = 'esp';
      d.print(`ESP(spi=0x${d.u32(payload).toString(16).padStart(8, '0')}`);
      d.print(`,seq=0x${d.u32(payload + 4).toString(16)}), length ${payloadLen}`);
      return;
    case IPPROTO_ICMPV6:
      d.print('[ICMPv6 requires IPv6] (invalid)');
      return;
    case IPPROTO_NONE:
      d.print('no next header');
      return;
    default:
      d.print(` ip-proto-${proto} ${payloadLen}`);
  }
}

/** Protocol names of `-v`'s `proto NAME (N)`, as tcpdump 4.99.3's ipproto_values (read from the tool). */
const IPPROTO_NAMES = new Map<number, string>([
  [0, 'Options'],
  [1, 'ICMP'],
  [2, 'IGMP'],
  [4, 'IPIP'],
  [6, 'TCP'],
  [8, 'EGP'],
  [9, 'IGRP'],
  [17, 'UDP'],
  [33, 'DCCP'],
  [41, 'IPv6'],
  [43, 'Routing'],
  [44, 'Fragment'],
  [46, 'RSVP'],
  [47, 'GRE'],
  [50, 'ESP'],
  [51, 'AH'],
  [55, 'Mobile IP'],
  [58, 'ICMPv6'],
  [88, 'EIGRP'],
  [89, 'OSPF'],
  [103, 'PIM'],
  [108, 'Compressed IP'],
  [112, 'VRRP'],
  [113, 'PGM'],
  [132, 'SCTP'],
  [135, 'Mobility'],
  [143, 'Ethernet'],
]);

const IP_RES = 0x8000;
const IP_DF = 0x4000;
const IP_MF = 0x2000;

/**
 * `-v`'s header summary (ip_print's ndo_vflag block): `(tos 0x0, ttl 64, id 1, offset 0,
 * flags [DF], proto TCP (6), length 60[, options (...)][, bad cksum ...])` and the line break.
 * False when an option was cut short (the caller prints the addresses and ` [|ip]`).
 */
function ipVerbosePrint(
  d: Dissector,
  at: number,
  hlen: number,
  flagsOffset: number,
  proto: number,
  totalLen: number,
): boolean {
  const tos = d.u8(at + 1);
  d.print(`(tos 0x${tos.toString(16)}`);
  const ecn = tos & 0x03;
  if (ecn === 1) d.print(',ECT(1)');
  else if (ecn === 2) d.print(',ECT(0)');
  else if (ecn === 3) d.print(',CE');
  const ttl = d.u8(at + 8);
  if (ttl >= 1) d.print(`, ttl ${ttl}`);
  const flags: string[] = [];
  if ((flagsOffset & IP_MF) !== 0) flags.push('+');
  if ((flagsOffset & IP_DF) !== 0) flags.push('DF');
  if ((flagsOffset & IP_RES) !== 0) flags.push('rsvd');
  d.print(`, id ${d.u16(at + 4)}, offset ${(flagsOffset & 0x1fff) * 8}`);
  d.print(`, flags [${flags.length === 0 ? 'none' : flags.join(', ')}]`);
  d.print(`, proto ${IPPROTO_NAMES.get(proto) ?? 'unknown'} (${proto}), length ${totalLen}`);
  let truncated = false;
  if (hlen > 20) {
    // An option's type or length byte past the capture ends the whole line here (GET_
    // macros); an option cut short is tcpdump's `[truncated-option]` and ends it after `)`.
    d.print(', options (');
    if (!ipOptionsPrint(d, at + 20, hlen - 20)) {
      d.print(' [truncated-option]');
      truncated = true;
    }
    d.print(')');
  }
  if (!d.kflag && at + hlen <= d.snapEnd) {
    const sum = inCksum(d.bytes, at, at + hlen);
    if (sum !== 0) {
      const field = d.u16(at + 10);
      d.print(`, bad cksum ${field.toString(16)} (->${inCksumShouldbe(field, sum).toString(16)})!`);
    }
  }
  d.print(')\n    ');
  return !truncated;
}

const IP_OPTION_NAMES = new Map<number, string>([
  [0, 'EOL'],
  [1, 'NOP'],
  [68, 'timestamp'],
  [130, 'security'],
  [7, 'RR'],
  [137, 'SSRR'],
  [131, 'LSRR'],
  [148, 'RA'],
  [82, 'traceroute'],
]);

/** ip_optprint: the options, comma-separated; false when one is cut short by the capture. */
function ipOptionsPrint(d: Dissector, start: number, length: number): boolean {
  let cp = start;
  let left = length;
  let separator = '';
  while (left > 0) {
    d.print(separator);
    separator = ',';
    const code = d.u8(cp);
    d.print(IP_OPTION_NAMES.get(code) ?? `unknown ${code}`);
    let optionLen: number;
    if (code === 0 || code === 1) {
      optionLen = 1;
    } else {
      optionLen = d.u8(cp + 1);
      if (optionLen < 2) {
        d.print(` [bad length ${optionLen}]`);
        return true;
      }
    }
    if (optionLen > left) {
      d.print(` [bad length ${optionLen}]`);
      return true;
    }
    if (!d.has(cp, optionLen)) return false;
    switch (code) {
      case 0:
        return true;
      case 68:
        ipTimestampPrint(d, cp, optionLen);
        break;
      case 7:
      case 131:
      case 137:
        ipRoutePrint(d, cp, optionLen);
        break;
      case 148:
        if (optionLen < 4) {
          d.print(` [bad length ${optionLen}]`);
          break;
        }
        if (d.u16(cp + 2) !== 0) d.print(` value ${d.u16(cp + 2)}`);
        break;
      default:
        break;
    }
    cp += optionLen;
    left -= optionLen;
  }
  return true;
}

/** ip_printroute: the recorded route of RR, LSRR and SSRR. */
function ipRoutePrint(d: Dissector, cp: number, length: number): void {
  if (length < 3) {
    d.print(` [bad length ${length}]`);
    return;
  }
  if (((length + 1) & 3) !== 0) d.print(` [bad length ${length}]`);
  const pointer = d.u8(cp + 2) - 1;
  if (pointer < 3 || ((pointer + 1) & 3) !== 0 || pointer > length + 1) d.print(` [bad ptr ${d.u8(cp + 2)}]`);
  for (let len = 3; len < length; len += 4) {
    d.print(` ${d.ipv4At(cp + len)}`);
    if (pointer > len) d.print(',');
  }
}

/** ip_printts: the timestamp option, ` TS{TSONLY 1@ 2@}`. */
function ipTimestampPrint(d: Dissector, cp: number, length: number): void {
  if (length < 4) {
    d.print(`[bad length ${length}]`);
    return;
  }
  d.print(' TS{');
  const kind = d.u8(cp + 3) & 0x0f;
  const hoplen = kind !== 0 ? 8 : 4;
  if (((length - 4) & (hoplen - 1)) !== 0) d.print(`[bad length ${length}]`);
  const pointer = d.u8(cp + 2) - 1;
  let len = 0;
  if (pointer < 4 || ((pointer - 4) & (hoplen - 1)) !== 0 || pointer > length + 1)
    d.print(`[bad ptr ${d.u8(cp + 2)}]`);
  let known = true;
  if (kind === 0) d.print('TSONLY');
  else if (kind === 1) d.print('TS+ADDR');
  else if (kind === 3) d.print('PRESPEC');
  else {
    d.print(`[bad ts type ${kind}]`);
    known = false;
  }
  if (known) {
    let type = ' ';
    for (len = 4; len < length; len += hoplen) {
      if (pointer === len) type = ' ^ ';
      d.need(cp + len, hoplen);
      d.print(`${type}${d.u32(cp + len + hoplen - 4)}@${hoplen !== 8 ? '' : d.ipv4At(cp + len)}`);
      type = ' ';
    }
  }
  d.print(pointer === len ? ' ^ ' : '');
  const overflow = d.u8(cp + 3) >>> 4;
  d.print(overflow !== 0 ? ` [${overflow} hops not recorded]} ` : '}');
}
