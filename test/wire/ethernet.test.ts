import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMac } from '../../src/wire/address.ts';
import { isWireError } from '../../src/wire/error.ts';
import {
  ETHERNET_HEADER_LEN,
  ETHERNET_VLAN_HEADER_LEN,
  ETHERTYPE_ARP,
  ETHERTYPE_IPV4,
  ETHERTYPE_VLAN,
  type EthernetRepr,
  EthernetView,
  emitEthernet,
  ethernetHeaderLen,
  parseEthernet,
} from '../../src/wire/ethernet.ts';
import { hex, poisoned, strict, toHex } from '../support/bytes.ts';

// Golden frames built with Python's struct module and read back with tshark 4.0 (`tshark -V`).
// An ARP request from 02:42:0a:f4:01:05 to the broadcast address, padded to 60 bytes.
const untagged = hex(`
  ffffffffffff 02420af40105 0806
  0001 0800 06 04 0001 02420af40105 0af40105 000000000000 0af40101
  000000000000000000000000000000000000  # padding`);
// 802.1Q: PRI 5, DEI 1, ID 291, inner type IPv4 (an ICMP echo request).
const tagged = hex(`
  02420af40101 02420af40105 8100 b123 0800
  450000201c464000400105a40af401050af40207 080006fa1234000170696e67`);

const pod = parseMac('02:42:0a:f4:01:05')!;
const gateway = parseMac('02:42:0a:f4:01:01')!;
const untaggedRepr: EthernetRepr = { dstAddr: 0xffff_ffff_ffff, srcAddr: pod, ethertype: ETHERTYPE_ARP };
const taggedRepr: EthernetRepr = {
  dstAddr: gateway,
  srcAddr: pod,
  ethertype: ETHERTYPE_IPV4,
  vlan: { pcp: 5, dei: true, vid: 291 },
};

describe('ethernet', () => {
  it('reads the golden untagged frame', () => {
    const view = EthernetView.checked(untagged);
    if (isWireError(view)) throw view;
    expect(parseEthernet(view)).toEqual(untaggedRepr);
    expect(view.tagged).toBe(false);
    expect(view.outerEthertype).toBe(ETHERTYPE_ARP);
    expect(view.headerLen).toBe(14);
    expect(toHex(view.payload())).toBe(toHex(untagged.subarray(14)));
    expect(view.payload().length).toBe(46);
  });

  it('reads the golden 802.1Q-tagged frame', () => {
    const view = EthernetView.checked(tagged);
    if (isWireError(view)) throw view;
    expect(parseEthernet(view)).toEqual(taggedRepr);
    expect(view.tagged).toBe(true);
    expect(view.outerEthertype).toBe(ETHERTYPE_VLAN);
    expect([view.pcp, view.dei, view.vid]).toEqual([5, true, 291]);
    expect(view.headerLen).toBe(18);
    expect(toHex(view.payload())).toBe(toHex(tagged.subarray(18)));
  });

  it('keeps an unknown ethertype as a number', () => {
    const frame = untagged.slice();
    frame[12] = 0x88;
    frame[13] = 0xb5; // IEEE local experimental
    expect(parseEthernet(EthernetView.checked(frame) as EthernetView).ethertype).toBe(0x88b5);
  });

  it('writes the golden untagged frame into a poisoned buffer', () => {
    const out = poisoned(untagged.length);
    out.set(untagged.subarray(ETHERNET_HEADER_LEN), ETHERNET_HEADER_LEN);
    emitEthernet(untaggedRepr, EthernetView.unchecked(out));
    expect(toHex(out)).toBe(toHex(untagged));
    expect(ethernetHeaderLen(untaggedRepr)).toBe(14);
  });

  it('writes the golden 802.1Q-tagged frame into a poisoned buffer', () => {
    const out = poisoned(tagged.length);
    out.set(tagged.subarray(ETHERNET_VLAN_HEADER_LEN), ETHERNET_VLAN_HEADER_LEN);
    emitEthernet(taggedRepr, EthernetView.unchecked(out));
    expect(toHex(out)).toBe(toHex(tagged));
    expect(ethernetHeaderLen(taggedRepr)).toBe(18);
  });

  it('sets each tag field without disturbing the others', () => {
    const view = EthernetView.checked(tagged.slice()) as EthernetView;
    view.pcp = 2;
    expect([view.pcp, view.dei, view.vid]).toEqual([2, true, 291]);
    view.dei = false;
    expect([view.pcp, view.dei, view.vid]).toEqual([2, false, 291]);
    view.vid = 4095;
    expect([view.pcp, view.dei, view.vid]).toEqual([2, false, 4095]);
    view.ethertype = ETHERTYPE_ARP;
    expect([view.outerEthertype, view.ethertype]).toEqual([ETHERTYPE_VLAN, ETHERTYPE_ARP]);
  });

  it('reads no tag on an untagged frame and refuses to write one', () => {
    const view = EthernetView.checked(untagged.subarray(0, 14)) as EthernetView;
    expect([view.pcp, view.dei, view.vid]).toEqual([0, false, 0]);
    expect(() => {
      view.vid = 1;
    }).toThrow(/ETHERTYPE_VLAN/);
  });

  it('ethernet.truncated', () => {
    expect(EthernetView.checked(untagged.subarray(0, 13))).toMatchObject({ defect: 'ethernet.truncated' });
    expect(EthernetView.checked(untagged, untagged.length - 13)).toMatchObject({
      defect: 'ethernet.truncated',
    });
  });

  it('ethernet.vlan-truncated', () => {
    expect(EthernetView.checked(tagged.subarray(0, 17))).toMatchObject({ defect: 'ethernet.vlan-truncated' });
    expect(EthernetView.checked(tagged.subarray(0, 18))).not.toSatisfy(isWireError);
  });

  const reprArb: fc.Arbitrary<EthernetRepr> = fc
    .record({
      dstAddr: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
      srcAddr: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
      ethertype: fc.integer({ min: 0, max: 0xffff }),
      vlan: fc.option(
        fc.record({
          pcp: fc.integer({ min: 0, max: 7 }),
          dei: fc.boolean(),
          vid: fc.integer({ min: 0, max: 4095 }),
        }),
        { nil: undefined },
      ),
    })
    .map(({ vlan, ...rest }) => (vlan === undefined ? rest : { ...rest, vlan }));

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(reprArb, fc.uint8Array({ maxLength: 64 }), (repr, payload) => {
        const headerLen = ethernetHeaderLen(repr);
        const first = new Uint8Array(headerLen + payload.length);
        first.set(payload, headerLen);
        emitEthernet(repr, EthernetView.unchecked(first));
        const view = EthernetView.checked(first);
        if (isWireError(view)) throw new Error(view.defect);
        const parsed = parseEthernet(view);
        expect(parsed).toEqual(repr);
        const second = first.slice();
        second.fill(0xa5, 0, headerLen);
        emitEthernet(parsed, EthernetView.unchecked(second));
        expect(toHex(second)).toBe(toHex(first));
      }),
    );
  });

  it('never throws or reads out of bounds on random bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40, size: 'max' }),
        fc.nat(24),
        fc.boolean(),
        (random, offset, vlan) => {
          const bytes = random.slice();
          // Half the time, put a TPID where the type field falls so tagged frames get exercised.
          if (vlan && offset + 13 < bytes.length) bytes.set([0x81, 0x00], offset + 12);
          const view = EthernetView.checked(strict(bytes), offset);
          if (isWireError(view)) return;
          parseEthernet(view);
          void [view.tagged, view.outerEthertype, view.pcp, view.dei, view.vid, view.headerLen];
          view.payload();
        },
      ),
      { numRuns: 1000 },
    );
  });
});
