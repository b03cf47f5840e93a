// A pcapng reader (what Wireshark, dumpcap and editcap write), as libpcap's sf-pcapng.c reads it for tcpdump -r: sections, interface descriptions with their timestamp resolution and offset, enhanced, simple and obsolete packet blocks; no writer, no name resolution or statistics blocks (skipped), and every interface must share the first one's link type, as libpcap requires.
//
// Blocks (draft-ietf-opsawg-pcapng): type u32, total length u32, body, total length u32 again,
// in the byte order the section header's magic 0x1A2B3C4D shows. The records come out as
// PcapRecords with exact seconds and nanoseconds, so the printer does not care which format
// the file was. Bad input is a typed error with libpcap's text, never an exception.

import type { PcapDefect, PcapFile, PcapReadResult, PcapRecord } from './pcap.ts';

export const PCAPNG_BLOCK_SHB = 0x0a0d0d0a;
const BYTE_ORDER_MAGIC = 0x1a2b3c4d;
const BLOCK_IDB = 1;
const BLOCK_PB = 2;
const BLOCK_SPB = 3;
const BLOCK_EPB = 6;
const OPT_ENDOFOPT = 0;
const IF_TSRESOL = 9;
const IF_TSOFFSET = 14;
const NS_PER_SEC = 1_000_000_000n;

interface Interface {
  readonly linkType: number;
  readonly snapLen: number;
  /** Timestamp units per second (if_tsresol; 10^6 by default). */
  readonly unitsPerSecond: bigint;
  /** if_tsoffset: seconds added to every timestamp. */
  readonly offsetSeconds: bigint;
}

function truncated(wanted: number, got: number): string {
  return `truncated pcapng dump file; tried to read ${wanted} bytes, only got ${got}`;
}

/** True when the file starts with a pcapng section header block. */
export function isPcapng(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === PCAPNG_BLOCK_SHB
  );
}

/**
 * Parses a pcapng file into the classic reader's result: the header comes from the first
 * interface (libpcap's pcap_ng_check_header reads up to it), the records from the packet blocks.
 */
export function readPcapng(bytes: Uint8Array): PcapReadResult {
  const records: PcapRecord[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: Omit<PcapFile, 'records'> | undefined;
  let interfaces: Interface[] = [];
  let little = true;
  const fail = (error: PcapDefect, message: string, offset: number): PcapReadResult => ({
    ok: false,
    error,
    offset,
    message,
    header,
    records,
  });

  let at = 0;
  while (at < bytes.length) {
    const left = bytes.length - at;
    if (left < 8) return fail('pcap.truncated-record', truncated(8, left), at);
    const type = view.getUint32(at, little);
    if (type === PCAPNG_BLOCK_SHB) {
      // The section's own byte order, from the magic after the length.
      if (left < 12) return fail('pcap.truncated-header', truncated(12, left), at);
      const magicLittle = view.getUint32(at + 8, true);
      if (magicLittle === BYTE_ORDER_MAGIC) little = true;
      else if (view.getUint32(at + 8, false) === BYTE_ORDER_MAGIC) little = false;
      else return fail('pcap.bad-magic', 'unknown file format', at);
      const total = view.getUint32(at + 4, little);
      if (total < 28 || total % 4 !== 0)
        return fail('pcap.bad-magic', `block in pcapng dump file has a length of ${total} < 28`, at);
      if (left < total) return fail('pcap.truncated-header', truncated(total - 12, left - 12), at);
      const major = view.getUint16(at + 12, little);
      if (major !== 1)
        return fail(
          'pcap.bad-version',
          `unsupported pcapng savefile version ${major}.${view.getUint16(at + 14, little)}`,
          at,
        );
      interfaces = [];
      at += total;
      continue;
    }
    const total = view.getUint32(at + 4, little);
    if (total < 12 || total % 4 !== 0) {
      return fail('pcap.truncated-record', `block in pcapng dump file has a length of ${total} < 12`, at);
    }
    if (left < total) return fail('pcap.truncated-record', truncated(total - 8, left - 8), at);
    const body = at + 8;
    const bodyEnd = at + total - 4;
    switch (type) {
      case BLOCK_IDB: {
        const linkType = view.getUint16(body, little);
        const snapLen = view.getUint32(body + 4, little);
        const options = interfaceOptions(view, body + 8, bodyEnd, little);
        if (header !== undefined && linkType !== header.linkType) {
          return fail(
            'pcap.bad-version',
            `an interface has a type ${linkType} different from the type of the first interface`,
            at,
          );
        }
        interfaces.push({ linkType, snapLen, ...options });
        header ??= {
          byteOrder: little ? 'little' : 'big',
          resolution: options.unitsPerSecond > 1_000_000n ? 'nano' : 'micro',
          versionMajor: 1,
          versionMinor: 0,
          // A snapshot length of 0 means "no limit": libpcap reports the link type's maximum.
          snapLen: snapLen === 0 ? 262_144 : snapLen,
          linkType,
          linkTypeField: linkType,
        };
        break;
      }
      case BLOCK_EPB:
      case BLOCK_PB: {
        const id = type === BLOCK_EPB ? view.getUint32(body, little) : view.getUint16(body, little);
        const iface = interfaces[id];
        if (iface === undefined)
          return fail(
            'pcap.truncated-record',
            `a packet arrived on interface ${id}, but there's no Interface Description Block for that interface`,
            at,
          );
        const high = view.getUint32(body + 4, little);
        const low = view.getUint32(body + 8, little);
        const capLen = view.getUint32(body + 12, little);
        const origLen = view.getUint32(body + 16, little);
        const data = body + 20;
        if (data + capLen > bodyEnd)
          return fail(
            'pcap.truncated-record',
            `block total length ${total} is too small for the packet data`,
            at,
          );
        records.push(
          recordAt(iface, (BigInt(high) << 32n) | BigInt(low), bytes.subarray(data, data + capLen), origLen),
        );
        break;
      }
      case BLOCK_SPB: {
        const iface = interfaces[0];
        if (iface === undefined)
          return fail(
            'pcap.truncated-record',
            `a packet arrived on interface 0, but there's no Interface Description Block for that interface`,
            at,
          );
        const origLen = view.getUint32(body, little);
        const room = bodyEnd - (body + 4);
        const capLen = Math.min(origLen, room, iface.snapLen === 0 ? origLen : iface.snapLen);
        records.push(recordAt(iface, 0n, bytes.subarray(body + 4, body + 4 + capLen), origLen));
        break;
      }
      default:
        // Name resolution, statistics, custom and unknown blocks carry no packets.
        break;
    }
    at += total;
  }
  if (header === undefined) return fail('pcap.truncated-header', truncated(8, 0), at);
  return { ok: true, file: { ...header, records } };
}

/** if_tsresol and if_tsoffset from an interface's options. */
function interfaceOptions(
  view: DataView,
  start: number,
  end: number,
  little: boolean,
): { unitsPerSecond: bigint; offsetSeconds: bigint } {
  let unitsPerSecond = 1_000_000n;
  let offsetSeconds = 0n;
  for (let at = start; at + 4 <= end; ) {
    const code = view.getUint16(at, little);
    const length = view.getUint16(at + 2, little);
    if (code === OPT_ENDOFOPT || at + 4 + length > end) break;
    if (code === IF_TSRESOL && length >= 1) {
      const resol = view.getUint8(at + 4);
      unitsPerSecond = (resol & 0x80) !== 0 ? 1n << BigInt(resol & 0x7f) : 10n ** BigInt(resol);
    } else if (code === IF_TSOFFSET && length >= 8) {
      offsetSeconds = view.getBigInt64(at + 4, little);
    }
    at += 4 + ((length + 3) & ~3);
  }
  return { unitsPerSecond, offsetSeconds };
}

/** A record from a timestamp in the interface's units: exact seconds, nanoseconds truncated. */
function recordAt(iface: Interface, stamp: bigint, data: Uint8Array, origLen: number): PcapRecord {
  const seconds = stamp / iface.unitsPerSecond + iface.offsetSeconds;
  const fraction = stamp % iface.unitsPerSecond;
  const nanos = Number((fraction * NS_PER_SEC) / iface.unitsPerSecond);
  const wholeSeconds = Number(seconds);
  return { seconds: wholeSeconds, nanos, timeNs: wholeSeconds * 1e9 + nanos, origLen, data };
}
