// Splits a captured frame into named fields with src/wire's views, so two frames compare layer by layer; fields that
// legitimately differ between the kernel and packetlab are kept but marked with the reason they are not compared.
//
// Layers: Ethernet, ARP, IPv4 (options as bytes), ICMP (echo, and the datagram an error
// quotes, recursively), UDP (VXLAN on 8472/4789 with its inner frame, recursively) and TCP
// (options as bytes). Anything else is compared as bytes. Checksums are compared as
// "valid"/"bad" because the fields they cover (IP ID, ping's identifier) may differ.

import { formatIpv4, formatMac } from '../wire/address.ts';
import { ArpView } from '../wire/arp.ts';
import { readU16, readU32 } from '../wire/bytes.ts';
import { checksumIsValid, foldSum, pseudoHeaderSum, sumWords } from '../wire/checksum.ts';
import { ETHERTYPE_ARP, ETHERTYPE_IPV4, EthernetView } from '../wire/ethernet.ts';
import { Ipv4View } from '../wire/ipv4.ts';
import { TcpView } from '../wire/tcp.ts';
import { UdpView } from '../wire/udp.ts';
import { VXLAN_HEADER_LEN, VxlanView } from '../wire/vxlan.ts';

export interface Field {
  /** Layer-qualified name: `eth.src`, `ipv4.ttl`, `icmp.quoted.ipv4.ttl`, `vxlan.inner.eth.dst`. */
  readonly name: string;
  readonly value: string;
  /** Why this field is not compared (the value is still shown). */
  readonly ignored?: string;
}

export const IGNORED = {
  ipId: 'IP identification (per-destination counter vs the kernel hash)',
  pingIdent: "ping's echo identifier (its pid on the kernel side)",
  pingTime: "ping's timestamp in the echo data",
  quotedIcmpChecksum: "covers ping's identifier and timestamp",
  fragmentChecksum:
    "an ICMP checksum in a first fragment covers the whole datagram, ping's identifier and timestamp included",
  vxlanSrcPort: "VXLAN outer source port (udp_flow_src_port's flow hash and secret)",
  offload:
    'checksum left to the device (CHECKSUM_PARTIAL on a veth): the field holds the pseudo-header sum, what a NIC would complete',
  tcpSeq: 'TCP initial sequence number',
  tcpSeqAbsolute: 'absolute TCP sequence number (its place in a sequence space is compared)',
  tcpTimestamp: "TCP timestamp (the sender's clock plus a random per-connection offset)",
  httpDate:
    "an HTTP response's Date value (the kernel side's wall clock, packetlab's virtual epoch); the payload compares with it blanked",
} as const;

/** `\r\nDate: ` then an IMF-fixdate (always 29 characters: `Tue, 01 Dec 2026 14:30:00 GMT`) then `\r\n`. */
const HTTP_DATE_FIELD = /\r\nDate: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n/;
const HTTP_DATE_AT = '\r\nDate: '.length;
const HTTP_DATE_LEN = 29;

/**
 * A TCP payload with the Date field of an HTTP response head (one starting `HTTP/1.`) blanked to `D`s, and the
 * date it held; other payloads come back unchanged. Both sides' dates have the same length, so sequence numbers,
 * lengths and segment boundaries still compare.
 */
function blankHttpDate(payload: Uint8Array): { payload: Uint8Array; date: string | undefined } {
  if (payload.length < 8 || new TextDecoder('latin1').decode(payload.subarray(0, 7)) !== 'HTTP/1.')
    return { payload, date: undefined };
  const text = new TextDecoder('latin1').decode(payload);
  const head = text.indexOf('\r\n\r\n');
  const match = HTTP_DATE_FIELD.exec(head < 0 ? text : text.slice(0, head + 2));
  if (match === null) return { payload, date: undefined };
  const at = match.index + HTTP_DATE_AT;
  const blanked = payload.slice();
  blanked.fill(0x44, at, at + HTTP_DATE_LEN);
  return { payload: blanked, date: text.slice(at, at + HTTP_DATE_LEN) };
}

const VXLAN_PORTS = new Set([8472, 4789]);

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/**
 * TCP sequence numbers by sequence space: every SYN in a capture starts one (its initial
 * sequence number, random on both sides), numbered in order of appearance; a sequence or
 * acknowledgement number within 64 KiB after a known ISN reads `I2+11`, anything else stays
 * absolute. So random ISNs compare equal, a reset answering a SYN-ACK from a flow the capture
 * saw only half of still compares, and crafted numbers compare as they are.
 */
export class TcpSequenceSpaces {
  private readonly isns: number[] = [];

  /** Registers a SYN's sequence number as a new space. */
  sawSyn(seq: number): void {
    if (!this.isns.includes(seq)) this.isns.push(seq);
  }

  /** `I<k>+<offset>` when `value` lies in the first 64 KiB of a known space, else the number. */
  relative(value: number): string {
    for (let k = 0; k < this.isns.length; k++) {
      const offset = (value - this.isns[k]!) >>> 0;
      if (offset < 0x10000) return `I${k + 1}+${offset}`;
    }
    return String(value);
  }
}

class Fields {
  readonly list: Field[] = [];
  constructor(readonly flows: TcpSequenceSpaces) {}
  add(name: string, value: string | number | boolean, ignored?: string): void {
    this.list.push({ name, value: String(value), ...(ignored !== undefined ? { ignored } : {}) });
  }
}

/** The fields of an Ethernet frame (link type 1); pass one TcpSequenceSpaces per capture for relative TCP numbers. */
export function dissectFrame(frame: Uint8Array, flows = new TcpSequenceSpaces()): Field[] {
  const out = new Fields(flows);
  ethernet(out, 'eth', frame, false);
  return out.list;
}

function ethernet(out: Fields, prefix: string, bytes: Uint8Array, insideVxlan: boolean): void {
  const eth = EthernetView.checked(bytes);
  if (!(eth instanceof EthernetView)) {
    out.add(`${prefix}.error`, eth.defect);
    out.add(`${prefix}.bytes`, hex(bytes));
    return;
  }
  out.add(`${prefix}.dst`, formatMac(eth.dstAddr));
  out.add(`${prefix}.src`, formatMac(eth.srcAddr));
  out.add(`${prefix}.type`, `0x${eth.ethertype.toString(16).padStart(4, '0')}`);
  const payload = bytes.subarray(eth.headerLen);
  const base = prefix.slice(0, -'eth'.length);
  let used = payload.length;
  if (eth.ethertype === ETHERTYPE_ARP) used = arp(out, `${base}arp`, payload);
  else if (eth.ethertype === ETHERTYPE_IPV4) used = ipv4(out, `${base}ipv4`, payload, insideVxlan);
  else out.add(`${prefix}.payload`, hex(payload));
  if (used < payload.length) out.add(`${prefix}.padding`, hex(payload.subarray(used)));
  out.add(`${prefix}.length`, bytes.length);
}

function arp(out: Fields, prefix: string, bytes: Uint8Array): number {
  const view = ArpView.checked(bytes);
  if (!(view instanceof ArpView)) {
    out.add(`${prefix}.error`, view.defect);
    out.add(`${prefix}.bytes`, hex(bytes));
    return bytes.length;
  }
  out.add(`${prefix}.htype`, view.htype);
  out.add(`${prefix}.ptype`, view.ptype);
  out.add(`${prefix}.op`, view.operation === 1 ? 'request' : view.operation === 2 ? 'reply' : view.operation);
  out.add(`${prefix}.sender`, `${formatMac(view.senderMac)} ${formatIpv4(view.senderIp)}`);
  out.add(`${prefix}.target`, `${formatMac(view.targetMac)} ${formatIpv4(view.targetIp)}`);
  return 28;
}

/** Returns how many bytes the datagram declared (the rest is link-layer padding). */
function ipv4(out: Fields, prefix: string, bytes: Uint8Array, insideVxlan: boolean): number {
  const ip = Ipv4View.checked(bytes);
  if (!(ip instanceof Ipv4View)) {
    out.add(`${prefix}.error`, ip.defect);
    out.add(`${prefix}.bytes`, hex(bytes));
    return bytes.length;
  }
  ipv4Header(out, prefix, ip);
  const payload = bytes.subarray(ip.headerLen, ip.totalLen);
  if (ip.fragmentOffset === 0 && ip.moreFragments && ip.protocol === 1 && payload.length >= 24)
    echoFirstFragment(out, `${prefix}.fragment.icmp`, payload);
  else if (ip.fragmentOffset !== 0 || ip.moreFragments) out.add(`${prefix}.fragment`, hex(payload));
  else transport(out, prefix.slice(0, -'ipv4'.length), ip, payload, insideVxlan, false);
  return ip.totalLen;
}

function ipv4Header(out: Fields, prefix: string, ip: Ipv4View): void {
  out.add(`${prefix}.header`, `v${ip.version} hl ${ip.headerLen}`);
  out.add(`${prefix}.dscp`, ip.dscp);
  out.add(`${prefix}.ecn`, ip.ecn);
  out.add(`${prefix}.totalLen`, ip.totalLen);
  out.add(`${prefix}.id`, ip.ident, IGNORED.ipId);
  out.add(
    `${prefix}.flags`,
    `${ip.reservedFlag ? 'evil ' : ''}${ip.dontFragment ? 'DF' : '--'} ${ip.moreFragments ? 'MF' : '--'}`,
  );
  out.add(`${prefix}.fragOffset`, ip.fragmentOffset);
  out.add(`${prefix}.ttl`, ip.ttl);
  out.add(`${prefix}.protocol`, ip.protocol);
  out.add(`${prefix}.checksum`, ip.verifyChecksum() ? 'valid' : `bad 0x${ip.checksum.toString(16)}`);
  out.add(`${prefix}.src`, formatIpv4(ip.srcAddr));
  out.add(`${prefix}.dst`, formatIpv4(ip.dstAddr));
  if (ip.headerLen > 20) out.add(`${prefix}.options`, hex(ip.options()));
}

/** The layer above IPv4; `quoted` is the prefix of a datagram an ICMP error carries (may be cut short). */
function transport(
  out: Fields,
  base: string,
  ip: Ipv4View,
  payload: Uint8Array,
  insideVxlan: boolean,
  quoted: boolean,
): void {
  switch (ip.protocol) {
    case 1:
      icmp(out, `${base}icmp`, payload, insideVxlan, quoted);
      return;
    case 17:
      udp(out, `${base}udp`, ip, payload, insideVxlan, quoted);
      return;
    case 6:
      tcp(out, `${base}tcp`, ip, payload, quoted);
      return;
    default:
      out.add(`${base}payload`, hex(payload));
  }
}

/**
 * The first fragment of a large ping: the ICMP header and the start of the data. Its checksum covers the whole
 * datagram, ping's identifier and timestamp included, so it is not compared; neither are they.
 */
function echoFirstFragment(out: Fields, prefix: string, bytes: Uint8Array): void {
  out.add(`${prefix}.type`, bytes[0]!);
  out.add(`${prefix}.code`, bytes[1]!);
  out.add(`${prefix}.checksum`, readU16(bytes, 2), IGNORED.fragmentChecksum);
  out.add(`${prefix}.ident`, readU16(bytes, 4), IGNORED.pingIdent);
  out.add(`${prefix}.seq`, readU16(bytes, 6));
  out.add(`${prefix}.data.time`, hex(bytes.subarray(8, 24)), IGNORED.pingTime);
  out.add(`${prefix}.data`, hex(bytes.subarray(24)));
}

function icmp(out: Fields, prefix: string, bytes: Uint8Array, insideVxlan: boolean, quoted: boolean): void {
  if (bytes.length < 8) {
    out.add(`${prefix}.bytes`, hex(bytes));
    return;
  }
  const type = bytes[0]!;
  out.add(`${prefix}.type`, type);
  out.add(`${prefix}.code`, bytes[1]!);
  if (quoted) out.add(`${prefix}.checksum`, readU16(bytes, 2), IGNORED.quotedIcmpChecksum);
  else out.add(`${prefix}.checksum`, checksumIsValid(bytes, 0, bytes.length) ? 'valid' : 'bad');
  if (type === 0 || type === 8) {
    out.add(`${prefix}.ident`, readU16(bytes, 4), IGNORED.pingIdent);
    out.add(`${prefix}.seq`, readU16(bytes, 6));
    const data = bytes.subarray(8);
    if (data.length >= 16) {
      out.add(`${prefix}.data.time`, hex(data.subarray(0, 16)), IGNORED.pingTime);
      out.add(`${prefix}.data`, hex(data.subarray(16)));
    } else out.add(`${prefix}.data`, hex(data));
    out.add(`${prefix}.dataLen`, data.length);
    return;
  }
  if (type === 3 && bytes[1] === 4) out.add(`${prefix}.mtu`, readU16(bytes, 6));
  else out.add(`${prefix}.rest`, hex(bytes.subarray(4, 8)));
  if (type === 3 || type === 11 || type === 12) {
    const inner = Ipv4View.checkedHeader(bytes, 8);
    if (!(inner instanceof Ipv4View)) {
      out.add(`${prefix}.quoted.bytes`, hex(bytes.subarray(8)));
      return;
    }
    ipv4Header(out, `${prefix}.quoted.ipv4`, inner);
    out.add(`${prefix}.quotedLen`, bytes.length - 8);
    const innerPayload = bytes.subarray(8 + inner.headerLen, Math.min(bytes.length, 8 + inner.totalLen));
    transport(out, `${prefix}.quoted.`, inner, innerPayload, insideVxlan, true);
    return;
  }
  out.add(`${prefix}.payload`, hex(bytes.subarray(8)));
}

function udp(
  out: Fields,
  prefix: string,
  ip: Ipv4View,
  bytes: Uint8Array,
  insideVxlan: boolean,
  quoted: boolean,
): void {
  if (bytes.length < 8) {
    out.add(`${prefix}.bytes`, hex(bytes));
    return;
  }
  const srcPort = readU16(bytes, 0);
  const dstPort = readU16(bytes, 2);
  const vxlan = VXLAN_PORTS.has(dstPort) && !insideVxlan;
  out.add(`${prefix}.srcPort`, srcPort, vxlan ? IGNORED.vxlanSrcPort : undefined);
  out.add(`${prefix}.dstPort`, dstPort);
  out.add(`${prefix}.length`, readU16(bytes, 4));
  const view = UdpView.checked(bytes);
  if (quoted || !(view instanceof UdpView)) {
    const checksum = readU16(bytes, 6);
    const length = readU16(bytes, 4);
    if (vxlan) out.add(`${prefix}.checksum`, checksum, IGNORED.vxlanSrcPort);
    else if (checksum !== 0 && length >= 8 && bytes.length >= length) {
      // The whole datagram is quoted: its checksum can be verified like any other.
      const sum = pseudoHeaderSum(ip.srcAddr, ip.dstAddr, 17, length);
      if (checksumIsValid(bytes, 0, length, sum)) out.add(`${prefix}.checksum`, 'valid');
      else checksumOrPartial(out, `${prefix}.checksum`, checksum, ip, 17, length);
    } else if (checksum !== 0 && checksum === foldSum(pseudoHeaderSum(ip.srcAddr, ip.dstAddr, 17, length))) {
      out.add(`${prefix}.checksum`, 'valid');
      out.add(`${prefix}.checksumOffloaded`, true, IGNORED.offload);
    } else out.add(`${prefix}.checksum`, checksum);
    out.add(`${prefix}.payload`, hex(bytes.subarray(8)));
    return;
  }
  const pseudo = { srcAddr: ip.srcAddr, dstAddr: ip.dstAddr };
  if (view.checksum === 0) out.add(`${prefix}.checksum`, 'none');
  else if (view.verifyChecksum(pseudo)) out.add(`${prefix}.checksum`, 'valid');
  else if (vxlan && outerValidOnceInnerCompleted(bytes, view.length, pseudo)) {
    out.add(`${prefix}.checksum`, 'valid');
    out.add(`${prefix}.checksumOffloaded`, true, IGNORED.offload);
  } else checksumOrPartial(out, `${prefix}.checksum`, view.checksum, ip, 17, view.length);
  const payload = view.payload();
  if (vxlan && payload.length >= VXLAN_HEADER_LEN) {
    const header = VxlanView.checked(payload);
    if (header instanceof VxlanView) {
      out.add('vxlan.flags', `0x${header.flags.toString(16)}`);
      out.add('vxlan.vni', header.vni);
      out.add('vxlan.reserved', `${header.reserved1} ${header.reserved2}`);
      ethernet(out, 'vxlan.inner.eth', payload.subarray(VXLAN_HEADER_LEN), true);
      return;
    }
  }
  out.add(`${prefix}.payload`, hex(payload));
}

function tcp(out: Fields, prefix: string, ip: Ipv4View, bytes: Uint8Array, quoted: boolean): void {
  if (quoted || bytes.length < 20) {
    if (bytes.length >= 4) {
      out.add(`${prefix}.srcPort`, readU16(bytes, 0));
      out.add(`${prefix}.dstPort`, readU16(bytes, 2));
    }
    out.add(
      `${prefix}.rest`,
      hex(bytes.subarray(Math.min(4, bytes.length), Math.min(8, bytes.length))),
      IGNORED.tcpSeq,
    );
    return;
  }
  const view = TcpView.checked(bytes);
  if (!(view instanceof TcpView)) {
    out.add(`${prefix}.error`, view.defect);
    out.add(`${prefix}.bytes`, hex(bytes));
    return;
  }
  out.add(`${prefix}.srcPort`, view.srcPort);
  out.add(`${prefix}.dstPort`, view.dstPort);
  if (view.syn) out.flows.sawSyn(view.seqNumber);
  out.add(`${prefix}.seq`, out.flows.relative(view.seqNumber));
  out.add(`${prefix}.seqAbsolute`, view.seqNumber, IGNORED.tcpSeqAbsolute);
  out.add(`${prefix}.ack`, view.ack ? out.flows.relative(view.ackNumber) : 0);
  out.add(`${prefix}.ackAbsolute`, view.ackNumber, IGNORED.tcpSeqAbsolute);
  out.add(`${prefix}.headerLen`, view.headerLen);
  out.add(`${prefix}.flags`, `0x${view.flags.toString(16).padStart(2, '0')}`);
  out.add(`${prefix}.window`, view.window);
  const initial = pseudoHeaderSum(ip.srcAddr, ip.dstAddr, 6, bytes.length);
  if (checksumIsValid(bytes, 0, bytes.length, initial)) out.add(`${prefix}.checksum`, 'valid');
  else checksumOrPartial(out, `${prefix}.checksum`, view.checksum, ip, 6, bytes.length);
  out.add(`${prefix}.urgent`, view.urgentPointer);
  tcpOptions(out, `${prefix}.options`, view.options());
  const { payload, date } = blankHttpDate(view.payload());
  if (date !== undefined) out.add(`${prefix}.httpDate`, date, IGNORED.httpDate);
  out.add(`${prefix}.payload`, hex(payload));
}

/** Options one by one (kind and length compared); a timestamp's values are not compared, whether TSecr is 0 is. */
function tcpOptions(out: Fields, prefix: string, bytes: Uint8Array): void {
  let at = 0;
  let n = 0;
  while (at < bytes.length) {
    const kind = bytes[at]!;
    const length = kind <= 1 ? 1 : (bytes[at + 1] ?? 0);
    if (length < 1 || at + length > bytes.length) {
      out.add(`${prefix}.rest`, hex(bytes.subarray(at)));
      return;
    }
    const name = `${prefix}.${n++}`;
    if (kind === 8 && length === 10) {
      out.add(name, 'timestamps');
      out.add(`${name}.tsVal`, readU32(bytes, at + 2), IGNORED.tcpTimestamp);
      out.add(`${name}.tsEcr`, readU32(bytes, at + 6), IGNORED.tcpTimestamp);
      out.add(`${name}.tsEcrZero`, readU32(bytes, at + 6) === 0);
    } else out.add(name, hex(bytes.subarray(at, at + length)));
    at += length;
  }
}

/**
 * A locally sent TCP or UDP segment captured before the device filled its checksum: the field
 * holds the folded pseudo-header sum (udp4_hwcsum, tcp_v4_send_check). It counts as valid.
 */
function checksumOrPartial(
  out: Fields,
  name: string,
  checksum: number,
  ip: Ipv4View,
  protocol: number,
  length: number,
): void {
  const partial = foldSum(pseudoHeaderSum(ip.srcAddr, ip.dstAddr, protocol, length));
  if (checksum !== partial) {
    out.add(name, `bad 0x${checksum.toString(16)}`);
    return;
  }
  out.add(name, 'valid');
  out.add(`${name}Offloaded`, true, IGNORED.offload);
}

/**
 * VXLAN with local checksum offload (udp_set_csum): the outer checksum already counts the
 * inner TCP/UDP checksum the device has yet to fill. Completes the inner one in a copy and
 * verifies the outer sum over it.
 */
function outerValidOnceInnerCompleted(
  udpBytes: Uint8Array,
  length: number,
  pseudo: { srcAddr: number; dstAddr: number },
): boolean {
  const copy = udpBytes.slice(0, length);
  const ipAt = 8 + VXLAN_HEADER_LEN + 14;
  if (copy.length < ipAt + 20 || readU16(copy, ipAt - 2) !== ETHERTYPE_IPV4) return false;
  const inner = Ipv4View.checked(copy, ipAt);
  if (!(inner instanceof Ipv4View) || (inner.protocol !== 17 && inner.protocol !== 6)) return false;
  const l4 = ipAt + inner.headerLen;
  const l4Len = inner.totalLen - inner.headerLen;
  const field = l4 + (inner.protocol === 17 ? 6 : 16);
  if (copy.length < l4 + l4Len || field + 2 > copy.length) return false;
  copy[field] = 0;
  copy[field + 1] = 0;
  const sum = pseudoHeaderSum(inner.srcAddr, inner.dstAddr, inner.protocol, l4Len);
  const completed = ~foldSum(sumWords(copy, l4, l4 + l4Len, sum)) & 0xffff;
  copy[field] = completed >> 8;
  copy[field + 1] = completed & 0xff;
  return checksumIsValid(copy, 0, length, pseudoHeaderSum(pseudo.srcAddr, pseudo.dstAddr, 17, length));
}
