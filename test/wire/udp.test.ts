import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/wire/address.ts';
import { isWireError } from '../../src/wire/error.ts';
import { emitUdp, parseUdp, UDP_HEADER_LEN, UdpView } from '../../src/wire/udp.ts';
import { hex, poisoned, toHex } from '../support/bytes.ts';

const pseudo = { srcAddr: parseIpv4('10.244.1.5')!, dstAddr: parseIpv4('10.244.2.7')! };
// 10.244.1.5:41234 -> 10.244.2.7:8000, payload "ping"; checksum computed independently with Python's RFC 1071 sum.
const golden = hex('a112 1f40 000c 47bf 70696e67');

describe('udp', () => {
  it('reads the golden datagram', () => {
    const view = UdpView.checked(golden);
    if (isWireError(view)) throw view;
    expect(parseUdp(view, pseudo)).toEqual({ srcPort: 41234, dstPort: 8000, payloadLen: 4 });
    expect(new TextDecoder().decode(view.payload())).toBe('ping');
  });

  it('writes the golden datagram into a poisoned buffer', () => {
    const out = poisoned(golden.length);
    out.set(golden.subarray(UDP_HEADER_LEN), UDP_HEADER_LEN);
    emitUdp({ srcPort: 41234, dstPort: 8000, payloadLen: 4 }, UdpView.unchecked(out), pseudo);
    expect(toHex(out)).toBe(toHex(golden));
  });

  it('udp.truncated', () => {
    expect(UdpView.checked(golden.subarray(0, 7))).toMatchObject({ defect: 'udp.truncated' });
  });

  it('udp.length-below-header', () => {
    expect(UdpView.checked(hex('a112 1f40 0007 0000'))).toMatchObject({ defect: 'udp.length-below-header' });
  });

  it('udp.length-exceeds-buffer', () => {
    expect(UdpView.checked(hex('a112 1f40 000d 0000 70696e67'))).toMatchObject({
      defect: 'udp.length-exceeds-buffer',
    });
  });

  it('udp.bad-checksum', () => {
    const bad = golden.slice();
    bad[7]! ^= 1;
    const view = UdpView.checked(bad) as UdpView;
    expect(parseUdp(view, pseudo)).toMatchObject({ defect: 'udp.bad-checksum' });
  });

  it('accepts a zero checksum as "none"', () => {
    const none = golden.slice();
    none[6] = 0;
    none[7] = 0;
    expect(parseUdp(UdpView.checked(none) as UdpView, pseudo)).not.toSatisfy(isWireError);
  });

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0, max: 0xffff }),
        fc.uint8Array({ maxLength: 64 }),
        (srcPort, dstPort, payload) => {
          const first = new Uint8Array(UDP_HEADER_LEN + payload.length);
          first.set(payload, UDP_HEADER_LEN);
          emitUdp({ srcPort, dstPort, payloadLen: payload.length }, UdpView.unchecked(first), pseudo);
          const repr = parseUdp(UdpView.checked(first) as UdpView, pseudo);
          if (isWireError(repr)) throw new Error(repr.defect);
          const second = first.slice();
          second.fill(0xa5, 0, UDP_HEADER_LEN);
          emitUdp(repr, UdpView.unchecked(second), pseudo);
          expect(toHex(second)).toBe(toHex(first));
        },
      ),
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.nat(8), (bytes, offset) => {
        const view = UdpView.checked(bytes, Math.min(offset, bytes.length));
        if (!isWireError(view)) {
          parseUdp(view, pseudo);
          view.payload();
        }
      }),
    );
  });
});
