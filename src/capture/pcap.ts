// Classic libpcap capture files: a writer (nanosecond timestamps, little-endian) and a reader for both byte orders and both timestamp resolutions; no pcapng, no modified (Kuznetzov) format.
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
// Pure TypeScript over Uint8Array, no Node Buffer: it runs in a browser. Timestamps are the
// scheduler's virtual nanoseconds.

import { NS_PER_SEC, NS_PER_US } from '../core/scheduler.ts';

export const PCAP_MAGIC_MICROS = 0xa1b2c3d4;
export const PCAP_MAGIC_NANOS = 0xa1b23c4d;
export const PCAP_VERSION_MAJOR = 2;
export const PCAP_VERSION_MINOR = 4;
/** tcpdump's default snapshot length (MAXIMUM_SNAPLEN in libpcap). */
export const PCAP_DEFAULT_SNAPLEN = 262_144;
/** Frames start with an Ethernet II header. */
export const LINKTYPE_ETHERNET = 1;
/** Frames start with the 20-byte Linux "cooked" v2 header (what `tcpdump -i any` writes). */
export const LINKTYPE_LINUX_SLL2 = 276;

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
  | 'pcap.bad-version'
  | 'pcap.truncated-record';

export interface PcapWriterOptions {
  /** LINKTYPE_ETHERNET (default) or LINKTYPE_LINUX_SLL2; any other DLT value is written as given. */
  readonly linkType?: number;
  /** Bytes kept of each frame, as `tcpdump -s`; default 262144. */
  readonly snapLen?: number;
}

const FIRST_CHUNK = 64 * 1024;
const MAX_CHUNK = 4 * 1024 * 1024;

/** Accumulates records in memory and hands back the finished file's bytes. */
export class PcapWriter {
  readonly linkType: number;
  readonly snapLen: number;
  private readonly chunks: Uint8Array[] = [];
  private chunk: Uint8Array;
  private view: DataView;
  private used = 0;
  private filled = 0;
  private records = 0;

  constructor(options: PcapWriterOptions = {}) {
    this.linkType = options.linkType ?? LINKTYPE_ETHERNET;
    this.snapLen = options.snapLen ?? PCAP_DEFAULT_SNAPLEN;
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
    if (!Number.isInteger(origLen) || origLen < frame.length || origLen > 0xffff_ffff) {
      throw new RangeError(`PcapWriter.write: orig_len ${origLen} below the frame's ${frame.length} bytes`);
    }
    const inclLen = Math.min(frame.length, this.snapLen);
    this.reserve(PCAP_RECORD_HEADER_LEN + inclLen);
    const at = this.used;
    const seconds = Math.floor(timeNs / NS_PER_SEC);
    this.view.setUint32(at + TS_SEC, seconds, true);
    this.view.setUint32(at + TS_FRAC, timeNs - seconds * NS_PER_SEC, true);
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
    view.setUint32(MAGIC, PCAP_MAGIC_NANOS, true);
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
  /** Capture time in nanoseconds (microsecond files are scaled by 1000). */
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
  readonly linkType: number;
  readonly records: PcapRecord[];
}

export type PcapReadResult =
  | { readonly ok: true; readonly file: PcapFile }
  | {
      readonly ok: false;
      readonly error: PcapDefect;
      /** Byte offset of the header or record that failed. */
      readonly offset: number;
      /** The records read before the defect (a capture cut short still shows its start). */
      readonly records: PcapRecord[];
    };

/** Parses a classic pcap file; bad or truncated input is a typed error, never an exception. */
export function readPcap(bytes: Uint8Array): PcapReadResult {
  const records: PcapRecord[] = [];
  if (bytes.length < PCAP_FILE_HEADER_LEN) {
    return { ok: false, error: 'pcap.truncated-header', offset: 0, records };
  }
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
    return { ok: false, error: 'pcap.bad-magic', offset: 0, records };
  }
  const versionMajor = view.getUint16(VERSION_MAJOR, littleEndian);
  const versionMinor = view.getUint16(VERSION_MINOR, littleEndian);
  // libpcap accepts major 2 only (older ones are "archaic"); any minor reads the same.
  if (versionMajor !== PCAP_VERSION_MAJOR)
    return { ok: false, error: 'pcap.bad-version', offset: 0, records };

  let at = PCAP_FILE_HEADER_LEN;
  while (at < bytes.length) {
    if (bytes.length - at < PCAP_RECORD_HEADER_LEN) {
      return { ok: false, error: 'pcap.truncated-record', offset: at, records };
    }
    const seconds = view.getUint32(at + TS_SEC, littleEndian);
    const frac = view.getUint32(at + TS_FRAC, littleEndian);
    const inclLen = view.getUint32(at + INCL_LEN, littleEndian);
    const origLen = view.getUint32(at + ORIG_LEN, littleEndian);
    const start = at + PCAP_RECORD_HEADER_LEN;
    if (bytes.length - start < inclLen) {
      return { ok: false, error: 'pcap.truncated-record', offset: at, records };
    }
    records.push({
      timeNs: seconds * NS_PER_SEC + frac * fracNs,
      origLen,
      data: bytes.subarray(start, start + inclLen),
    });
    at = start + inclLen;
  }
  return {
    ok: true,
    file: {
      byteOrder: littleEndian ? 'little' : 'big',
      resolution: fracNs === 1 ? 'nano' : 'micro',
      versionMajor,
      versionMinor,
      snapLen: view.getUint32(SNAPLEN, littleEndian),
      linkType: view.getUint32(LINKTYPE, littleEndian),
      records,
    },
  };
}
