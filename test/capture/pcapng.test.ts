// The pcapng reader on hand-built blocks: timestamp resolutions and offsets, simple and enhanced packet blocks, big-endian
// sections, the link-type rule and random bytes. Files written by editcap are compared with the real tcpdump in
// test/tools/tcpdump-read.test.ts.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPcapng, readPcapng } from '../../src/capture/pcapng.ts';

/** One block: type, total length, body padded to 4, total length again (little-endian unless `big`). */
function block(type: number, body: number[], big = false): number[] {
  const padded = [...body, ...new Array((4 - (body.length % 4)) % 4).fill(0)];
  const total = padded.length + 12;
  return [...u32(type, big), ...u32(total, big), ...padded, ...u32(total, big)];
}
function u32(n: number, big = false): number[] {
  const b = [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  return big ? b : b.reverse();
}
function u16(n: number, big = false): number[] {
  const b = [(n >>> 8) & 0xff, n & 0xff];
  return big ? b : b.reverse();
}
const SHB = (big = false) =>
  block(
    0x0a0d0d0a,
    [...u32(0x1a2b3c4d, big), ...u16(1, big), ...u16(0, big), ...new Array(8).fill(0xff)],
    big,
  );
const option = (code: number, value: number[]) => [
  ...u16(code),
  ...u16(value.length),
  ...value,
  ...new Array((4 - (value.length % 4)) % 4).fill(0),
];
const IDB = (linkType: number, options: number[] = [], big = false) =>
  block(1, [...u16(linkType, big), 0, 0, ...u32(0, big), ...options], big);
const EPB = (iface: number, stamp: bigint, data: number[], big = false) =>
  block(
    6,
    [
      ...u32(iface, big),
      ...u32(Number(stamp >> 32n), big),
      ...u32(Number(stamp & 0xffffffffn), big),
      ...u32(data.length, big),
      ...u32(data.length + 10, big),
      ...data,
    ],
    big,
  );

function read(...blocks: number[][]) {
  const result = readPcapng(new Uint8Array(blocks.flat()));
  if (!result.ok) throw new Error(result.message);
  return result.file;
}

describe('pcapng reader', () => {
  it('reads microsecond stamps by default, exact seconds and nanoseconds, and a snaplen of 0 as the maximum', () => {
    const file = read(SHB(), IDB(1), EPB(0, 1_700_000_000_123_456n, [1, 2, 3]));
    expect(file).toMatchObject({ linkType: 1, snapLen: 262_144, resolution: 'micro' });
    expect(file.records[0]).toMatchObject({ seconds: 1_700_000_000, nanos: 123_456_000, origLen: 13 });
    expect([...file.records[0]!.data]).toEqual([1, 2, 3]);
  });

  it('follows if_tsresol (10^-9 and 2^-10) and if_tsoffset', () => {
    const nano = read(SHB(), IDB(276, option(9, [9])), EPB(0, 1_700_000_000_123_456_789n, []));
    expect(nano).toMatchObject({ linkType: 276, resolution: 'nano' });
    expect(nano.records[0]).toMatchObject({ seconds: 1_700_000_000, nanos: 123_456_789 });
    const binary = read(
      SHB(),
      IDB(1, [...option(9, [0x8a]), ...option(14, [100, 0, 0, 0, 0, 0, 0, 0])]),
      EPB(0, 2049n, []),
    );
    // 2049 / 1024 s = 2 s + 1/1024 s, plus the 100 s offset.
    expect(binary.records[0]).toMatchObject({ seconds: 102, nanos: 976_562 });
  });

  it('reads a big-endian section and simple packet blocks', () => {
    const big = read(SHB(true), IDB(1, [], true), EPB(0, 5_000_001n, [9], true));
    expect(big).toMatchObject({ byteOrder: 'big' });
    expect(big.records[0]).toMatchObject({ seconds: 5, nanos: 1000 });
    const simple = read(SHB(), IDB(1), block(3, [...u32(4), 7, 7, 7, 7]));
    expect(simple.records[0]).toMatchObject({ seconds: 0, nanos: 0, origLen: 4 });
  });

  it('refuses interfaces of different link types and packets of an undescribed interface, as libpcap does', () => {
    const mixed = readPcapng(new Uint8Array([...SHB(), ...IDB(1), ...IDB(276)]));
    expect(mixed).toMatchObject({
      ok: false,
      message: 'an interface has a type 276 different from the type of the first interface',
    });
    const orphan = readPcapng(new Uint8Array([...SHB(), ...IDB(1), ...EPB(3, 0n, [])]));
    expect(orphan).toMatchObject({ ok: false });
  });

  it('knows its magic, and never throws on random bytes after a section header', () => {
    expect(isPcapng(new Uint8Array(SHB()))).toBe(true);
    expect(isPcapng(new Uint8Array([0xd4, 0xc3, 0xb2, 0xa1]))).toBe(false);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (tail, withInterface) => {
        const head = withInterface ? [...SHB(), ...IDB(1)] : SHB();
        const result = readPcapng(new Uint8Array([...head, ...tail]));
        if (result.ok) for (const r of result.file.records) expect(Number.isInteger(r.nanos)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
