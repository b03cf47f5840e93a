// Classic libpcap capture files: a writer (little-endian, nanosecond or microsecond timestamps) and a reader for both byte orders and both timestamp resolutions, as libpcap's sf-pcap.c reads them; no pcapng, no modified (Kuznetzov) format.
//
// File layout (pcap-savefile(5), draft-ietf-opsawg-pcap), all fields in the writer's byte order:
//
//   global header, 24 bytes               record header, 16 bytes, then incl_len bytes
//   +0  magic          u32                +0  ts_sec    u32
//   +4  version_major  u16 (2)            +4  ts_frac   u32  (µs or ns, by magic)
//   +6  version_minor  u16 (4)            +8  incl_len  u32  (bytes stored)
//   +8  thiszone       i32 (0)            +12 orig_len  u32  (bytes on the wire)
//   +12 sigfigs        u32 (0)
//   +16 snaplen        u32
//   +20 linktype       u32
//
// Pure TypeScript over Uint8Array, no Node Buffer: it runs in a browser. The writer takes the
// scheduler's virtual nanoseconds. The reader keeps each record's seconds and fraction as the
// integers the file holds (a real capture's date in nanoseconds is beyond 2^53 and would lose
// its last digits as one number); `timeNs` is their sum for virtual-time files.
//
// The link-type field is masked as libpcap's LT_LINKTYPE masks it (the top bits carry the FCS
// length, LT_FCS_LENGTH), and the errors are libpcap's: a bad magic is `unknown file format`,
// a cut header or record `truncated dump file; tried to read N ... bytes, only got M`.

import { NS_PER_SEC, NS_PER_US } from '../core/scheduler.ts';

export const PCAP_MAGIC_MICROS = 0xa1b2c3d4;
export const PCAP_MAGIC_NANOS = 0xa1b23c4d;
export const PCAP_VERSION_MAJOR = 2;
export const PCAP_VERSION_MINOR = 4;
/** tcpdump's default snapshot length (MAXIMUM_SNAPLEN in libpcap). */
export const PCAP_DEFAULT_SNAPLEN = 262_144;
/** Frames start with an Ethernet II header. */
export const LINKTYPE_ETHERNET = 1;
/** Frames start with the 16-byte Linux "cooked" v1 header (`tcpdump -y LINUX_SLL -i any`). */
export const LINKTYPE_LINUX_SLL = 113;
/** Frames start with the 20-byte Linux "cooked" v2 header (what `tcpdump -i any` writes). */
export const LINKTYPE_LINUX_SLL2 = 276;
/** LT_LINKTYPE: the link type's bits of the header's field; the rest is LT_LINKTYPE_EXT. */
export const LT_LINKTYPE_MASK = 0x03ff_ffff;

const MAGIC = 0;
const VERSION_MAJOR = 4;
const VERSION_MINOR = 6;
const THISZONE = 8;
const SIGFIGS = 12;
const SNAPLEN = 16;
const LINKTYPE = 20;
export const PCAP_FILE_HEADER_LEN = LINKTYPE + 4;

const TS_SEC = 0;
const TS_FRAC = 4;
const INCL_LEN = 8;
const ORIG_LEN = 12;
export const PCAP_RECORD_HEADER_LEN = ORIG_LEN + 4;

/** Every way a capture file can fail to read. */
export type PcapDefect =
  | 'pcap.truncated-header'
  | 'pcap.bad-magic'
  | 'pcap.archaic-version'
  | 'pcap.bad-version'
  | 'pcap.truncated-record'
  | 'pcap.record-too-long';

export interface PcapWriterOptions {
  /** LINKTYPE_ETHERNET (default) or LINKTYPE_LINUX_SLL2; any other DLT value is written as given. */
  readonly linkType?: number;
  /** Bytes kept of each frame, as `tcpdump -s`; default 262144. */
  readonly snapLen?: number;
  /** Timestamp resolution: `nano` (default, magic 0xa1b23c4d) or `micro` (0xa1b2c3d4, what tcpdump -w writes by default; nanoseconds are truncated). */
  readonly resolution?: 'micro' | 'nano';
}

const FIRST_CHUNK = 64 * 1024;
const MAX_CHUNK = 4 * 1024 * 1024;

/** Accumulates records in memory and hands back the finished file's bytes. */
export class PcapWriter {
  readonly linkType: number;
  readonly snapLen: number;
  readonly resolution: 'micro' | 'nano';
  private readonly chunks: Uint8Array[] = [];
  private chunk: Uint8Array;
  private view: DataView;
  private used = 0;
  private filled = 0;
  private records = 0;

  constructor(options: PcapWriterOptions = {}) {
    this.linkType = options.linkType ?? LINKTYPE_ETHERNET;
    this.snapLen = options.snapLen ?? PCAP_DEFAULT_SNAPLEN;
    this.resolution = options.resolution ?? 'nano';
    if (!Number.isInteger(this.linkType) || this.linkType < 0 || this.linkType > 0xffff_ffff) {
      throw new RangeError(`PcapWriter: bad link type ${this.linkType}`);
    }
    if (!Number.isInteger(this.snapLen) || this.snapLen < 1 || this.snapLen > 0xffff_ffff) {
      throw new RangeError(`PcapWriter: bad snaplen ${this.snapLen}`);
    }
    this.chunk = new Uint8Array(FIRST_CHUNK);
    this.view = new DataView(this.chunk.buffer, this.chunk.byteOffset, this.chunk.byteLength);
    this.writeFileHeader();
  }

  /** Records written so far. */
  get recordCount(): number {
    return this.records;
  }

  /** The size of the file so far, in bytes. */
  get byteLength(): number {
    return this.filled + this.used;
  }

  /**
   * Appends one record stamped `timeNs` (virtual nanoseconds). The frame is copied, cut to
   * the snaplen; `origLen` is its length on the wire (default: the whole frame).
   */
  write(timeNs: number, frame: Uint8Array, origLen: number = frame.length): void {
    if (!Number.isSafeInteger(timeNs) || timeNs < 0) {
      throw new RangeError(`PcapWriter.write: time must be a non-negative integer of ns, got ${timeNs}`);
    }
    const seconds = Math.floor(timeNs / NS_PER_SEC);
    this.writeAt(seconds, timeNs - seconds * NS_PER_SEC, frame, origLen);
  }

  /**
   * Appends one record stamped `seconds` and `nanos` as a capture file holds them (a real
   * capture's date, which one number of nanoseconds cannot carry exactly). A microsecond
   * file keeps the microseconds, truncated.
   */
  writeAt(seconds: number, nanos: number, frame: Uint8Array, origLen: number = frame.length): void {
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 0xffff_ffff) {
      throw new RangeError(`PcapWriter.write: bad seconds ${seconds}`);
    }
    const fraction = this.resolution === 'nano' ? nanos : Math.floor(nanos / NS_PER_US);
    if (!Number.isInteger(nanos) || nanos < 0 || fraction > 0xffff_ffff) {
      throw new RangeError(`PcapWriter.write: bad nanoseconds ${nanos}`);
    }
    if (!Number.isInteger(origLen) || origLen < frame.length || origLen > 0xffff_ffff) {
      throw new RangeError(`PcapWriter.write: orig_len ${origLen} below the frame's ${frame.length} bytes`);
    }
    const inclLen = Math.min(frame.length, this.snapLen);
    this.reserve(PCAP_RECORD_HEADER_LEN + inclLen);
    const at = this.used;
    this.view.setUint32(at + TS_SEC, seconds, true);
    this.view.setUint32(at + TS_FRAC, fraction, true);
    this.view.setUint32(at + INCL_LEN, inclLen, true);
    this.view.setUint32(at + ORIG_LEN, origLen, true);
    this.chunk.set(
      inclLen === frame.length ? frame : frame.subarray(0, inclLen),
      at + PCAP_RECORD_HEADER_LEN,
    );
    this.used = at + PCAP_RECORD_HEADER_LEN + inclLen;
    this.records++;
  }

  /** The file so far as one new array; the writer stays usable. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.byteLength);
    let at = 0;
    for (const done of this.chunks) {
      out.set(done, at);
      at += done.length;
    }
    out.set(this.chunk.subarray(0, this.used), at);
    return out;
  }

  private writeFileHeader(): void {
    const view = this.view;
    view.setUint32(MAGIC, this.resolution === 'nano' ? PCAP_MAGIC_NANOS : PCAP_MAGIC_MICROS, true);
    view.setUint16(VERSION_MAJOR, PCAP_VERSION_MAJOR, true);
    view.setUint16(VERSION_MINOR, PCAP_VERSION_MINOR, true);
    view.setInt32(THISZONE, 0, true);
    view.setUint32(SIGFIGS, 0, true);
    view.setUint32(SNAPLEN, this.snapLen, true);
    view.setUint32(LINKTYPE, this.linkType, true);
    this.used = PCAP_FILE_HEADER_LEN;
  }

  /** Makes room for `len` contiguous bytes, closing the current chunk if it is too full. */
  private reserve(len: number): void {
    if (this.used + len <= this.chunk.length) return;
    this.chunks.push(this.chunk.subarray(0, this.used));
    this.filled += this.used;
    const size = Math.max(len, Math.min(this.chunk.length * 2, MAX_CHUNK));
    this.chunk = new Uint8Array(size);
    this.view = new DataView(this.chunk.buffer, this.chunk.byteOffset, this.chunk.byteLength);
    this.used = 0;
  }
}

/** One captured frame. */
export interface PcapRecord {
  /** ts_sec: whole seconds since the epoch (or of virtual time). */
  readonly seconds: number;
  /** ts_frac in nanoseconds, exact (a microsecond file's value times 1000); not checked below 1e9. */
  readonly nanos: number;
  /** seconds * 1e9 + nanos: exact for virtual time, rounded for dates after April 1970. */
  readonly timeNs: number;
  /** Length of the frame on the wire; `data` may be shorter when the snaplen cut it. */
  readonly origLen: number;
  /** The stored bytes: a view into the file's buffer, not a copy. */
  readonly data: Uint8Array;
}

export interface PcapFile {
  readonly byteOrder: 'little' | 'big';
  readonly resolution: 'micro' | 'nano';
  readonly versionMajor: number;
  readonly versionMinor: number;
  readonly snapLen: number;
  /** The link type, LT_LINKTYPE(field): the header's value with the FCS bits masked off. */
  readonly linkType: number;
  /** The header's link-type field as stored, FCS bits included. */
  readonly linkTypeField: number;
  readonly records: PcapRecord[];
}

export type PcapReadResult =
  | { readonly ok: true; readonly file: PcapFile }
  | {
      readonly ok: false;
      readonly error: PcapDefect;
      /** Byte offset of the header or record that failed. */
      readonly offset: number;
      /** libpcap's error text for the defect (what tcpdump prints after `tcpdump: `). */
      readonly message: string;
      /** The header, when it was read (a record's defect); undefined for a header's. */
      readonly header: Omit<PcapFile, 'records'> | undefined;
      /** The records read before the defect (a capture cut short still shows its start). */
      readonly records: PcapRecord[];
    };

function truncated(what: string, wanted: number, got: number): string {
  return `truncated dump file; tried to read ${wanted} ${what} bytes, only got ${got}`;
}

/** Parses a classic pcap file (sf-pcap.c's pcap_check_header and pcap_next_packet); bad or truncated input is a typed error, never an exception. */
export function readPcap(bytes: Uint8Array): PcapReadResult {
  const records: PcapRecord[] = [];
  const failHeader = (error: PcapDefect, message: string): PcapReadResult => ({
    ok: false,
    error,
    offset: 0,
    message,
    header: undefined,
    records,
  });
  // libpcap reads the magic number first, then the rest of the header.
  if (bytes.length < 4) return failHeader('pcap.truncated-header', truncated('file header', 4, bytes.length));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magicBig = view.getUint32(MAGIC, false);
  const magicLittle = view.getUint32(MAGIC, true);
  let littleEndian: boolean;
  let fracNs: number;
  if (magicLittle === PCAP_MAGIC_NANOS || magicLittle === PCAP_MAGIC_MICROS) {
    littleEndian = true;
    fracNs = magicLittle === PCAP_MAGIC_NANOS ? 1 : NS_PER_US;
  } else if (magicBig === PCAP_MAGIC_NANOS || magicBig === PCAP_MAGIC_MICROS) {
    littleEndian = false;
    fracNs = magicBig === PCAP_MAGIC_NANOS ? 1 : NS_PER_US;
  } else {
    return failHeader('pcap.bad-magic', 'unknown file format');
  }
  if (bytes.length < PCAP_FILE_HEADER_LEN) {
    return failHeader(
      'pcap.truncated-header',
      truncated('file header', PCAP_FILE_HEADER_LEN, bytes.length - 4),
    );
  }
  const versionMajor = view.getUint16(VERSION_MAJOR, littleEndian);
  const versionMinor = view.getUint16(VERSION_MINOR, littleEndian);
  if (versionMajor < PCAP_VERSION_MAJOR)
    return failHeader('pcap.archaic-version', 'archaic pcap savefile format');
  // Versions 2.0 to 2.4 read the same (and 543.0, DG/UX's, which nobody writes any more).
  if (!(versionMajor === PCAP_VERSION_MAJOR && versionMinor <= PCAP_VERSION_MINOR)) {
    return failHeader(
      'pcap.bad-version',
      `unsupported pcap savefile version ${versionMajor}.${versionMinor}`,
    );
  }
  const linkTypeField = view.getUint32(LINKTYPE, littleEndian);
  const header = {
    byteOrder: littleEndian ? ('little' as const) : ('big' as const),
    resolution: fracNs === 1 ? ('nano' as const) : ('micro' as const),
    versionMajor,
    versionMinor,
    snapLen: view.getUint32(SNAPLEN, littleEndian),
    linkType: (linkTypeField & LT_LINKTYPE_MASK) >>> 0,
    linkTypeField,
  };

  let at = PCAP_FILE_HEADER_LEN;
  while (at < bytes.length) {
    const failRecord = (message: string, error: PcapDefect = 'pcap.truncated-record'): PcapReadResult => ({
      ok: false,
      error,
      offset: at,
      message,
      header,
      records,
    });
    if (bytes.length - at < PCAP_RECORD_HEADER_LEN) {
      return failRecord(truncated('header', PCAP_RECORD_HEADER_LEN, bytes.length - at));
    }
    const seconds = view.getUint32(at + TS_SEC, littleEndian);
    const frac = view.getUint32(at + TS_FRAC, littleEndian);
    const inclLen = view.getUint32(at + INCL_LEN, littleEndian);
    const origLen = view.getUint32(at + ORIG_LEN, littleEndian);
    const start = at + PCAP_RECORD_HEADER_LEN;
    // pcap_next_packet refuses a record larger than any link type's maximum snapshot length.
    if (inclLen > PCAP_DEFAULT_SNAPLEN) {
      return failRecord(
        `invalid packet capture length ${inclLen}, bigger than snaplen of ${PCAP_DEFAULT_SNAPLEN}`,
        'pcap.record-too-long',
      );
    }
    if (bytes.length - start < inclLen) {
      return failRecord(truncated('captured', inclLen, bytes.length - start));
    }
    const nanos = frac * fracNs;
    records.push({
      seconds,
      nanos,
      timeNs: seconds * NS_PER_SEC + nanos,
      origLen,
      data: bytes.subarray(start, start + inclLen),
    });
    at = start + inclLen;
  }
  return { ok: true, file: { ...header, records } };
}
