import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LINKTYPE_ETHERNET,
  LINKTYPE_LINUX_SLL2,
  PCAP_FILE_HEADER_LEN,
  PCAP_RECORD_HEADER_LEN,
  PcapWriter,
  readPcap,
} from '../../src/capture/pcap.ts';
import { seconds } from '../../src/core/scheduler.ts';
import { hex, toHex } from '../support/bytes.ts';

// The global header as pcap-savefile(5) lays it out, little-endian, nanosecond magic.
const GOLDEN_HEADER = hex(`
  4d3cb2a1  # magic 0xa1b23c4d
  0200 0400 # version 2.4
  00000000  # thiszone
  00000000  # sigfigs
  00000400  # snaplen 262144
  01000000  # linktype 1 (Ethernet)
`);

function okFile(bytes: Uint8Array) {
  const result = readPcap(bytes);
  if (!result.ok) throw new Error(`${result.error} at ${result.offset}`);
  return result.file;
}

describe('pcap writer', () => {
  it('writes the golden global header and record header', () => {
    const writer = new PcapWriter();
    expect(toHex(writer.bytes())).toBe(toHex(GOLDEN_HEADER));
    writer.write(seconds(3) + 250, hex('deadbeef'));
    const record = hex(`
      03000000  # ts_sec 3
      fa000000  # ts_nsec 250
      04000000  # incl_len
      04000000  # orig_len
      deadbeef
    `);
    expect(toHex(writer.bytes())).toBe(toHex(GOLDEN_HEADER) + toHex(record));
    expect(writer.recordCount).toBe(1);
    expect(writer.byteLength).toBe(PCAP_FILE_HEADER_LEN + PCAP_RECORD_HEADER_LEN + 4);
  });

  it('writes the SLL2 link type and a chosen snaplen', () => {
    const bytes = new PcapWriter({ linkType: LINKTYPE_LINUX_SLL2, snapLen: 96 }).bytes();
    expect(toHex(bytes.subarray(16))).toBe('6000000014010000');
  });

  it('cuts frames to the snaplen and keeps the wire length', () => {
    const writer = new PcapWriter({ snapLen: 4 });
    writer.write(0, hex('0102030405060708'));
    writer.write(1, hex('aa'), 60);
    const file = okFile(writer.bytes());
    expect(file.records.map((r) => [toHex(r.data), r.origLen])).toEqual([
      ['01020304', 8],
      ['aa', 60],
    ]);
  });

  it('round-trips many records across chunk boundaries, and one larger than a chunk', () => {
    const writer = new PcapWriter();
    const frames: Uint8Array[] = [];
    for (let i = 0; i < 120; i++) frames.push(new Uint8Array(1500).fill(i));
    frames.push(new Uint8Array(200_000).map((_, i) => i & 0xff));
    for (const [i, frame] of frames.entries()) writer.write(i * 1000, frame);
    const bytes = writer.bytes();
    expect(bytes.length).toBe(writer.byteLength);
    const file = okFile(bytes);
    expect(file).toMatchObject({
      byteOrder: 'little',
      resolution: 'nano',
      versionMajor: 2,
      versionMinor: 4,
      snapLen: 262_144,
      linkType: LINKTYPE_ETHERNET,
    });
    expect(file.records.length).toBe(frames.length);
    file.records.forEach((record, i) => {
      expect(record.timeNs).toBe(i * 1000);
      expect(record.origLen).toBe(frames[i]!.length);
      expect(Buffer.compare(record.data, frames[i]!)).toBe(0);
    });
  });

  it('keeps working after bytes() and does not alias the caller frame', () => {
    const writer = new PcapWriter();
    const frame = hex('01');
    writer.write(5, frame);
    const first = writer.bytes();
    frame[0] = 0xff;
    writer.write(6, hex('02'));
    const second = okFile(writer.bytes());
    expect(second.records.map((r) => toHex(r.data))).toEqual(['01', '02']);
    expect(okFile(first).records.length).toBe(1);
  });

  it('splits the virtual clock into seconds and nanoseconds exactly, even near 2^53', () => {
    const writer = new PcapWriter();
    const times = [0, 999_999_999, seconds(86_400) + 1, Number.MAX_SAFE_INTEGER];
    for (const time of times) writer.write(time, hex('00'));
    expect(okFile(writer.bytes()).records.map((r) => r.timeNs)).toEqual(times);
  });

  it('throws for programmer errors', () => {
    const writer = new PcapWriter();
    expect(() => writer.write(-1, hex('00'))).toThrow(RangeError);
    expect(() => writer.write(1.5, hex('00'))).toThrow(RangeError);
    expect(() => writer.write(0, hex('0000'), 1)).toThrow(RangeError);
    expect(() => new PcapWriter({ snapLen: 0 })).toThrow(RangeError);
    expect(() => new PcapWriter({ linkType: -1 })).toThrow(RangeError);
  });
});

describe('pcap reader', () => {
  it('reads a big-endian microsecond file', () => {
    const file = okFile(
      hex(`
        a1b2c3d4 0002 0004 00000000 00000000 0000ffff 00000001
        00000002 000f4240 00000002 0000003c abcd  # 2 s and 1000000 µs (out of range, read as given)
      `),
    );
    expect(file).toMatchObject({ byteOrder: 'big', resolution: 'micro', snapLen: 65535, linkType: 1 });
    expect(file.records).toHaveLength(1);
    expect(file.records[0]!.timeNs).toBe(3_000_000_000);
    expect(file.records[0]!.origLen).toBe(60);
    expect(toHex(file.records[0]!.data)).toBe('abcd');
  });

  it('reads a little-endian microsecond file and a big-endian nanosecond file', () => {
    const micro = okFile(
      hex('d4c3b2a1 0200 0400 00000000 00000000 ffff0000 01000000  01000000 07000000 01000000 01000000 ee'),
    );
    expect(micro).toMatchObject({ byteOrder: 'little', resolution: 'micro' });
    expect(micro.records[0]!.timeNs).toBe(1_000_007_000);
    const nano = okFile(
      hex('a1b23c4d 0002 0004 00000000 00000000 00040000 00000114  00000001 00000007 00000000 00000000'),
    );
    expect(nano).toMatchObject({ byteOrder: 'big', resolution: 'nano', linkType: LINKTYPE_LINUX_SLL2 });
    expect(nano.records[0]!.timeNs).toBe(1_000_000_007);
    expect(nano.records[0]!.data.length).toBe(0);
  });

  it('reads a file with no records', () => {
    expect(okFile(GOLDEN_HEADER).records).toEqual([]);
  });

  it('reads at a byte offset inside a larger buffer', () => {
    const writer = new PcapWriter();
    writer.write(42, hex('beef'));
    const inner = writer.bytes();
    const outer = new Uint8Array(inner.length + 3);
    outer.set(inner, 3);
    const file = okFile(outer.subarray(3));
    expect(file.records[0]!.timeNs).toBe(42);
    expect(toHex(file.records[0]!.data)).toBe('beef');
  });

  it('pcap.truncated-header', () => {
    expect(readPcap(GOLDEN_HEADER.subarray(0, 23))).toMatchObject({
      ok: false,
      error: 'pcap.truncated-header',
      offset: 0,
    });
    expect(readPcap(new Uint8Array(0))).toMatchObject({ ok: false, error: 'pcap.truncated-header' });
  });

  it('pcap.bad-magic', () => {
    const pcapng = hex('0a0d0d0a 1c000000 4d3c2b1a 01000000 ffffffff ffffffff');
    expect(readPcap(pcapng)).toMatchObject({ ok: false, error: 'pcap.bad-magic', offset: 0 });
    const modified = GOLDEN_HEADER.slice();
    modified.set(hex('34cdb2a1'), 0); // the "modified" (Kuznetzov) format is not supported
    expect(readPcap(modified)).toMatchObject({ ok: false, error: 'pcap.bad-magic' });
  });

  it("pcap.archaic-version and pcap.bad-version, with libpcap's messages", () => {
    const archaic = GOLDEN_HEADER.slice();
    archaic[4] = 1;
    expect(readPcap(archaic)).toMatchObject({
      ok: false,
      error: 'pcap.archaic-version',
      message: 'archaic pcap savefile format',
    });
    const newer = GOLDEN_HEADER.slice();
    newer[6] = 5;
    expect(readPcap(newer)).toMatchObject({
      ok: false,
      error: 'pcap.bad-version',
      message: 'unsupported pcap savefile version 2.5',
    });
  });

  it('says what libpcap says of a cut header, an unknown magic and a cut record', () => {
    const message = (bytes: Uint8Array) => {
      const result = readPcap(bytes);
      return result.ok ? 'ok' : result.message;
    };
    expect(message(new Uint8Array(0))).toBe(
      'truncated dump file; tried to read 4 file header bytes, only got 0',
    );
    expect(message(GOLDEN_HEADER.subarray(0, 3))).toBe(
      'truncated dump file; tried to read 4 file header bytes, only got 3',
    );
    expect(message(GOLDEN_HEADER.subarray(0, 10))).toBe(
      'truncated dump file; tried to read 24 file header bytes, only got 6',
    );
    expect(message(new TextEncoder().encode('not a capture at all'))).toBe('unknown file format');
    const writer = new PcapWriter();
    writer.write(1, new Uint8Array(60));
    const bytes = writer.bytes();
    expect(message(bytes.subarray(0, 24 + 8))).toBe(
      'truncated dump file; tried to read 16 header bytes, only got 8',
    );
    expect(message(bytes.subarray(0, 24 + 16 + 2))).toBe(
      'truncated dump file; tried to read 60 captured bytes, only got 2',
    );
    const huge = hex(
      '4d3cb2a1 0200 0400 00000000 00000000 00000400 01000000  01000000 00000000 e0930400 e0930400',
    );
    expect(readPcap(huge)).toMatchObject({
      error: 'pcap.record-too-long',
      message: 'invalid packet capture length 300000, bigger than snaplen of 262144',
    });
  });

  it('masks the link-type field as LT_LINKTYPE does (the FCS length bits)', () => {
    const withFcs = GOLDEN_HEADER.slice();
    new DataView(withFcs.buffer).setUint32(20, 0x2400_0001, true);
    expect(okFile(withFcs)).toMatchObject({ linkType: 1, linkTypeField: 0x2400_0001 });
  });

  it("keeps a real capture's seconds and fraction exact", () => {
    // 2023-11-14 22:13:20.123456789 and .999999 µs: as one float of ns the last digits are lost.
    const nano = okFile(
      hex('a1b23c4d 0002 0004 00000000 00000000 00040000 00000001  6553f100 075bcd15 00000000 00000000'),
    );
    expect(nano.records[0]).toMatchObject({ seconds: 1_700_000_000, nanos: 123_456_789 });
    const micro = okFile(
      hex('a1b2c3d4 0002 0004 00000000 00000000 00040000 00000001  6553f100 000f423f 00000000 00000000'),
    );
    expect(micro.records[0]).toMatchObject({ seconds: 1_700_000_000, nanos: 999_999_000 });
  });

  it('writes a microsecond file, truncating the nanoseconds, as tcpdump -w does', () => {
    const writer = new PcapWriter({ resolution: 'micro' });
    writer.write(seconds(2) + 123_456_789, hex('ab'));
    const file = okFile(writer.bytes());
    expect(file.resolution).toBe('micro');
    expect(toHex(writer.bytes().subarray(0, 4))).toBe('d4c3b2a1');
    expect(file.records[0]).toMatchObject({ seconds: 2, nanos: 123_456_000 });
  });

  it('pcap.truncated-record, in the record header and in the data, keeping the records before', () => {
    const writer = new PcapWriter();
    writer.write(1, hex('0102'));
    writer.write(2, hex('030405'));
    const bytes = writer.bytes();
    const secondAt = PCAP_FILE_HEADER_LEN + PCAP_RECORD_HEADER_LEN + 2;
    for (const cut of [secondAt + 1, secondAt + PCAP_RECORD_HEADER_LEN - 1, bytes.length - 1]) {
      const result = readPcap(bytes.subarray(0, cut));
      expect(result).toMatchObject({ ok: false, error: 'pcap.truncated-record', offset: secondAt });
      if (result.ok) throw new Error('unreachable');
      expect(result.records.map((r) => toHex(r.data))).toEqual(['0102']);
    }
  });

  it('never throws on random bytes, with or without a valid header', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.uint8Array({ maxLength: 200 }), (withHeader, tail) => {
        const bytes = new Uint8Array((withHeader ? GOLDEN_HEADER.length : 0) + tail.length);
        if (withHeader) bytes.set(GOLDEN_HEADER);
        bytes.set(tail, withHeader ? GOLDEN_HEADER.length : 0);
        const result = readPcap(bytes);
        if (result.ok)
          for (const record of result.file.records)
            expect(record.data.length).toBeLessThanOrEqual(bytes.length);
      }),
    );
  });
});
