// DNS over UDP and TCP port 53 (and mDNS on 5353) as tcpdump prints it (print-domain.c's domain_print, ns_qprint, ns_rprint, fqdn_print): the header's id, flags and counts, the questions, the answers (with -vv the question, authority and additional sections), compressed names, and mDNS's class bits on port 5353; no EDNS0 options or bit labels, no DNSSEC record detail. Its own reader of the bytes: it needs no DNS wire module.

import { formatIpv4 } from '../../wire/address.ts';
import { formatIpv6Bytes } from '../../wire/ipv6-text.ts';
import { type Dissector, printableChar, Truncated } from './netdissect.ts';

const HEADER_LEN = 12;
const INDIR_MASK = 0xc0;
const EDNS0_MASK = 0x40;
const MAXCDNAME = 255;

const T_A = 1;
const T_NS = 2;
const T_CNAME = 5;
const T_SOA = 6;
const T_PTR = 12;
const T_MX = 15;
const T_TXT = 16;
const T_AAAA = 28;
const T_SRV = 33;
const T_DNAME = 39;
const T_OPT = 41;
const C_IN = 1;
const C_QU = 0x8000;
const C_CACHE_FLUSH = 0x8000;
const IQUERY = 1;

/** ns_type2str, as tcpdump 4.99.3 names the types (read from the tool). */
const TYPE_NAMES = new Map<number, string>([
  [1, 'A'],
  [2, 'NS'],
  [3, 'MD'],
  [4, 'MF'],
  [5, 'CNAME'],
  [6, 'SOA'],
  [7, 'MB'],
  [8, 'MG'],
  [9, 'MR'],
  [10, 'NULL'],
  [11, 'WKS'],
  [12, 'PTR'],
  [13, 'HINFO'],
  [14, 'MINFO'],
  [15, 'MX'],
  [16, 'TXT'],
  [17, 'RP'],
  [18, 'AFSDB'],
  [19, 'X25'],
  [20, 'ISDN'],
  [21, 'RT'],
  [22, 'NSAP'],
  [23, 'NSAP_PTR'],
  [24, 'SIG'],
  [25, 'KEY'],
  [26, 'PX'],
  [27, 'GPOS'],
  [28, 'AAAA'],
  [29, 'LOC'],
  [30, 'NXT'],
  [31, 'EID'],
  [32, 'NIMLOC'],
  [33, 'SRV'],
  [34, 'ATMA'],
  [35, 'NAPTR'],
  [36, 'KX'],
  [37, 'CERT'],
  [38, 'A6'],
  [39, 'DNAME'],
  [40, 'SINK'],
  [41, 'OPT'],
  [42, 'APL'],
  [43, 'DS'],
  [44, 'SSHFP'],
  [45, 'IPSECKEY'],
  [46, 'RRSIG'],
  [47, 'NSEC'],
  [48, 'DNSKEY'],
  [99, 'SPF'],
  [100, 'UINFO'],
  [101, 'UID'],
  [102, 'GID'],
  [103, 'UNSPEC'],
  [104, 'UNSPECA'],
  [249, 'TKEY'],
  [250, 'TSIG'],
  [251, 'IXFR'],
  [252, 'AXFR'],
  [253, 'MAILB'],
  [254, 'MAILA'],
  [255, 'ANY'],
  [256, 'URI'],
]);

/** ns_class2str (C_IN is never printed). */
const CLASS_NAMES = new Map<number, string>([
  [1, 'IN'],
  [3, 'CHAOS'],
  [4, 'HS'],
  [255, 'ANY'],
]);

/** ns_ops: the opcode after the id. */
const OPCODES = [
  '',
  ' inv_q',
  ' stat',
  ' op3',
  ' notify',
  ' update',
  ' op6',
  ' op7',
  ' op8',
  ' updateA',
  ' updateD',
  ' updateDA',
  ' updateM',
  ' updateMA',
  ' zoneInit',
  ' zoneRef',
];

/** ns_resp: the response code after the id (and opcode). */
const RCODES = [
  '',
  ' FormErr',
  ' ServFail',
  ' NXDomain',
  ' NotImp',
  ' Refused',
  ' YXDomain',
  ' YXRRSet',
  ' NXRRSet',
  ' NotAuth',
  ' NotZone',
  ' Resp11',
  ' Resp12',
  ' Resp13',
  ' Resp14',
  ' NoChange',
  ' BadVers',
];

function typeName(type: number): string {
  return TYPE_NAMES.get(type) ?? `Type${type}`;
}
function className(klass: number): string {
  return CLASS_NAMES.get(klass) ?? `(Class ${klass})`;
}

/** What a name or record walk returns when the capture ends inside it (tcpdump's NULL). */
const CUT = -1;

/**
 * domain_print for UDP: `id[flags] [counts] questions answers (length)`. A message cut short
 * ends the line with ` [|domain]`; one shorter than its header is invalid.
 */
export function domainPrint(d: Dissector, at: number, length: number, mdns = false): void {
  d.protocol = 'domain';
  if (length < HEADER_LEN) {
    d.print(`domain [length ${length} < ${HEADER_LEN}] (invalid)`);
    return;
  }
  try {
    if (!messagePrint(d, at, length, mdns)) d.printTrunc();
  } catch (error) {
    if (!(error instanceof Truncated)) throw error;
    d.printTrunc();
  }
}

/**
 * domain_print over TCP: the message follows a two-byte length that must match the segment's
 * (`[prefix length(N) != length(M)] (invalid)` otherwise), then a space instead of `: `.
 */
export function domainOverTcpPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'domain';
  if (length < 2) {
    d.print(` [DNS over TCP: length ${length} < 2] (invalid)`);
    return;
  }
  const prefix = d.u16(at);
  if (prefix !== length - 2) {
    d.print(` [prefix length(${prefix}) != length(${length - 2})] (invalid)`);
    return;
  }
  d.print(' ');
  domainPrint(d, at + 2, length - 2);
}

/** The whole message; false where tcpdump jumps to `trunc:`. */
function messagePrint(d: Dissector, bp: number, length: number, mdns: boolean): boolean {
  if (!d.has(bp, HEADER_LEN)) return false;
  const id = d.u16(bp);
  const flags = d.u16(bp + 2);
  const qdcount = d.u16(bp + 4);
  let ancount = d.u16(bp + 6);
  let nscount = d.u16(bp + 8);
  let arcount = d.u16(bp + 10);
  const opcode = (flags >>> 11) & 0x0f;
  const rcode = extendedRcode(d, bp, flags & 0x0f, qdcount, ancount, nscount, arcount);
  let cp = bp + HEADER_LEN;
  if ((flags & 0x8000) !== 0) {
    // A response.
    d.print(`${id}${OPCODES[opcode]}${RCODES[rcode] ?? ` Resp${rcode & 0xfff}`}`);
    d.print(`${(flags & 0x0400) !== 0 ? '*' : ''}${(flags & 0x0080) !== 0 ? '' : '-'}`);
    d.print(`${(flags & 0x0200) !== 0 ? '|' : ''}${(flags & 0x0020) !== 0 ? '$' : ''}`);
    if (qdcount !== 1) d.print(` [${qdcount}q]`);
    for (let i = 0; i < qdcount; i++) {
      if (i !== 0) d.print(',');
      if (d.vflag > 1) {
        d.print(' q:');
        cp = questionPrint(d, cp, bp, mdns);
      } else {
        cp = nameSkip(d, cp);
        if (cp !== CUT) cp += 4;
      }
      if (cp === CUT) return false;
    }
    d.print(` ${ancount}/${nscount}/${arcount}`);
    if (ancount > 0) {
      cp = recordPrint(d, cp, bp, mdns);
      if (cp === CUT) return false;
      ancount--;
      while (cp < d.snapEnd && ancount > 0) {
        d.print(',');
        cp = recordPrint(d, cp, bp, mdns);
        if (cp === CUT) return false;
        ancount--;
      }
    }
    if (ancount > 0) return false;
    if (d.vflag > 1) {
      if (cp < d.snapEnd && nscount > 0) {
        d.print(' ns:');
        ({ cp, left: nscount } = sectionPrint(d, cp, bp, nscount, mdns));
        if (cp === CUT) return false;
      }
      if (nscount > 0) return false;
      if (cp < d.snapEnd && arcount > 0) {
        d.print(' ar:');
        ({ cp, left: arcount } = sectionPrint(d, cp, bp, arcount, mdns));
        if (cp === CUT) return false;
      }
      if (arcount > 0) return false;
    }
  } else {
    // A request.
    d.print(
      `${id}${OPCODES[opcode]}${(flags & 0x0100) !== 0 ? '+' : ''}${(flags & 0x0010) !== 0 ? '%' : ''}`,
    );
    if ((flags & 0x6cf) !== 0) d.print(` [b2&3=0x${flags.toString(16)}]`);
    if (opcode === IQUERY) {
      if (qdcount > 0) d.print(` [${qdcount}q]`);
      if (ancount !== 1) d.print(` [${ancount}a]`);
    } else {
      if (ancount > 0) d.print(` [${ancount}a]`);
      if (qdcount !== 1) d.print(` [${qdcount}q]`);
    }
    if (nscount > 0) d.print(` [${nscount}n]`);
    if (arcount > 0) d.print(` [${arcount}au]`);
    let questions = qdcount;
    if (questions > 0) {
      cp = questionPrint(d, cp, bp, mdns);
      if (cp === CUT) return false;
      questions--;
      while (cp < d.snapEnd && questions > 0) {
        cp = questionPrint(d, cp, bp, mdns);
        if (cp === CUT) return false;
        questions--;
      }
    }
    if (questions > 0) return false;
    if (d.vflag > 1) {
      // The answers of a request carry no label; the other sections do.
      if (ancount > 0) {
        ({ cp, left: ancount } = sectionPrint(d, cp, bp, ancount, mdns));
        if (cp === CUT) return false;
      }
      if (ancount > 0) return false;
      if (cp < d.snapEnd && nscount > 0) {
        d.print(' ns:');
        ({ cp, left: nscount } = sectionPrint(d, cp, bp, nscount, mdns));
        if (cp === CUT) return false;
      }
      if (nscount > 0) return false;
      if (cp < d.snapEnd && arcount > 0) {
        d.print(' ar:');
        ({ cp, left: arcount } = sectionPrint(d, cp, bp, arcount, mdns));
        if (cp === CUT) return false;
      }
      if (arcount > 0) return false;
    }
  }
  d.print(` (${length})`);
  return true;
}

/** One section's records, comma-separated, while the capture lasts. */
function sectionPrint(
  d: Dissector,
  start: number,
  bp: number,
  count: number,
  mdns: boolean,
): { cp: number; left: number } {
  let cp = recordPrint(d, start, bp, mdns);
  if (cp === CUT) return { cp, left: count };
  let left = count - 1;
  while (cp < d.snapEnd && left > 0) {
    d.print(',');
    cp = recordPrint(d, cp, bp, mdns);
    if (cp === CUT) return { cp, left };
    left--;
  }
  return { cp, left };
}

/** The response code with the OPT record's extended bits (domain_print's first pass over the sections). */
function extendedRcode(
  d: Dissector,
  bp: number,
  rcode: number,
  qdcount: number,
  ancount: number,
  nscount: number,
  arcount: number,
): number {
  let cp = bp + HEADER_LEN;
  for (let i = 0; i < qdcount; i++) {
    cp = nameSkip(d, cp);
    if (cp === CUT) return rcode;
    cp += 4;
    if (cp >= d.snapEnd) return rcode;
  }
  for (let i = 0; i < ancount + nscount; i++) {
    cp = nameSkip(d, cp);
    if (cp === CUT) return rcode;
    cp += 8;
    if (cp + 2 > d.snapEnd) return rcode;
    cp += 2 + d.u16(cp);
    if (cp >= d.snapEnd) return rcode;
  }
  for (let i = 0; i < arcount; i++) {
    cp = nameSkip(d, cp);
    if (cp === CUT || cp + 2 > d.snapEnd) return rcode;
    const type = d.u16(cp);
    cp += 4;
    if (cp + 1 > d.snapEnd) return rcode;
    if (type === T_OPT) return rcode | (d.u8(cp) << 4);
    cp += 4;
    if (cp + 2 > d.snapEnd) return rcode;
    cp += 2 + d.u16(cp);
    if (cp >= d.snapEnd) return rcode;
  }
  return rcode;
}

/** ns_nskip: past a name without printing it. */
function nameSkip(d: Dissector, start: number): number {
  let cp = start;
  if (!d.has(cp, 1)) return CUT;
  let i = d.bytes[cp++]!;
  while (i !== 0) {
    const kind = i & INDIR_MASK;
    if (kind === INDIR_MASK) return cp + 1;
    if (kind === EDNS0_MASK) return CUT; // bit labels are not decoded
    cp += i;
    if (!d.has(cp, 1)) return CUT;
    i = d.bytes[cp++]!;
  }
  return cp;
}

/** ns_qprint: ` TYPE[ CLASS]? name.`; returns what follows the question. */
function questionPrint(d: Dissector, start: number, bp: number, mdns: boolean): number {
  const cp = nameSkip(d, start);
  if (cp === CUT || !d.has(cp, 4)) return CUT;
  d.print(` ${typeName(d.u16(cp))}`);
  const field = d.u16(cp + 2);
  // mDNS takes the top bit of the class for "unicast response wanted" (RFC 6762 5.4).
  const klass = mdns ? field & ~C_QU : field;
  if (klass !== C_IN) d.print(` ${className(klass)}`);
  if (mdns) d.print((field & C_QU) !== 0 ? ' (QU)' : ' (QM)');
  d.print('? ');
  const end = fqdnPrint(d, start, bp);
  return end === CUT ? CUT : end + 4;
}

/** ns_rprint: `[ name] [CLASS ]TYPE data`; returns where the next record starts. */
function recordPrint(d: Dissector, start: number, bp: number, mdns: boolean): number {
  let cp: number;
  if (d.vflag > 0) {
    d.print(' ');
    cp = fqdnPrint(d, start, bp);
    if (cp === CUT) return CUT;
  } else {
    cp = nameSkip(d, start);
  }
  // A record whose fixed part is not captured ends the section quietly (ns_rprint returns snapend).
  if (cp === CUT || !d.has(cp, 10)) return d.snapEnd;
  const type = d.u16(cp);
  const field = d.u16(cp + 2);
  // mDNS takes the top bit of the class for "cache flush" (RFC 6762 10.2).
  const klass = mdns ? field & ~C_CACHE_FLUSH : field;
  const optFlags = type === T_OPT ? d.u16(cp + 6) : 0;
  if (klass !== C_IN && type !== T_OPT) d.print(` ${className(klass)}`);
  if (mdns && (field & C_CACHE_FLUSH) !== 0) d.print(' (Cache flush)');
  const len = d.u16(cp + 8);
  cp += 10;
  const rp = cp + len;
  d.print(` ${typeName(type)}`);
  if (rp > d.snapEnd) return CUT;
  switch (type) {
    case T_A:
      if (!d.has(cp, 4)) return CUT;
      d.print(` ${formatIpv4(d.u32(cp))}`);
      break;
    case T_NS:
    case T_CNAME:
    case T_PTR:
    case T_DNAME:
      d.print(' ');
      if (fqdnPrint(d, cp, bp) === CUT) return CUT;
      break;
    case T_SOA: {
      if (d.vflag === 0) break;
      d.print(' ');
      let at = fqdnPrint(d, cp, bp);
      if (at === CUT) return CUT;
      d.print(' ');
      at = fqdnPrint(d, at, bp);
      if (at === CUT) return CUT;
      for (let i = 0; i < 5; i++, at += 4) d.print(` ${d.u32(at)}`);
      break;
    }
    case T_MX:
      d.print(' ');
      if (fqdnPrint(d, cp + 2, bp) === CUT) return CUT;
      d.print(` ${d.u16(cp)}`);
      break;
    case T_TXT:
      for (let at = cp; at < rp; ) {
        d.print(' "');
        const n = d.u8(at);
        at++;
        if (charsPrint(d, at, n)) return CUT;
        at += n;
        d.print('"');
      }
      break;
    case T_SRV:
      d.print(' ');
      if (fqdnPrint(d, cp + 6, bp) === CUT) return CUT;
      d.print(`:${d.u16(cp + 4)} ${d.u16(cp)} ${d.u16(cp + 2)}`);
      break;
    case T_AAAA:
      if (!d.has(cp, 16)) return CUT;
      d.print(` ${formatIpv6Bytes(d.bytes, cp)}`);
      break;
    case T_OPT:
      d.print(` UDPsize=${klass}`);
      if ((optFlags & 0x8000) !== 0) d.print(' DO');
      break;
    default:
      break;
  }
  return rp;
}

/** nd_printn: up to `n` characters, escaped; true when the capture ended first. */
function charsPrint(d: Dissector, at: number, n: number): boolean {
  let i = 0;
  for (; i < n && at + i < d.snapEnd; i++) d.print(printableChar(d.bytes[at + i]!));
  return i < n;
}

/** fqdn_print: a (compressed) name with its final dot; returns where the name ends in the record. */
function fqdnPrint(d: Dissector, start: number, bp: number): number {
  let cp = start;
  if (!d.has(cp, 1)) return CUT;
  let maxOffset = cp - bp;
  let i = d.bytes[cp++]!;
  if (badLabel(d, i)) return CUT;
  // rp is where the name ends in the record: set by the first pointer, or grown label by label.
  let compressed = false;
  let rp = (i & INDIR_MASK) === INDIR_MASK ? CUT : cp + labelLength(i);
  if (i === 0) {
    d.print('.');
    return rp;
  }
  let nameChars = 0;
  while (i !== 0 && cp < d.snapEnd) {
    if ((i & INDIR_MASK) === INDIR_MASK) {
      if (!compressed) {
        rp = cp + 1;
        compressed = true;
      }
      if (!d.has(cp, 1)) return CUT;
      const offset = ((i << 8) | d.bytes[cp]!) & 0x3fff;
      // Pointers must move backwards (BIND's rule, which stops loops).
      if (offset >= maxOffset) {
        d.print('<BAD PTR>');
        return CUT;
      }
      maxOffset = offset;
      cp = bp + offset;
      if (!d.has(cp, 1)) return CUT;
      i = d.bytes[cp]!;
      if (badLabel(d, i)) return CUT;
      cp++;
      continue;
    }
    const l = i;
    if (nameChars + l <= MAXCDNAME) {
      if (charsPrint(d, cp, l)) return CUT;
    } else if (nameChars < MAXCDNAME) {
      if (charsPrint(d, cp, MAXCDNAME - nameChars)) return CUT;
    }
    nameChars += l;
    cp += l;
    if (nameChars <= MAXCDNAME) d.print('.');
    nameChars++;
    if (!d.has(cp, 1)) return CUT;
    i = d.bytes[cp]!;
    if (badLabel(d, i)) return CUT;
    cp++;
    if (!compressed) rp += labelLength(i) + 1;
  }
  if (nameChars > MAXCDNAME) d.print('<DOMAIN NAME TOO LONG>');
  return rp;
}

/**
 * labellen's refusals: an EDNS0 extended label prints `<ELT n>` (bit labels, ELT 1, are not
 * decoded either), the reserved 10xxxxxx type `<BAD LABEL TYPE>`.
 */
function badLabel(d: Dissector, i: number): boolean {
  const kind = i & INDIR_MASK;
  if (kind === EDNS0_MASK) {
    if ((i & 0x3f) !== 1) d.print(`<ELT ${i & 0x3f}>`);
    return true;
  }
  if (kind === 0x80) {
    d.print('<BAD LABEL TYPE>');
    return true;
  }
  return false;
}

/** labellen: a label's length, 0 for a compression pointer. */
function labelLength(i: number): number {
  return (i & INDIR_MASK) === INDIR_MASK ? 0 : i;
}
