import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4 as parseAddr } from '../../src/wire/address.ts';
import { isWireError } from '../../src/wire/error.ts';
import {
  emitIpv4,
  IPPROTO_ICMP,
  IPPROTO_TCP,
  IPV4_MIN_HEADER_LEN,
  type Ipv4Repr,
  Ipv4View,
  ipv4HeaderLen,
  parseIpv4,
} from '../../src/wire/ipv4.ts';
import { hex, poisoned, strict, toHex } from '../support/bytes.ts';

// Golden packets built with Python's struct module (checksums by RFC 1071) and read back with
// tshark 4.0 (`tshark -o ip.check_checksum:TRUE -V`), which reports every header checksum "correct".

// 10.244.1.5 -> 10.96.0.10, TCP, DSCP 46 (EF), ECN 1, ident 0xbeef, MF, offset 1480, TTL 63,
// options Router Alert + NOP + EOL (IHL 7), 8 payload bytes.
const withOptions = hex(`
  47b9 0024 beef 20b9 3f06 ee0b 0af40105 0a60000a
  94040000 01000000
  d0d1d2d3d4d5d6d7`);
const withOptionsRepr: Ipv4Repr = {
  srcAddr: parseAddr('10.244.1.5')!,
  dstAddr: parseAddr('10.96.0.10')!,
  protocol: IPPROTO_TCP,
  ttl: 63,
  ident: 0xbeef,
  dontFragment: false,
  moreFragments: true,
  fragmentOffset: 1480,
  dscp: 46,
  ecn: 1,
  payloadLen: 8,
  options: hex('94040000 01000000'),
};
// 10.244.1.5 -> 10.244.2.7, ICMP echo request "ping", DF, ident 0x1c46, TTL 64.
const echo = hex('4500 0020 1c46 4000 4001 05a4 0af40105 0af40207  080006fa1234000170696e67');
// The header quoted by an ICMP fragmentation-needed: a 1500-byte DF TCP segment, then its TCP header.
const quoted = hex(`
  4500 05dc 04d2 4000 3f06 6347 0af40105 c000020a
  a8ca01bb 01020304 0a0b0c0d 5018 faf0 7777 0000`);
// IHL 6 headers with valid checksums around broken options (tshark flags each one).
const optionLengthOne = hex('4600 0018 0101 0000 4006 ce7b 0af40105 0a60000a  94010000');
const optionOverrunsHeader = hex('4600 0018 0101 0000 4006 ce74 0af40105 0a60000a  94080000');
const optionLengthMissing = hex('4600 0018 0101 0000 4006 5fe8 0af40105 0a60000a  01010194');
// Garbage after End of Option List is padding, not an option.
const garbageAfterEol = hex('4600 0018 0101 0000 4006 62e1 0af40105 0a60000a  0094ff07');

/** A copy of `bytes` with `edits` applied (byte offset -> value). */
function edited(bytes: Uint8Array, edits: Record<number, number>): Uint8Array {
  const copy = bytes.slice();
  for (const [at, value] of Object.entries(edits)) copy[Number(at)] = value;
  return copy;
}

describe('ipv4', () => {
  it('reads the golden packet with options', () => {
    const view = Ipv4View.checked(withOptions);
    if (isWireError(view)) throw view;
    expect(parseIpv4(view)).toEqual(withOptionsRepr);
    expect([view.version, view.headerLen, view.totalLen, view.checksum]).toEqual([4, 28, 36, 0xee0b]);
    expect(view.reservedFlag).toBe(false);
    expect(toHex(view.options())).toBe('9404000001000000');
    expect(toHex(view.payload())).toBe('d0d1d2d3d4d5d6d7');
  });

  it('reads the golden echo packet inside a padded frame', () => {
    const frame = new Uint8Array(14 + 46);
    frame.set(echo, 14);
    const view = Ipv4View.checked(frame, 14);
    if (isWireError(view)) throw view;
    expect(parseIpv4(view)).toEqual({
      srcAddr: parseAddr('10.244.1.5'),
      dstAddr: parseAddr('10.244.2.7'),
      protocol: IPPROTO_ICMP,
      ttl: 64,
      ident: 0x1c46,
      dontFragment: true,
      moreFragments: false,
      fragmentOffset: 0,
      dscp: 0,
      ecn: 0,
      payloadLen: 12,
      options: new Uint8Array(0),
    });
    expect(toHex(view.payload())).toBe('080006fa1234000170696e67'); // the Ethernet padding is left out
  });

  it('reads a quoted header whose total length exceeds the quote', () => {
    expect(Ipv4View.checked(quoted)).toMatchObject({ defect: 'ipv4.total-length-exceeds-buffer' });
    const view = Ipv4View.checkedHeader(quoted);
    if (isWireError(view)) throw view;
    expect(parseIpv4(view)).toMatchObject({ protocol: IPPROTO_TCP, dontFragment: true, payloadLen: 1480 });
    expect(toHex(view.payload())).toBe(toHex(quoted.subarray(20))); // clamped to the quote
    expect(Ipv4View.checkedHeader(quoted.subarray(0, 19))).toMatchObject({ defect: 'ipv4.truncated' });
  });

  it('accepts garbage after End of Option List', () => {
    expect(parseIpv4(Ipv4View.checked(garbageAfterEol) as Ipv4View)).not.toSatisfy(isWireError);
  });

  it('writes the golden packet with options into a poisoned buffer', () => {
    const out = poisoned(withOptions.length);
    out.set(withOptions.subarray(28), 28);
    emitIpv4(withOptionsRepr, Ipv4View.unchecked(out));
    expect(toHex(out)).toBe(toHex(withOptions));
  });

  it('pads options to a multiple of 4 with End of Option List', () => {
    const repr = { ...withOptionsRepr, options: hex('94040000 01') };
    expect(ipv4HeaderLen(repr)).toBe(28);
    const out = poisoned(withOptions.length);
    out.set(withOptions.subarray(28), 28);
    emitIpv4(repr, Ipv4View.unchecked(out));
    expect(toHex(out)).toBe(toHex(withOptions));
  });

  it('writes the golden echo header into a poisoned buffer at an offset', () => {
    const out = poisoned(4 + echo.length);
    out.set(echo.subarray(20), 24);
    const repr = parseIpv4(Ipv4View.checked(echo) as Ipv4View) as Ipv4Repr;
    emitIpv4(repr, Ipv4View.unchecked(out, 4));
    expect(toHex(out.subarray(4))).toBe(toHex(echo));
    expect(toHex(out.subarray(0, 4))).toBe('a5a5a5a5');
  });

  it('refuses a repr no header can carry', () => {
    const out = new Uint8Array(100);
    expect(() =>
      emitIpv4({ ...withOptionsRepr, options: new Uint8Array(41) }, Ipv4View.unchecked(out)),
    ).toThrow(RangeError);
    expect(() => emitIpv4({ ...withOptionsRepr, fragmentOffset: 1481 }, Ipv4View.unchecked(out))).toThrow(
      RangeError,
    );
    expect(() => emitIpv4({ ...withOptionsRepr, payloadLen: 65535 }, Ipv4View.unchecked(out))).toThrow(
      RangeError,
    );
  });

  it('ipv4.truncated', () => {
    expect(Ipv4View.checked(echo.subarray(0, 19))).toMatchObject({ defect: 'ipv4.truncated' });
  });

  it('ipv4.bad-version', () => {
    expect(Ipv4View.checked(edited(echo, { 0: 0x65 }))).toMatchObject({ defect: 'ipv4.bad-version' });
  });

  it('ipv4.header-length-too-small', () => {
    expect(Ipv4View.checked(edited(echo, { 0: 0x44 }))).toMatchObject({
      defect: 'ipv4.header-length-too-small',
    });
  });

  it('ipv4.header-length-exceeds-buffer', () => {
    expect(Ipv4View.checked(withOptions.subarray(0, 27))).toMatchObject({
      defect: 'ipv4.header-length-exceeds-buffer',
    });
  });

  it('ipv4.total-length-below-header', () => {
    expect(Ipv4View.checked(edited(withOptions, { 3: 27 }))).toMatchObject({
      defect: 'ipv4.total-length-below-header',
    });
  });

  it('ipv4.total-length-exceeds-buffer', () => {
    expect(Ipv4View.checked(echo.subarray(0, echo.length - 1))).toMatchObject({
      defect: 'ipv4.total-length-exceeds-buffer',
    });
  });

  it('ipv4.bad-checksum', () => {
    const view = Ipv4View.checked(edited(echo, { 11: 0xa5 })) as Ipv4View;
    expect(parseIpv4(view)).toMatchObject({ defect: 'ipv4.bad-checksum' });
  });

  it('ipv4.bad-option', () => {
    for (const header of [optionLengthOne, optionOverrunsHeader, optionLengthMissing]) {
      const view = Ipv4View.checked(header) as Ipv4View;
      expect(view.verifyChecksum()).toBe(true);
      expect(parseIpv4(view)).toMatchObject({ defect: 'ipv4.bad-option' });
    }
  });

  // Options made of whole NOPs and type-length-value options, as a sender would build them.
  const optionArb = fc.oneof(
    fc.constant(Uint8Array.of(1)),
    fc
      .tuple(fc.integer({ min: 2, max: 255 }), fc.uint8Array({ maxLength: 6 }))
      .map(([type, data]) => Uint8Array.of(type, data.length + 2, ...data)),
  );
  const optionsArb = fc
    .array(optionArb, { maxLength: 8 })
    .map((options) => Uint8Array.from(options.flatMap((option) => [...option])))
    .filter((options) => options.length <= 40);
  const reprArb: fc.Arbitrary<Ipv4Repr> = fc.record({
    srcAddr: fc.integer({ min: 0, max: 0xffff_ffff }),
    dstAddr: fc.integer({ min: 0, max: 0xffff_ffff }),
    protocol: fc.integer({ min: 0, max: 255 }),
    ttl: fc.integer({ min: 0, max: 255 }),
    ident: fc.integer({ min: 0, max: 0xffff }),
    dontFragment: fc.boolean(),
    moreFragments: fc.boolean(),
    fragmentOffset: fc.integer({ min: 0, max: 0x1fff }).map((units) => units * 8),
    dscp: fc.integer({ min: 0, max: 63 }),
    ecn: fc.integer({ min: 0, max: 3 }),
    payloadLen: fc.constant(0),
    options: optionsArb,
  });

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(reprArb, fc.uint8Array({ maxLength: 64 }), (template, payload) => {
        const repr = { ...template, payloadLen: payload.length };
        const headerLen = ipv4HeaderLen(repr);
        const first = new Uint8Array(headerLen + payload.length);
        first.set(payload, headerLen);
        emitIpv4(repr, Ipv4View.unchecked(first));
        const view = Ipv4View.checked(first);
        if (isWireError(view)) throw new Error(view.defect);
        const parsed = parseIpv4(view);
        if (isWireError(parsed)) throw new Error(parsed.defect);
        expect({ ...parsed, options: [...parsed.options.subarray(0, repr.options.length)] }).toEqual({
          ...repr,
          options: [...repr.options],
        });
        const second = first.slice();
        second.fill(0xa5, 0, headerLen);
        emitIpv4(parsed, Ipv4View.unchecked(second));
        expect(toHex(second)).toBe(toHex(first));
      }),
    );
  });

  it('never throws or reads out of bounds on random bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80, size: 'max' }),
        fc.nat(24),
        fc.integer({ min: 0x40, max: 0x4f }),
        fc.boolean(),
        fc.boolean(),
        (random, offset, versionIhl, plausible, fixChecksum) => {
          const bytes = random.slice();
          // Often make it look like IPv4 with a fitting total length, so the deeper checks run.
          if (plausible && offset + IPV4_MIN_HEADER_LEN <= bytes.length) {
            bytes[offset] = versionIhl;
            bytes[offset + 2] = 0;
            bytes[offset + 3] = Math.min(bytes[offset + 3]!, bytes.length - offset);
          }
          for (const check of [Ipv4View.checked, Ipv4View.checkedHeader]) {
            const view = check(strict(bytes.slice()), offset);
            if (isWireError(view)) continue;
            if (fixChecksum) view.fillChecksum();
            parseIpv4(view);
            void [view.version, view.headerLen, view.dscp, view.ecn, view.totalLen, view.ident];
            void [view.reservedFlag, view.dontFragment, view.moreFragments, view.fragmentOffset];
            void [view.ttl, view.protocol, view.checksum, view.srcAddr, view.dstAddr];
            view.optionsAreValid();
            view.options();
            view.payload();
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});
