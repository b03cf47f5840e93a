import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4 as parseAddr } from '../../src/wire/address.ts';
import { readU16 } from '../../src/wire/bytes.ts';
import { isWireError } from '../../src/wire/error.ts';
import { ETHERTYPE_IPV4, EthernetView } from '../../src/wire/ethernet.ts';
import {
  type DestUnreachableCode,
  emitIcmpv4,
  ICMPV4_FRAG_NEEDED,
  ICMPV4_HEADER_LEN,
  type Icmpv4Repr,
  Icmpv4View,
  icmpv4HeaderLen,
  icmpv4Len,
  parseIcmpv4,
  type TimeExceededCode,
} from '../../src/wire/icmpv4.ts';
import { IPPROTO_ICMP, IPPROTO_TCP, Ipv4View, parseIpv4 } from '../../src/wire/ipv4.ts';
import { IPPROTO_UDP } from '../../src/wire/udp.ts';
import { hex, poisoned, strict, toHex } from '../support/bytes.ts';

// Golden messages built with Python's struct module (checksums by RFC 1071) and read back with
// tshark 4.0 (`tshark -o ip.check_checksum:TRUE -V`), which reports every checksum "correct".

// Echo request, identifier 0x1234, sequence 1, data "ping".
const echo = hex('0800 06fa 1234 0001  70696e67');
// A whole frame: 10.0.0.1 tells 10.244.1.5 that fragmentation is needed (next-hop MTU 1450)
// for its 1500-byte DF TCP segment 10.244.1.5:43210 -> 192.0.2.10:443, quoting IPv4 + TCP headers.
const fragNeededFrame = hex(`
  02420af40105 02420af40101 0800
  45c0 0044 0100 0000 4001 6300 0a000001 0af40105
  0304 702d 0000 05aa
  4500 05dc 04d2 4000 3f06 6347 0af40105 c000020a
  a8ca 01bb 01020304 0a0b0c0d 5018 faf0 7777 0000`);
const fragNeeded = fragNeededFrame.subarray(14 + 20);
// Time exceeded in transit for a TTL-1 UDP datagram 10.244.1.5:41234 -> 192.0.2.10:33434.
const timeExceeded = hex(`
  0b00 d146 00000000
  4500 0020 5678 0000 0111 9552 0af40105 c000020a  a112 829a 000c 0000`);
// Port unreachable quoting only the IPv4 header and 4 bytes: the checksum is right, the quote too short.
const shortQuote = hex(`
  0303 5bb5 00000000
  4500 0020 5678 0000 4011 5652 0af40105 c000020a  a112 0035`);
// Redirect for host (type 5 code 1) to gateway 10.244.1.1: not a named kind, carried raw.
const redirect = hex(`
  0501 4db6 0af40101
  4500 0020 5678 0000 4011 5652 0af40105 c000020a  a112 0035 000c 0000`);

const echoRepr: Icmpv4Repr = { kind: 'echo-request', ident: 0x1234, seqNo: 1, data: hex('70696e67') };
const fragNeededRepr: Icmpv4Repr = {
  kind: 'dest-unreachable',
  code: ICMPV4_FRAG_NEEDED,
  nextHopMtu: 1450,
  quoted: fragNeeded.subarray(ICMPV4_HEADER_LEN),
};
const timeExceededRepr: Icmpv4Repr = { kind: 'time-exceeded', code: 0, quoted: timeExceeded.subarray(8) };
const redirectRepr: Icmpv4Repr = {
  kind: 'other',
  type: 5,
  code: 1,
  restOfHeader: parseAddr('10.244.1.1')!,
  data: redirect.subarray(8),
};

/** Emits `repr` into a poisoned buffer of exactly the message's length. */
function emitted(repr: Icmpv4Repr): Uint8Array {
  const out = poisoned(icmpv4Len(repr));
  emitIcmpv4(repr, Icmpv4View.unchecked(out));
  return out;
}

describe('icmpv4', () => {
  it('reads the golden echo request', () => {
    const view = Icmpv4View.checked(echo);
    if (isWireError(view)) throw view;
    expect(parseIcmpv4(view)).toEqual(echoRepr);
    expect([view.type, view.code, view.checksum, view.ident, view.seqNo]).toEqual([8, 0, 0x06fa, 0x1234, 1]);
  });

  it('reads the golden fragmentation-needed frame down to the quoted TCP ports', () => {
    const ethernet = EthernetView.checked(fragNeededFrame);
    if (isWireError(ethernet)) throw ethernet;
    expect(ethernet.ethertype).toBe(ETHERTYPE_IPV4);
    const ip = Ipv4View.checked(ethernet.payload());
    if (isWireError(ip)) throw ip;
    expect(parseIpv4(ip)).toMatchObject({ protocol: IPPROTO_ICMP, srcAddr: parseAddr('10.0.0.1') });
    const view = Icmpv4View.checked(ip.payload());
    if (isWireError(view)) throw view;
    expect(parseIcmpv4(view)).toEqual(fragNeededRepr);
    expect([view.type, view.code, view.nextHopMtu]).toEqual([3, 4, 1450]);

    const inner = Ipv4View.checkedHeader(view.quoted());
    if (isWireError(inner)) throw inner;
    expect(parseIpv4(inner)).toMatchObject({
      srcAddr: parseAddr('10.244.1.5'),
      dstAddr: parseAddr('192.0.2.10'),
      protocol: IPPROTO_TCP,
      dontFragment: true,
    });
    expect(inner.totalLen).toBe(1500);
    const tcp = inner.payload();
    expect([readU16(tcp, 0), readU16(tcp, 2)]).toEqual([43210, 443]);
  });

  it('reads the golden time exceeded', () => {
    const view = Icmpv4View.checked(timeExceeded) as Icmpv4View;
    expect(parseIcmpv4(view)).toEqual(timeExceededRepr);
    const inner = Ipv4View.checkedHeader(view.quoted()) as Ipv4View;
    expect([inner.protocol, inner.ttl]).toEqual([IPPROTO_UDP, 1]);
  });

  it('reads an unnamed type raw', () => {
    expect(parseIcmpv4(Icmpv4View.checked(redirect) as Icmpv4View)).toEqual(redirectRepr);
  });

  it('writes the golden echo request into a poisoned buffer', () => {
    expect(toHex(emitted(echoRepr))).toBe(toHex(echo));
    expect(icmpv4HeaderLen(echoRepr)).toBe(8);
  });

  it('writes the golden fragmentation-needed into a poisoned buffer', () => {
    expect(toHex(emitted(fragNeededRepr))).toBe(toHex(fragNeeded));
  });

  it('writes the golden time exceeded into a poisoned buffer', () => {
    expect(toHex(emitted(timeExceededRepr))).toBe(toHex(timeExceeded));
  });

  it('writes an unnamed type raw into a poisoned buffer', () => {
    expect(toHex(emitted(redirectRepr))).toBe(toHex(redirect));
  });

  it('writes in place over the message it was parsed from', () => {
    const bytes = fragNeeded.slice();
    const view = Icmpv4View.checked(bytes) as Icmpv4View;
    const repr = parseIcmpv4(view) as Icmpv4Repr;
    bytes.fill(0xa5, 0, ICMPV4_HEADER_LEN);
    emitIcmpv4(repr, view);
    expect(toHex(bytes)).toBe(toHex(fragNeeded));
  });

  it('refuses a buffer that does not end where the message ends', () => {
    expect(() => emitIcmpv4(echoRepr, Icmpv4View.unchecked(new Uint8Array(13)))).toThrow(RangeError);
  });

  it('icmpv4.truncated', () => {
    expect(Icmpv4View.checked(echo.subarray(0, 7))).toMatchObject({ defect: 'icmpv4.truncated' });
  });

  it('icmpv4.truncated: an error quoting less than an IPv4 header and 8 bytes', () => {
    const view = Icmpv4View.checked(shortQuote) as Icmpv4View;
    expect(view.verifyChecksum()).toBe(true);
    expect(parseIcmpv4(view)).toMatchObject({ defect: 'icmpv4.truncated' });
  });

  it('icmpv4.bad-checksum', () => {
    const bad = echo.slice();
    bad[bad.length - 1]! ^= 1;
    expect(parseIcmpv4(Icmpv4View.checked(bad) as Icmpv4View)).toMatchObject({
      defect: 'icmpv4.bad-checksum',
    });
  });

  const u16 = fc.integer({ min: 0, max: 0xffff });
  const quotedArb = fc.uint8Array({ minLength: 28, maxLength: 64 });
  const reprArb: fc.Arbitrary<Icmpv4Repr> = fc.oneof(
    fc.record({
      kind: fc.constantFrom('echo-request' as const, 'echo-reply' as const),
      ident: u16,
      seqNo: u16,
      data: fc.uint8Array({ maxLength: 64 }),
    }),
    fc.record({
      kind: fc.constant('dest-unreachable' as const),
      code: fc.integer({ min: 0, max: 15 }).map((code) => code as DestUnreachableCode),
      nextHopMtu: u16,
      quoted: quotedArb,
    }),
    fc.record({
      kind: fc.constant('time-exceeded' as const),
      code: fc.constantFrom<TimeExceededCode>(0, 1),
      quoted: quotedArb,
    }),
    fc
      .record({
        kind: fc.constant('other' as const),
        type: fc.integer({ min: 0, max: 255 }),
        code: fc.integer({ min: 0, max: 255 }),
        restOfHeader: fc.integer({ min: 0, max: 0xffff_ffff }),
        data: fc.uint8Array({ maxLength: 64 }),
      })
      // Raw reprs of a named kind are not canonical: parse would name them and drop the unused bytes.
      .filter(
        ({ type, code }) =>
          !((type === 0 || type === 8) && code === 0) &&
          !(type === 3 && code <= 15) &&
          !(type === 11 && code <= 1),
      ),
  );

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(reprArb, (repr) => {
        const first = new Uint8Array(icmpv4Len(repr));
        emitIcmpv4(repr, Icmpv4View.unchecked(first));
        const view = Icmpv4View.checked(first);
        if (isWireError(view)) throw new Error(view.defect);
        const parsed = parseIcmpv4(view);
        if (isWireError(parsed)) throw new Error(parsed.defect);
        expect(parsed).toEqual(repr);
        const second = poisoned(first.length);
        emitIcmpv4(parsed, Icmpv4View.unchecked(second));
        expect(toHex(second)).toBe(toHex(first));
      }),
    );
  });

  it('never throws or reads out of bounds on random bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64, size: 'max' }),
        fc.nat(16),
        fc.constantFrom(0, 3, 8, 11, 5),
        fc.boolean(),
        (random, offset, type, plausible) => {
          const bytes = random.slice();
          // Often give it a named type and a right checksum, so parse gets past the checksum.
          const view = Icmpv4View.checked(strict(bytes), offset);
          if (isWireError(view)) return;
          if (plausible) {
            view.type = type;
            view.code &= 0x3;
            view.fillChecksum();
          }
          parseIcmpv4(view);
          void [
            view.type,
            view.code,
            view.checksum,
            view.restOfHeader,
            view.ident,
            view.seqNo,
            view.nextHopMtu,
          ];
          view.payload();
          view.quoted();
        },
      ),
      { numRuns: 1000 },
    );
  });
});
