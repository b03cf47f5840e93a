// DNS messages (RFC 1035 section 4, RFC 2535's AD and CD bits): header view, repr, parse with name decompression
// and emit with name compression as servers do; rdata decoded for A, AAAA, CNAME/NS/PTR and SOA, other types kept
// as raw bytes (RFC 3597); no EDNS option parsing (OPT is raw), no DNSSEC, no TCP length prefix.
//
//                                 1  1  1  1  1  1
//   0  1  2  3  4  5  6  7  8  9  0  1  2  3  4  5
// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
// |                      ID                       |
// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
// |QR|   Opcode  |AA|TC|RD|RA| Z|AD|CD|   RCODE   |
// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
// |                    QDCOUNT                    |
// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
// |                    ANCOUNT                    |
// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
// |                    NSCOUNT                    |
// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
// |                    ARCOUNT                    |
// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
// then QDCOUNT questions (QNAME, QTYPE, QCLASS) and ANCOUNT + NSCOUNT + ARCOUNT resource records
// (NAME, TYPE, CLASS, TTL (32 bits), RDLENGTH, RDATA). A name is labels of 1-63 bytes ending in a 0
// byte, or ending in a pointer: two bytes 11xxxxxx xxxxxxxx giving the offset of the rest.

import { type Ipv4Addr, readIpv4, writeIpv4 } from './address.ts';
import { readU16, readU32, writeU16, writeU32 } from './bytes.ts';
import { WireError } from './error.ts';

const ID = 0;
const FLAGS = 2;
const QDCOUNT = 4;
const ANCOUNT = 6;
const NSCOUNT = 8;
const ARCOUNT = 10;
export const DNS_HEADER_LEN = ARCOUNT + 2;

// After a question's name.
const QTYPE = 0;
const QCLASS = 2;
const QUESTION_FIXED_LEN = QCLASS + 2;
// After a record's name.
const RR_TYPE = 0;
const RR_CLASS = 2;
const RR_TTL = 4;
const RR_RDLENGTH = 8;
const RR_FIXED_LEN = RR_RDLENGTH + 2;
// SOA rdata after its two names.
const SOA_SERIAL = 0;
const SOA_REFRESH = 4;
const SOA_RETRY = 8;
const SOA_EXPIRE = 12;
const SOA_MINIMUM = 16;
const SOA_FIXED_LEN = SOA_MINIMUM + 4;

// Flag bits of the second 16-bit word (Z, 0x0040, is written 0 and ignored).
const FLAG_QR = 0x8000;
const FLAG_AA = 0x0400;
const FLAG_TC = 0x0200;
const FLAG_RD = 0x0100;
const FLAG_RA = 0x0080;
const FLAG_AD = 0x0020;
const FLAG_CD = 0x0010;
const OPCODE_SHIFT = 11;

/** The largest name on the wire, length bytes and final 0 included (RFC 1035 2.3.4). */
export const DNS_MAX_NAME_LEN = 255;
const MAX_LABEL_LEN = 63;
const POINTER_MASK = 0xc0;
/** A pointer's 14-bit offset reaches this far; names written later are not offered for compression. */
const POINTER_MAX_OFFSET = 0x3fff;

export const DNS_PORT = 53;
export const DNS_TYPE_A = 1;
export const DNS_TYPE_NS = 2;
export const DNS_TYPE_CNAME = 5;
export const DNS_TYPE_SOA = 6;
export const DNS_TYPE_PTR = 12;
export const DNS_TYPE_AAAA = 28;
export const DNS_TYPE_OPT = 41;
export const DNS_CLASS_IN = 1;

export const DNS_RCODE_NOERROR = 0;
export const DNS_RCODE_FORMERR = 1;
export const DNS_RCODE_SERVFAIL = 2;
export const DNS_RCODE_NXDOMAIN = 3;
export const DNS_RCODE_NOTIMP = 4;
export const DNS_RCODE_REFUSED = 5;

const TRUNCATED = new WireError('dns.truncated');
const NAME_TRUNCATED = new WireError('dns.name-truncated');
const BAD_LABEL_TYPE = new WireError('dns.bad-label-type');
const NAME_TOO_LONG = new WireError('dns.name-too-long');
const BAD_POINTER = new WireError('dns.bad-pointer');
const QUESTION_TRUNCATED = new WireError('dns.question-truncated');
const RECORD_TRUNCATED = new WireError('dns.record-truncated');
const RDATA_EXCEEDS_BUFFER = new WireError('dns.rdata-exceeds-buffer');
const BAD_RDATA_LENGTH = new WireError('dns.bad-rdata-length');

/**
 * Walks the name at `at` (following pointers, each strictly backward, as every decompressor that
 * refuses loops demands) and returns the offset just after it in the message, or the defect.
 */
function skipName(bytes: Uint8Array, at: number): number | WireError {
  let end = -1;
  let wireLen = 0;
  let pos = at;
  let limit = at; // a pointer must point before where the name (or the last pointer's target) began
  for (;;) {
    if (pos >= bytes.length) return NAME_TRUNCATED;
    const len = bytes[pos]!;
    const kind = len & POINTER_MASK;
    if (kind === POINTER_MASK) {
      if (pos + 2 > bytes.length) return NAME_TRUNCATED;
      const target = ((len & 0x3f) << 8) | bytes[pos + 1]!;
      if (end < 0) end = pos + 2;
      if (target >= limit) return BAD_POINTER;
      limit = target;
      pos = target;
      continue;
    }
    if (kind !== 0) return BAD_LABEL_TYPE;
    wireLen += len + 1;
    if (wireLen > DNS_MAX_NAME_LEN) return NAME_TOO_LONG;
    if (len === 0) return end < 0 ? pos + 1 : end;
    if (pos + 1 + len > bytes.length) return NAME_TRUNCATED;
    pos += 1 + len;
  }
}

/** A zero-copy view of a DNS message at `offset` in `bytes`, which ends where the message ends (the UDP payload). */
export class DnsView {
  private constructor(
    readonly bytes: Uint8Array,
    readonly offset: number,
  ) {}

  /**
   * A view whose header, every name (pointers included), question and record has been checked
   * against the buffer; after it, parseDns cannot read out of bounds.
   */
  static checked(bytes: Uint8Array, offset = 0): DnsView | WireError {
    if (bytes.length - offset < DNS_HEADER_LEN) return TRUNCATED;
    const message = bytes.subarray(offset);
    let pos = DNS_HEADER_LEN;
    for (let i = readU16(message, QDCOUNT); i > 0; i--) {
      const after = skipName(message, pos);
      if (after instanceof WireError) return after;
      if (after + QUESTION_FIXED_LEN > message.length) return QUESTION_TRUNCATED;
      pos = after + QUESTION_FIXED_LEN;
    }
    const records = readU16(message, ANCOUNT) + readU16(message, NSCOUNT) + readU16(message, ARCOUNT);
    for (let i = 0; i < records; i++) {
      const after = skipName(message, pos);
      if (after instanceof WireError) return after;
      if (after + RR_FIXED_LEN > message.length) return RECORD_TRUNCATED;
      const rdStart = after + RR_FIXED_LEN;
      const rdEnd = rdStart + readU16(message, after + RR_RDLENGTH);
      if (rdEnd > message.length) return RDATA_EXCEEDS_BUFFER;
      const defect = checkRdata(message, readU16(message, after + RR_TYPE), rdStart, rdEnd);
      if (defect !== undefined) return defect;
      pos = rdEnd;
    }
    return new DnsView(bytes, offset);
  }

  /** A view for writing into a buffer the caller has sized (dnsMessageLen); no checks. */
  static unchecked(bytes: Uint8Array, offset = 0): DnsView {
    return new DnsView(bytes, offset);
  }

  get id(): number {
    return readU16(this.bytes, this.offset + ID);
  }
  set id(id: number) {
    writeU16(this.bytes, this.offset + ID, id);
  }
  /** The whole second word (QR, opcode, AA, TC, RD, RA, Z, AD, CD, rcode). */
  get flags(): number {
    return readU16(this.bytes, this.offset + FLAGS);
  }
  set flags(flags: number) {
    writeU16(this.bytes, this.offset + FLAGS, flags);
  }
  /** QR: a response rather than a query. */
  get response(): boolean {
    return (this.flags & FLAG_QR) !== 0;
  }
  get opcode(): number {
    return (this.flags >> OPCODE_SHIFT) & 0xf;
  }
  get authoritative(): boolean {
    return (this.flags & FLAG_AA) !== 0;
  }
  get truncated(): boolean {
    return (this.flags & FLAG_TC) !== 0;
  }
  get recursionDesired(): boolean {
    return (this.flags & FLAG_RD) !== 0;
  }
  get recursionAvailable(): boolean {
    return (this.flags & FLAG_RA) !== 0;
  }
  get authenticData(): boolean {
    return (this.flags & FLAG_AD) !== 0;
  }
  get checkingDisabled(): boolean {
    return (this.flags & FLAG_CD) !== 0;
  }
  get rcode(): number {
    return this.flags & 0xf;
  }
  get questionCount(): number {
    return readU16(this.bytes, this.offset + QDCOUNT);
  }
  set questionCount(count: number) {
    writeU16(this.bytes, this.offset + QDCOUNT, count);
  }
  get answerCount(): number {
    return readU16(this.bytes, this.offset + ANCOUNT);
  }
  set answerCount(count: number) {
    writeU16(this.bytes, this.offset + ANCOUNT, count);
  }
  get authorityCount(): number {
    return readU16(this.bytes, this.offset + NSCOUNT);
  }
  set authorityCount(count: number) {
    writeU16(this.bytes, this.offset + NSCOUNT, count);
  }
  get additionalCount(): number {
    return readU16(this.bytes, this.offset + ARCOUNT);
  }
  set additionalCount(count: number) {
    writeU16(this.bytes, this.offset + ARCOUNT, count);
  }
}

/** Rdata whose length the type fixes, and names inside rdata, checked like the rest. */
function checkRdata(message: Uint8Array, type: number, start: number, end: number): WireError | undefined {
  switch (type) {
    case DNS_TYPE_A:
      return end - start === 4 ? undefined : BAD_RDATA_LENGTH;
    case DNS_TYPE_AAAA:
      return end - start === 16 ? undefined : BAD_RDATA_LENGTH;
    case DNS_TYPE_CNAME:
    case DNS_TYPE_NS:
    case DNS_TYPE_PTR: {
      const after = skipName(message.subarray(0, end), start);
      if (after instanceof WireError) return after;
      return after === end ? undefined : BAD_RDATA_LENGTH;
    }
    case DNS_TYPE_SOA: {
      const bounded = message.subarray(0, end);
      const mname = skipName(bounded, start);
      if (mname instanceof WireError) return mname;
      const rname = skipName(bounded, mname);
      if (rname instanceof WireError) return rname;
      return rname + SOA_FIXED_LEN === end ? undefined : BAD_RDATA_LENGTH;
    }
    default:
      return undefined;
  }
}

export interface DnsQuestion {
  /** Presentation form without the final dot (`''` is the root); `.` and `\` inside a label escaped. */
  readonly name: string;
  readonly type: number;
  readonly class: number;
}

export type DnsRdata =
  | { readonly kind: 'a'; readonly addr: Ipv4Addr }
  | { readonly kind: 'aaaa'; readonly addr: Uint8Array }
  /** CNAME, NS and PTR: one name. */
  | { readonly kind: 'name'; readonly name: string }
  | {
      readonly kind: 'soa';
      readonly mname: string;
      readonly rname: string;
      readonly serial: number;
      readonly refresh: number;
      readonly retry: number;
      readonly expire: number;
      readonly minimum: number;
    }
  | { readonly kind: 'raw'; readonly bytes: Uint8Array };

export interface DnsRecord {
  readonly name: string;
  readonly type: number;
  readonly class: number;
  /** Seconds. */
  readonly ttl: number;
  readonly data: DnsRdata;
}

/** The meaningful fields of a message. */
export interface DnsRepr {
  readonly id: number;
  readonly response: boolean;
  readonly opcode: number;
  readonly authoritative: boolean;
  readonly truncated: boolean;
  readonly recursionDesired: boolean;
  readonly recursionAvailable: boolean;
  readonly authenticData: boolean;
  readonly checkingDisabled: boolean;
  readonly rcode: number;
  readonly questions: readonly DnsQuestion[];
  readonly answers: readonly DnsRecord[];
  readonly authorities: readonly DnsRecord[];
  readonly additionals: readonly DnsRecord[];
}

/** Reads the name at `at` of a checked message into presentation form. */
function readName(message: Uint8Array, at: number): string {
  const labels: string[] = [];
  let pos = at;
  for (;;) {
    const len = message[pos]!;
    if ((len & POINTER_MASK) === POINTER_MASK) {
      pos = ((len & 0x3f) << 8) | message[pos + 1]!;
      continue;
    }
    if (len === 0) return labels.join('.');
    let label = '';
    for (let i = pos + 1; i <= pos + len; i++) {
      const byte = message[i]!;
      if (byte === 0x2e || byte === 0x5c) label += `\\${String.fromCharCode(byte)}`;
      else if (byte <= 0x20 || byte >= 0x7f) label += `\\${byte.toString().padStart(3, '0')}`;
      else label += String.fromCharCode(byte);
    }
    labels.push(label);
    pos += 1 + len;
  }
}

/** A name in presentation form as label byte strings; undefined when a label is empty or too long. */
export function nameLabels(name: string): Uint8Array[] | undefined {
  if (name === '' || name === '.') return [];
  const labels: Uint8Array[] = [];
  let current: number[] = [];
  const text = name.endsWith('.') && !name.endsWith('\\.') ? name.slice(0, -1) : name;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) {
      const digits = /^\d{3}/.exec(text.slice(i + 1));
      if (digits !== null) {
        current.push(Number(digits[0]) & 0xff);
        i += 3;
      } else if (i + 1 < text.length) current.push(text.charCodeAt(++i) & 0xff);
      continue;
    }
    if (c === 0x2e) {
      if (current.length === 0 || current.length > MAX_LABEL_LEN) return undefined;
      labels.push(Uint8Array.from(current));
      current = [];
      continue;
    }
    current.push(c & 0xff);
  }
  if (current.length === 0 || current.length > MAX_LABEL_LEN) return undefined;
  labels.push(Uint8Array.from(current));
  return labels;
}

/** Reads a checked view into a repr. */
export function parseDns(view: DnsView): DnsRepr {
  const message = view.bytes.subarray(view.offset);
  let pos = DNS_HEADER_LEN;
  const questions: DnsQuestion[] = [];
  for (let i = view.questionCount; i > 0; i--) {
    const name = readName(message, pos);
    pos = skipName(message, pos) as number;
    questions.push({ name, type: readU16(message, pos + QTYPE), class: readU16(message, pos + QCLASS) });
    pos += QUESTION_FIXED_LEN;
  }
  const section = (count: number): DnsRecord[] => {
    const records: DnsRecord[] = [];
    for (let i = 0; i < count; i++) {
      const name = readName(message, pos);
      pos = skipName(message, pos) as number;
      const type = readU16(message, pos + RR_TYPE);
      const rdStart = pos + RR_FIXED_LEN;
      const rdEnd = rdStart + readU16(message, pos + RR_RDLENGTH);
      records.push({
        name,
        type,
        class: readU16(message, pos + RR_CLASS),
        ttl: readU32(message, pos + RR_TTL),
        data: readRdata(message, type, rdStart, rdEnd),
      });
      pos = rdEnd;
    }
    return records;
  };
  const answers = section(view.answerCount);
  const authorities = section(view.authorityCount);
  const additionals = section(view.additionalCount);
  return {
    id: view.id,
    response: view.response,
    opcode: view.opcode,
    authoritative: view.authoritative,
    truncated: view.truncated,
    recursionDesired: view.recursionDesired,
    recursionAvailable: view.recursionAvailable,
    authenticData: view.authenticData,
    checkingDisabled: view.checkingDisabled,
    rcode: view.rcode,
    questions,
    answers,
    authorities,
    additionals,
  };
}

function readRdata(message: Uint8Array, type: number, start: number, end: number): DnsRdata {
  switch (type) {
    case DNS_TYPE_A:
      return { kind: 'a', addr: readIpv4(message, start) };
    case DNS_TYPE_AAAA:
      return { kind: 'aaaa', addr: message.slice(start, end) };
    case DNS_TYPE_CNAME:
    case DNS_TYPE_NS:
    case DNS_TYPE_PTR:
      return { kind: 'name', name: readName(message, start) };
    case DNS_TYPE_SOA: {
      const mname = readName(message, start);
      const afterMname = skipName(message, start) as number;
      const rname = readName(message, afterMname);
      const fixed = skipName(message, afterMname) as number;
      return {
        kind: 'soa',
        mname,
        rname,
        serial: readU32(message, fixed + SOA_SERIAL),
        refresh: readU32(message, fixed + SOA_REFRESH),
        retry: readU32(message, fixed + SOA_RETRY),
        expire: readU32(message, fixed + SOA_EXPIRE),
        minimum: readU32(message, fixed + SOA_MINIMUM),
      };
    }
    default:
      return { kind: 'raw', bytes: message.slice(start, end) };
  }
}

/**
 * Writes names with compression: each suffix written before is offered, and a name ends in a
 * pointer to the longest one already in the message (case-insensitively, as servers compare).
 * With `bytes` undefined it only measures.
 */
class NameWriter {
  private readonly suffixes = new Map<string, number>();

  constructor(
    private readonly bytes: Uint8Array | undefined,
    private readonly base: number,
    private readonly compress: boolean,
  ) {}

  /** Writes `name` at message offset `at` and returns the offset after it. */
  write(name: string, at: number): number {
    const labels = nameLabels(name);
    if (labels === undefined) throw new RangeError(`emitDns: not a valid name: ${JSON.stringify(name)}`);
    let pos = at;
    for (let i = 0; i < labels.length; i++) {
      const key = suffixKey(labels, i);
      const pointer = this.compress ? this.suffixes.get(key) : undefined;
      if (pointer !== undefined) {
        if (this.bytes !== undefined) writeU16(this.bytes, this.base + pos, 0xc000 | pointer);
        return pos + 2;
      }
      if (this.compress && pos <= POINTER_MAX_OFFSET) this.suffixes.set(key, pos);
      const label = labels[i]!;
      if (this.bytes !== undefined) {
        this.bytes[this.base + pos] = label.length;
        this.bytes.set(label, this.base + pos + 1);
      }
      pos += 1 + label.length;
    }
    if (this.bytes !== undefined) this.bytes[this.base + pos] = 0;
    return pos + 1;
  }
}

function suffixKey(labels: readonly Uint8Array[], from: number): string {
  let key = '';
  for (let i = from; i < labels.length; i++) {
    for (const byte of labels[i]!)
      key += String.fromCharCode(byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte);
    key += '\u0000';
  }
  return key;
}

/** How the emitter writes names: compressed (what servers send), or in full (what stub resolvers send). */
export interface DnsEmitOptions {
  readonly compress: boolean;
}

/** Writes (or, without `bytes`, measures) the whole message; returns its length. */
function writeMessage(
  repr: DnsRepr,
  bytes: Uint8Array | undefined,
  base: number,
  options: DnsEmitOptions,
): number {
  const names = new NameWriter(bytes, base, options.compress);
  if (bytes !== undefined) {
    const view = DnsView.unchecked(bytes, base);
    view.id = repr.id;
    view.flags =
      (repr.response ? FLAG_QR : 0) |
      ((repr.opcode & 0xf) << OPCODE_SHIFT) |
      (repr.authoritative ? FLAG_AA : 0) |
      (repr.truncated ? FLAG_TC : 0) |
      (repr.recursionDesired ? FLAG_RD : 0) |
      (repr.recursionAvailable ? FLAG_RA : 0) |
      (repr.authenticData ? FLAG_AD : 0) |
      (repr.checkingDisabled ? FLAG_CD : 0) |
      (repr.rcode & 0xf);
    view.questionCount = repr.questions.length;
    view.answerCount = repr.answers.length;
    view.authorityCount = repr.authorities.length;
    view.additionalCount = repr.additionals.length;
  }
  let pos = DNS_HEADER_LEN;
  for (const question of repr.questions) {
    pos = names.write(question.name, pos);
    if (bytes !== undefined) {
      writeU16(bytes, base + pos + QTYPE, question.type);
      writeU16(bytes, base + pos + QCLASS, question.class);
    }
    pos += QUESTION_FIXED_LEN;
  }
  for (const section of [repr.answers, repr.authorities, repr.additionals])
    for (const record of section) {
      pos = names.write(record.name, pos);
      const rdStart = pos + RR_FIXED_LEN;
      const rdEnd = writeRdata(record.data, names, bytes, base, rdStart);
      if (bytes !== undefined) {
        writeU16(bytes, base + pos + RR_TYPE, record.type);
        writeU16(bytes, base + pos + RR_CLASS, record.class);
        writeU32(bytes, base + pos + RR_TTL, record.ttl);
        writeU16(bytes, base + pos + RR_RDLENGTH, rdEnd - rdStart);
      }
      pos = rdEnd;
    }
  return pos;
}

function writeRdata(
  data: DnsRdata,
  names: NameWriter,
  bytes: Uint8Array | undefined,
  base: number,
  at: number,
): number {
  switch (data.kind) {
    case 'a':
      if (bytes !== undefined) writeIpv4(bytes, base + at, data.addr);
      return at + 4;
    case 'aaaa':
      if (bytes !== undefined) bytes.set(data.addr.subarray(0, 16), base + at);
      return at + 16;
    case 'name':
      return names.write(data.name, at);
    case 'soa': {
      const fixed = names.write(data.rname, names.write(data.mname, at));
      if (bytes !== undefined) {
        writeU32(bytes, base + fixed + SOA_SERIAL, data.serial);
        writeU32(bytes, base + fixed + SOA_REFRESH, data.refresh);
        writeU32(bytes, base + fixed + SOA_RETRY, data.retry);
        writeU32(bytes, base + fixed + SOA_EXPIRE, data.expire);
        writeU32(bytes, base + fixed + SOA_MINIMUM, data.minimum);
      }
      return fixed + SOA_FIXED_LEN;
    }
    case 'raw':
      if (bytes !== undefined) bytes.set(data.bytes, base + at);
      return at + data.bytes.length;
    default: {
      const never: never = data;
      return never;
    }
  }
}

/** The length emitDns writes for `repr`. */
export function dnsMessageLen(repr: DnsRepr, options: DnsEmitOptions): number {
  return writeMessage(repr, undefined, 0, options);
}

/** Writes every byte of the message into `view` (sized with dnsMessageLen); returns the length. */
export function emitDns(repr: DnsRepr, view: DnsView, options: DnsEmitOptions): number {
  return writeMessage(repr, view.bytes, view.offset, options);
}

/** The message's bytes in a fresh buffer. */
export function encodeDns(repr: DnsRepr, options: DnsEmitOptions): Uint8Array {
  const bytes = new Uint8Array(dnsMessageLen(repr, options));
  emitDns(repr, DnsView.unchecked(bytes), options);
  return bytes;
}
