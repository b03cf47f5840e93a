// ICMP (print-icmp.c's icmp_print): the type's summary and the ICMP length, with -v the checksum and the quoted datagram; RFC 4884 extension objects are not decoded.

import { ipPrint } from './ip.ts';
import { IPPROTO_TCP, IPPROTO_UDP } from './ipproto.ts';
import { type Dissector, hex4, inCksum, inCksumShouldbe, Truncated } from './netdissect.ts';

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

/** ICMP (print-icmp.c's icmp_print): the type's summary, the ICMP length, and -v's detail. */
export function icmpPrint(d: Dissector, at: number, length: number, fragmented: boolean): void {
  d.protocol = 'icmp';
  // The type and code are read with GET_U_1, which ends the whole walk.
  const type = d.u8(at);
  const code = d.u8(at + 1);
  let text: string;
  try {
    text = icmpSummary(d, at, type, code);
  } catch (error) {
    // Port unreachable and time exceeded check the quoted header with ND_TCHECK (this line
    // ends, -x leaves out the link header); every other read is a GET_, which ends the walk.
    if (error !== ICMP_TRUNCATED) throw error;
    d.printTrunc();
    return;
  }
  d.print(`ICMP ${text}, length ${length}`);
  if (d.vflag === 0) return;
  if (!fragmented && d.has(at, length)) {
    const sum = inCksum(d.bytes, at, at + length);
    if (sum !== 0) {
      const field = d.u16(at + 2);
      d.print(` (wrong icmp cksum ${field.toString(16)} (->${inCksumShouldbe(field, sum).toString(16)})!)`);
    }
  }
  if (ICMP_ERROR_TYPES.has(type)) {
    // The quoted datagram, decoded as a packet of its own on the next line.
    d.print('\n\t');
    const quoted = at + 8;
    const snapEnd = d.snapEnd;
    ipPrint(d, quoted, d.u16(quoted + 2));
    d.snapEnd = snapEnd;
  }
  d.protocol = 'icmp';
  if (length > ICMP_EXTD_MINLEN && ICMP_MPLS_EXT_TYPES.has(type)) mplsExtensionPrint(d, at, length);
}

/** The type's summary, `echo request, id 1, seq 1`; a read past the capture throws. */
function icmpSummary(d: Dissector, at: number, type: number, code: number): string {
  const quotedDst = () => d.ipv4At(at + 8 + 16);
  let text: string;
  switch (type) {
    case 0:
    case 8:
      text = `echo ${type === 8 ? 'request' : 'reply'}, id ${d.u16(at + 4)}, seq ${d.u16(at + 6)}`;
      break;
    case 3:
      text = icmpUnreachableText(d, at, code, quotedDst);
      break;
    case 5: {
      const gateway = () => d.ipv4At(at + 4);
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
      text = icmpRouterAdvertText(d, at);
      break;
    case 11:
      if (!d.has(at + 8 + 16, 4)) throw ICMP_TRUNCATED;
      text =
        code === 0
          ? 'time exceeded in-transit'
          : code === 1
            ? 'ip reassembly time exceeded'
            : `time exceeded-#${code}`;
      break;
    case 12:
      text = code !== 0 ? `parameter problem - code ${code}` : `parameter problem - octet ${d.u8(at + 4)}`;
      break;
    case 18:
      text = `address mask is 0x${d
        .u32(at + 8)
        .toString(16)
        .padStart(8, '0')}`;
      break;
    case 13:
      text = `time stamp query id ${d.u16(at + 4)} seq ${d.u16(at + 6)}`;
      break;
    case 14:
      d.need(at + 16, 4);
      text =
        `time stamp reply id ${d.u16(at + 4)} seq ${d.u16(at + 6)}: org ${icmpTime(d.u32(at + 8))}` +
        `, recv ${icmpTime(d.u32(at + 12))}, xmit ${icmpTime(d.u32(at + 16))}`;
      break;
    default:
      text = ICMP_TYPE_NAMES.get(type) ?? `type-#${type}`;
  }
  return text;
}

/** What icmp_print's ND_TCHECKs of a quoted header throw: the line ends, the walk does not (its `trunc:`). */
const ICMP_TRUNCATED = new Truncated();
/** The ICMP errors that quote a datagram (ICMP_ERRTYPE). */
const ICMP_ERROR_TYPES = new Set([3, 4, 5, 11, 12]);
/** The ICMP errors that may carry RFC 4884 extensions (ICMP_MPLS_EXT_TYPE). */
const ICMP_MPLS_EXT_TYPES = new Set([3, 11, 12]);
/** The 8-byte header and 128 bytes of quoted datagram before an extension structure. */
const ICMP_EXTD_MINLEN = 136;
/** sizeof(struct icmp_ext_t): what must be captured before tcpdump looks for an extension. */
const ICMP_EXT_STRUCT_LEN = 141;

/**
 * RFC 4884 extensions (icmp_print's MPLS block): silent unless the length field is set or
 * the extension's checksum is valid; then the version and checksum line. The objects that
 * follow are not decoded.
 */
function mplsExtensionPrint(d: Dissector, at: number, length: number): void {
  d.need(at, ICMP_EXT_STRUCT_LEN);
  const ext = at + ICMP_EXTD_MINLEN;
  if (d.bytes[at + 5] === 0 && d.has(ext, length - ICMP_EXTD_MINLEN)) {
    if (inCksum(d.bytes, ext, at + length) !== 0) return;
  }
  const version = d.bytes[ext]! >>> 4;
  d.print(`\n\tMPLS extension v${version}`);
  if (version !== 2) {
    d.print(' packet not supported');
    return;
  }
  const hlen = length - ICMP_EXTD_MINLEN;
  if (d.has(ext, hlen)) {
    const correct = inCksum(d.bytes, ext, ext + hlen) === 0;
    d.print(`, checksum 0x${hex4(d.u16(ext + 2))} (${correct ? '' : 'in'}correct), length ${hlen}`);
  }
}

function icmpUnreachableText(d: Dissector, at: number, code: number, quotedDst: () => string): string {
  const quoted = at + 8;
  switch (code) {
    case 0:
    case 1:
      return ICMP_UNREACH_TEXT[code]!(quotedDst());
    case 2:
      return `${quotedDst()} protocol ${d.u8(quoted + 9)} unreachable`;
    case 3: {
      if (!d.has(quoted + 9, 1)) throw ICMP_TRUNCATED;
      const hlen = (d.u8(quoted) & 0x0f) * 4;
      const port = d.u16(quoted + hlen + 2);
      const proto = d.u8(quoted + 9);
      if (proto === IPPROTO_TCP) return `${quotedDst()} tcp port ${port} unreachable`;
      if (proto === IPPROTO_UDP) return `${quotedDst()} udp port ${port} unreachable`;
      return `${quotedDst()} protocol ${proto} port ${port} unreachable`;
    }
    case 4: {
      const mtu = d.u16(at + 6);
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

function icmpRouterAdvertText(d: Dissector, at: number): string {
  d.need(at + 4, 4);
  let text = 'router advertisement lifetime ';
  const lifetime = d.u16(at + 6);
  const two = (n: number) => String(n).padStart(2, '0');
  if (lifetime < 60) text += `${lifetime}`;
  else if (lifetime < 3600) text += `${Math.floor(lifetime / 60)}:${two(lifetime % 60)}`;
  else
    text += `${Math.floor(lifetime / 3600)}:${two(Math.floor((lifetime % 3600) / 60))}:${two(lifetime % 60)}`;
  let count = d.u8(at + 4);
  text += ` ${count}:`;
  const size = d.u8(at + 5);
  if (size !== 2) return `${text} [size ${size}]`;
  let entry = at + 8;
  while (count > 0) {
    d.need(entry, 8);
    text += ` {${d.ipv4At(entry)} ${d.u32(entry + 4)}}`;
    entry += 8;
    count--;
  }
  return text;
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
