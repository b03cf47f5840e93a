import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWireError } from '../../src/wire/error.ts';
import {
  emitVxlan,
  parseVxlan,
  VXLAN_HEADER_LEN,
  VXLAN_VNI_MAX,
  type VxlanRepr,
  VxlanView,
  vxlanHeaderLen,
} from '../../src/wire/vxlan.ts';
import { hex, poisoned, toHex } from '../support/bytes.ts';

// Built with Python's struct from RFC 7348 inside Ethernet/IPv4/UDP, written to a pcap and read
// back by tshark 4.0 (`-d udp.port==8472,vxlan`): "VXLAN Network ID (VNI): True", VNI 1 and
// 11259375, reserved 0, and the inner Ethernet/IPv4/ICMP echo 10.244.1.5 -> 10.244.2.7 decoded.
const inner = hex(`
  5a94efe40cee 261f52c9a311 0800                          # inner Ethernet
  4500 0020 0a0b 4000 4001 17df 0af40105 0af40207         # inner IPv4
  0800 3337 0001 0001 61626364                            # ICMP echo "abcd"
`);
const flannel = hex(`08 000000 000001 00 ${toHex(inner)}`); // VNI 1, port 8472
const wide = hex(`08 000000 abcdef 00 ${toHex(inner)}`); // VNI 0xabcdef, port 4789

const goldens = [
  { name: 'VNI 1 (flannel)', bytes: flannel, repr: { vni: 1 } },
  { name: 'VNI 0xabcdef', bytes: wide, repr: { vni: 0xabcdef } },
];

describe('vxlan', () => {
  for (const golden of goldens) {
    it(`reads the golden ${golden.name}`, () => {
      const view = VxlanView.checked(golden.bytes);
      if (isWireError(view)) throw view;
      expect(parseVxlan(view)).toEqual(golden.repr);
      expect(view.vniValid).toBe(true);
      expect([view.flags, view.reserved1, view.reserved2]).toEqual([0x08, 0, 0]);
      expect(toHex(view.payload())).toBe(toHex(inner));
    });

    it(`writes the golden ${golden.name} into a poisoned buffer`, () => {
      const out = poisoned(golden.bytes.length);
      out.set(inner, VXLAN_HEADER_LEN);
      emitVxlan(golden.repr, VxlanView.unchecked(out));
      expect(toHex(out)).toBe(toHex(golden.bytes));
    });
  }

  it('ignores reserved bits, as RFC 7348 asks', () => {
    const view = VxlanView.checked(hex('0c ffffff 000001 ff')) as VxlanView;
    expect([view.flags, view.reserved1, view.reserved2]).toEqual([0x0c, 0xffffff, 0xff]);
    expect(parseVxlan(view)).toEqual({ vni: 1 });
  });

  it('sets and clears the I flag alone', () => {
    const view = VxlanView.unchecked(hex('f7 000000 000000 00'));
    view.vniValid = true;
    expect(view.flags).toBe(0xff);
    view.vniValid = false;
    expect(view.flags).toBe(0xf7);
  });

  it('reads a header at an offset', () => {
    const framed = new Uint8Array(42 + flannel.length);
    framed.set(flannel, 42);
    expect(parseVxlan(VxlanView.checked(framed, 42) as VxlanView)).toEqual({ vni: 1 });
  });

  it('vxlan.truncated', () => {
    expect(VxlanView.checked(flannel.subarray(0, VXLAN_HEADER_LEN - 1))).toMatchObject({
      defect: 'vxlan.truncated',
    });
  });

  it('vxlan.missing-vni-flag', () => {
    const bad = flannel.slice();
    bad[0] = 0x00;
    expect(parseVxlan(VxlanView.checked(bad) as VxlanView)).toMatchObject({
      defect: 'vxlan.missing-vni-flag',
    });
  });

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: VXLAN_VNI_MAX }),
        fc.uint8Array({ maxLength: 64 }),
        (vni, payload) => {
          const repr: VxlanRepr = { vni };
          const first = new Uint8Array(vxlanHeaderLen(repr) + payload.length);
          first.set(payload, VXLAN_HEADER_LEN);
          emitVxlan(repr, VxlanView.unchecked(first));
          const parsed = parseVxlan(VxlanView.checked(first) as VxlanView);
          if (isWireError(parsed)) throw new Error(parsed.defect);
          const second = first.slice();
          second.fill(0xa5, 0, VXLAN_HEADER_LEN);
          emitVxlan(parsed, VxlanView.unchecked(second));
          expect(toHex(second)).toBe(toHex(first));
        },
      ),
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), fc.nat(8), (bytes, offset) => {
        const view = VxlanView.checked(bytes, Math.min(offset, bytes.length));
        if (!isWireError(view)) {
          parseVxlan(view);
          view.payload();
        }
      }),
    );
  });
});
