import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMac } from '../../src/wire/address.ts';
import { isWireError } from '../../src/wire/error.ts';
import {
  ARPHRD_ETHER,
  ARPHRD_LOOPBACK,
  ARPHRD_NONE,
  emitSll2,
  PACKET_HOST,
  PACKET_OUTGOING,
  parseSll2,
  SLL2_HEADER_LEN,
  type Sll2Repr,
  Sll2View,
  sll2HeaderLen,
} from '../../src/wire/sll2.ts';
import { hex, poisoned, toHex } from '../support/bytes.ts';

// The UDP datagram of the UDP golden test, 10.244.1.5:41234 -> 10.244.2.7:8000 "ping", in IPv4.
const datagram = hex(`
  4500 0020 1234 4000 4011 0fa6 0af40105 0af40207
  a112 1f40 000c 47bf 70696e67
`);

// Built with Python's struct from tcpdump.org's LINKTYPE_LINUX_SLL2 page, written to a pcap of
// link type 276 and read back by tshark 4.0 as "Linux cooked capture v2": protocol IPv4, interface
// index 3, "Ethernet (1)", "Sent by us (4)", address length 6, source 0a:58:0a:f4:01:05; then
// index 1, "Loopback (772)", "Unicast to us (0)", source 00:00:00:00:00:00; UDP checksum Good.
const outgoing = hex(`0800 0000 00000003 0001 04 06 0a580af40105 0000 ${toHex(datagram)}`);
const loopback = hex(`0800 0000 00000001 0304 00 06 000000000000 0000 ${toHex(datagram)}`);

const goldens: { name: string; bytes: Uint8Array; repr: Sll2Repr }[] = [
  {
    name: 'outgoing packet on a veth',
    bytes: outgoing,
    repr: {
      protocol: 0x0800,
      ifIndex: 3,
      hatype: ARPHRD_ETHER,
      packetType: PACKET_OUTGOING,
      addrLen: 6,
      addr: hex('0a580af40105'),
    },
  },
  {
    name: 'incoming packet on lo',
    bytes: loopback,
    repr: {
      protocol: 0x0800,
      ifIndex: 1,
      hatype: ARPHRD_LOOPBACK,
      packetType: PACKET_HOST,
      addrLen: 6,
      addr: new Uint8Array(6),
    },
  },
];

describe('sll2', () => {
  for (const golden of goldens) {
    it(`reads the golden ${golden.name}`, () => {
      const view = Sll2View.checked(golden.bytes);
      if (isWireError(view)) throw view;
      expect(parseSll2(view)).toEqual(golden.repr);
      expect(view.reserved).toBe(0);
      expect(toHex(view.payload())).toBe(toHex(datagram));
    });

    it(`writes the golden ${golden.name} into a poisoned buffer`, () => {
      const out = poisoned(golden.bytes.length);
      out.set(datagram, SLL2_HEADER_LEN);
      emitSll2(golden.repr, Sll2View.unchecked(out));
      expect(toHex(out)).toBe(toHex(golden.bytes));
    });
  }

  it('reads and writes the sender as a MAC', () => {
    const view = Sll2View.checked(outgoing) as Sll2View;
    expect(view.mac).toBe(parseMac('0a:58:0a:f4:01:05'));
    const out = poisoned(SLL2_HEADER_LEN);
    const written = Sll2View.unchecked(out);
    emitSll2({ ...goldens[0]!.repr, addr: new Uint8Array(0) }, written);
    written.mac = parseMac('0a:58:0a:f4:01:05')!;
    expect(toHex(out)).toBe(toHex(outgoing.subarray(0, SLL2_HEADER_LEN)));
  });

  it('reads a tun device (ARPHRD_NONE) with no address', () => {
    const view = Sll2View.checked(hex(`0800 0000 00000007 fffe 00 00 0000000000000000 ${toHex(datagram)}`));
    expect(parseSll2(view as Sll2View)).toEqual({
      protocol: 0x0800,
      ifIndex: 7,
      hatype: ARPHRD_NONE,
      packetType: PACKET_HOST,
      addrLen: 0,
      addr: new Uint8Array(0),
    });
  });

  it('keeps the first 8 bytes of a longer address and its declared length', () => {
    const view = Sll2View.checked(hex('0800 0000 00000002 0020 00 14 0102030405060708')) as Sll2View;
    expect(parseSll2(view)).toMatchObject({ addrLen: 20, addr: hex('0102030405060708') });
  });

  it('sll2.truncated', () => {
    expect(Sll2View.checked(outgoing.subarray(0, SLL2_HEADER_LEN - 1))).toMatchObject({
      defect: 'sll2.truncated',
    });
  });

  it('round-trips emit -> parse -> emit byte for byte', () => {
    const u16 = fc.integer({ min: 0, max: 0xffff });
    const reprArb = fc
      .record({
        protocol: u16,
        ifIndex: fc.integer({ min: 0, max: 0xffff_ffff }),
        hatype: u16,
        packetType: fc.integer({ min: 0, max: 255 }),
        addrLen: fc.integer({ min: 0, max: 255 }),
        addr: fc.uint8Array({ maxLength: 8 }),
      })
      .map((repr): Sll2Repr => ({ ...repr, addr: repr.addr.subarray(0, repr.addrLen) }));
    fc.assert(
      fc.property(reprArb, fc.uint8Array({ maxLength: 32 }), (repr, payload) => {
        const first = new Uint8Array(sll2HeaderLen(repr) + payload.length);
        first.set(payload, SLL2_HEADER_LEN);
        emitSll2(repr, Sll2View.unchecked(first));
        const parsed = parseSll2(Sll2View.checked(first) as Sll2View);
        if (isWireError(parsed)) throw new Error(parsed.defect);
        const second = first.slice();
        second.fill(0xa5, 0, SLL2_HEADER_LEN);
        emitSll2(parsed, Sll2View.unchecked(second));
        expect(toHex(second)).toBe(toHex(first));
      }),
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 48 }), fc.nat(8), (bytes, offset) => {
        const view = Sll2View.checked(bytes, Math.min(offset, bytes.length));
        if (!isWireError(view)) {
          parseSll2(view);
          view.payload();
          view.addr();
          void view.mac;
        }
      }),
    );
  });
});
