import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4, parseMac } from '../../src/wire/address.ts';
import {
  ARP_LEN,
  ARP_OP_REPLY,
  ARP_OP_REQUEST,
  type ArpRepr,
  ArpView,
  arpHeaderLen,
  emitArp,
  parseArp,
} from '../../src/wire/arp.ts';
import { isWireError } from '../../src/wire/error.ts';
import { hex, poisoned, strict, toHex } from '../support/bytes.ts';

// Golden frames built with Python's struct module and read back with tshark 4.0 (`tshark -V`):
// "who has 10.244.1.1? tell 10.244.1.5", padded to 60 bytes, and the reply "10.244.1.1 is at 02:42:0a:f4:01:01".
const request = hex(`
  ffffffffffff 02420af40105 0806
  0001 0800 06 04 0001 02420af40105 0af40105 000000000000 0af40101
  000000000000000000000000000000000000  # Ethernet padding`);
const reply = hex(`
  02420af40105 02420af40101 0806
  0001 0800 06 04 0002 02420af40101 0af40101 02420af40105 0af40105`);
const ARP_AT = 14;

const pod = parseMac('02:42:0a:f4:01:05')!;
const gateway = parseMac('02:42:0a:f4:01:01')!;
const podIp = parseIpv4('10.244.1.5')!;
const gatewayIp = parseIpv4('10.244.1.1')!;
const requestRepr: ArpRepr = {
  operation: ARP_OP_REQUEST,
  senderMac: pod,
  senderIp: podIp,
  targetMac: 0,
  targetIp: gatewayIp,
};
const replyRepr: ArpRepr = {
  operation: ARP_OP_REPLY,
  senderMac: gateway,
  senderIp: gatewayIp,
  targetMac: pod,
  targetIp: podIp,
};

/** The golden reply's ARP packet with `edits` applied (byte offset -> value). */
function editedReply(edits: Record<number, number>): Uint8Array {
  const bytes = reply.slice(ARP_AT);
  for (const [at, value] of Object.entries(edits)) bytes[Number(at)] = value;
  return bytes;
}

describe('arp', () => {
  it('reads the golden request inside its padded frame', () => {
    const view = ArpView.checked(request, ARP_AT);
    if (isWireError(view)) throw view;
    expect(parseArp(view)).toEqual(requestRepr);
    expect([view.htype, view.ptype, view.hlen, view.plen]).toEqual([1, 0x0800, 6, 4]);
  });

  it('reads the golden reply', () => {
    const view = ArpView.checked(reply.subarray(ARP_AT));
    if (isWireError(view)) throw view;
    expect(parseArp(view)).toEqual(replyRepr);
  });

  it('keeps an unknown operation as a number', () => {
    expect(parseArp(ArpView.checked(editedReply({ 7: 4 })) as ArpView).operation).toBe(4);
  });

  it('writes the golden request into a poisoned buffer', () => {
    const out = poisoned(ARP_LEN);
    emitArp(requestRepr, ArpView.unchecked(out));
    expect(toHex(out)).toBe(toHex(request.subarray(ARP_AT, ARP_AT + ARP_LEN)));
  });

  it('writes the golden reply into a poisoned buffer at an offset', () => {
    const out = poisoned(reply.length);
    out.set(reply.subarray(0, ARP_AT));
    emitArp(replyRepr, ArpView.unchecked(out, ARP_AT));
    expect(toHex(out)).toBe(toHex(reply));
    expect(arpHeaderLen(replyRepr)).toBe(28);
  });

  it('arp.truncated', () => {
    // Too short to read the type and length fields, then too short for the addresses they announce.
    expect(ArpView.checked(reply.subarray(ARP_AT, ARP_AT + 7))).toMatchObject({ defect: 'arp.truncated' });
    expect(ArpView.checked(reply.subarray(ARP_AT, reply.length - 1))).toMatchObject({
      defect: 'arp.truncated',
    });
  });

  it('arp.unsupported-hardware', () => {
    expect(ArpView.checked(editedReply({ 1: 6 }))).toMatchObject({ defect: 'arp.unsupported-hardware' }); // IEEE 802
    expect(ArpView.checked(editedReply({ 4: 8 }))).toMatchObject({ defect: 'arp.unsupported-hardware' }); // hlen 8
  });

  it('arp.unsupported-protocol', () => {
    expect(ArpView.checked(editedReply({ 2: 0x86, 3: 0xdd }))).toMatchObject({
      defect: 'arp.unsupported-protocol',
    });
    expect(ArpView.checked(editedReply({ 5: 16 }))).toMatchObject({ defect: 'arp.unsupported-protocol' });
  });

  const reprArb: fc.Arbitrary<ArpRepr> = fc.record({
    operation: fc.integer({ min: 0, max: 0xffff }),
    senderMac: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
    senderIp: fc.integer({ min: 0, max: 0xffff_ffff }),
    targetMac: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
    targetIp: fc.integer({ min: 0, max: 0xffff_ffff }),
  });

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(reprArb, (repr) => {
        const first = new Uint8Array(ARP_LEN);
        emitArp(repr, ArpView.unchecked(first));
        const view = ArpView.checked(first);
        if (isWireError(view)) throw new Error(view.defect);
        const parsed = parseArp(view);
        expect(parsed).toEqual(repr);
        const second = poisoned(ARP_LEN);
        emitArp(parsed, ArpView.unchecked(second));
        expect(toHex(second)).toBe(toHex(first));
      }),
    );
  });

  it('never throws or reads out of bounds on random bytes', () => {
    // Half the time the fixed part is a valid Ethernet/IPv4 one, so the length check gets exercised.
    const prefix = reply.subarray(ARP_AT, ARP_AT + 6);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40, size: 'max' }),
        fc.nat(12),
        fc.boolean(),
        (random, offset, plausible) => {
          const bytes = random.slice();
          if (plausible && offset + prefix.length <= bytes.length) bytes.set(prefix, offset);
          const view = ArpView.checked(strict(bytes), offset);
          if (isWireError(view)) return;
          parseArp(view);
          void [view.htype, view.ptype, view.hlen, view.plen];
        },
      ),
      { numRuns: 1000 },
    );
  });
});
