import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/wire/address.ts';
import { isWireError } from '../../src/wire/error.ts';
import {
  emitProxyV2,
  PROXY_AF_INET6,
  PROXY_AF_UNIX,
  PROXY_TLV_AUTHORITY,
  PROXY_TLV_NOOP,
  PROXY_TRANSPORT_STREAM,
  PROXY_TRANSPORT_UNSPEC,
  PROXY_V2_HEADER_LEN,
  PROXY_V2_IPV6_BLOCK_LEN,
  PROXY_V2_UNIX_BLOCK_LEN,
  type ProxyAddresses,
  type ProxyV2Repr,
  ProxyV2View,
  parseProxyV2,
  proxyV2HeaderLen,
} from '../../src/wire/proxy-v2.ts';
import { hex, poisoned, toHex } from '../support/bytes.ts';

const SIGNATURE = '0d0a0d0a000d0a515549540a';
const clientToService: ProxyAddresses = {
  type: 'ipv4',
  srcAddr: parseIpv4('203.0.113.7')!,
  dstAddr: parseIpv4('10.96.40.12')!,
  srcPort: 51234,
  dstPort: 80,
};

// Built with Python's struct from haproxy's proxy-protocol.txt, sent as the start of a TCP
// stream in a pcap and read back by tshark 4.0's PROXY dissector: version 2, command 1,
// "TCP over IPv4 (0x11)", length 12 (then 32), 203.0.113.7:51234 -> 10.96.40.12:80, and
// "TLV: (t=2,l=11) AUTHORITY". tshark 4.0 shows only a header's first TLV, so the NOOP TLV
// was checked by putting it first in a second capture: "TLV: (t=4,l=3) NOOP".
const plain = hex(`
  ${SIGNATURE}
  21 11 000c                     # version 2 PROXY, TCP over IPv4, 12 bytes follow
  cb007107 0a60280c c822 0050    # 203.0.113.7 -> 10.96.40.12, 51234 -> 80
  474554                         # the proxied stream: "GET"
`);
const withTlvs = hex(`
  ${SIGNATURE}
  21 11 0020
  cb007107 0a60280c c822 0050
  02 000b 6578616d706c652e636f6d # AUTHORITY "example.com"
  04 0003 000000                 # NOOP
  474554
`);
// A health check: LOCAL, UNSPEC, nothing follows (tshark: "Command: 0", "UNSPEC (0x00)", length 0).
const local = hex(`${SIGNATURE} 20 00 0000`);

const encoder = new TextEncoder();
const goldens: { name: string; bytes: Uint8Array; repr: ProxyV2Repr; payload: string }[] = [
  {
    name: 'PROXY TCP/IPv4 header',
    bytes: plain,
    repr: { command: 'proxy', transport: PROXY_TRANSPORT_STREAM, addresses: clientToService, tlvs: [] },
    payload: 'GET',
  },
  {
    name: 'PROXY TCP/IPv4 header with TLVs',
    bytes: withTlvs,
    repr: {
      command: 'proxy',
      transport: PROXY_TRANSPORT_STREAM,
      addresses: clientToService,
      tlvs: [
        { type: PROXY_TLV_AUTHORITY, value: encoder.encode('example.com') },
        { type: PROXY_TLV_NOOP, value: new Uint8Array(3) },
      ],
    },
    payload: 'GET',
  },
  {
    name: 'LOCAL header',
    bytes: local,
    repr: {
      command: 'local',
      transport: PROXY_TRANSPORT_UNSPEC,
      addresses: { type: 'raw', family: 0, bytes: new Uint8Array(0) },
      tlvs: [],
    },
    payload: '',
  },
];

function checkedView(bytes: Uint8Array): ProxyV2View {
  const view = ProxyV2View.checked(bytes);
  if (isWireError(view)) throw new Error(view.defect);
  return view;
}

describe('proxy-v2', () => {
  for (const golden of goldens) {
    it(`reads the golden ${golden.name}`, () => {
      const view = checkedView(golden.bytes);
      expect(parseProxyV2(view)).toEqual(golden.repr);
      expect(new TextDecoder().decode(view.payload())).toBe(golden.payload);
    });

    it(`writes the golden ${golden.name} into a poisoned buffer`, () => {
      const out = poisoned(golden.bytes.length);
      const headerLen = proxyV2HeaderLen(golden.repr);
      out.set(golden.bytes.subarray(headerLen), headerLen);
      emitProxyV2(golden.repr, ProxyV2View.unchecked(out));
      expect(toHex(out)).toBe(toHex(golden.bytes));
    });
  }

  it('reads the golden TCP/IPv4 header through the view accessors', () => {
    const view = checkedView(plain);
    expect([view.version, view.command, view.family, view.transport]).toEqual([2, 1, 1, 1]);
    expect([view.length, view.headerLen, view.addressBlockLen]).toEqual([12, 28, 12]);
    expect([view.srcAddr, view.dstAddr, view.srcPort, view.dstPort]).toEqual([
      0xcb007107, 0x0a60280c, 51234, 80,
    ]);
    expect(view.tlvArea().length).toBe(0);
  });

  it('keeps an IPv6 address block raw and reads the TLVs after it', () => {
    const block = new Uint8Array(PROXY_V2_IPV6_BLOCK_LEN).fill(0x20);
    const bytes = hex(`${SIGNATURE} 21 21 0029 ${toHex(block)} 04 0002 0000`);
    const view = checkedView(bytes);
    expect([view.srcAddr, view.srcPort]).toEqual([0, 0]); // AF_INET fields read 0 for other families
    expect(parseProxyV2(view)).toEqual({
      command: 'proxy',
      transport: PROXY_TRANSPORT_STREAM,
      addresses: { type: 'raw', family: PROXY_AF_INET6, bytes: block },
      tlvs: [{ type: PROXY_TLV_NOOP, value: new Uint8Array(2) }],
    });
  });

  it('keeps an unassigned family and its whole block raw', () => {
    const bytes = hex(`${SIGNATURE} 21 7f 0005 0102030405`);
    expect(parseProxyV2(checkedView(bytes))).toEqual({
      command: 'proxy',
      transport: 0xf,
      addresses: { type: 'raw', family: 7, bytes: hex('0102030405') },
      tlvs: [],
    });
  });

  it('proxy.truncated', () => {
    expect(ProxyV2View.checked(plain.subarray(0, PROXY_V2_HEADER_LEN - 1))).toMatchObject({
      defect: 'proxy.truncated',
    });
  });

  it('proxy.bad-signature', () => {
    // A version 1 (text) header is not a v2 header.
    const v1 = encoder.encode('PROXY TCP4 203.0.113.7 10.96.40.12 51234 80\r\n');
    expect(ProxyV2View.checked(v1)).toMatchObject({ defect: 'proxy.bad-signature' });
    const bad = plain.slice();
    bad[11] = 0x0d;
    expect(ProxyV2View.checked(bad)).toMatchObject({ defect: 'proxy.bad-signature' });
  });

  it('proxy.bad-version', () => {
    const bad = plain.slice();
    bad[12] = 0x11;
    expect(ProxyV2View.checked(bad)).toMatchObject({ defect: 'proxy.bad-version' });
  });

  it('proxy.bad-command', () => {
    const bad = plain.slice();
    bad[12] = 0x22;
    expect(ProxyV2View.checked(bad)).toMatchObject({ defect: 'proxy.bad-command' });
  });

  it('proxy.length-exceeds-buffer', () => {
    expect(ProxyV2View.checked(plain.subarray(0, 27))).toMatchObject({
      defect: 'proxy.length-exceeds-buffer',
    });
  });

  describe('proxy.address-block-too-short', () => {
    it('AF_INET with 8 bytes', () => {
      const bytes = hex(`${SIGNATURE} 21 11 0008 cb007107 0a60280c`);
      expect(ProxyV2View.checked(bytes)).toMatchObject({ defect: 'proxy.address-block-too-short' });
    });

    it('AF_INET6 with an IPv4-sized block', () => {
      const bytes = hex(`${SIGNATURE} 21 21 000c cb007107 0a60280c c822 0050`);
      expect(ProxyV2View.checked(bytes)).toMatchObject({ defect: 'proxy.address-block-too-short' });
    });

    it('AF_UNIX with one path', () => {
      const bytes = hex(`${SIGNATURE} 21 31 006c ${'00'.repeat(108)}`);
      expect(ProxyV2View.checked(bytes)).toMatchObject({ defect: 'proxy.address-block-too-short' });
    });
  });

  describe('proxy.bad-tlv', () => {
    it('TLV header cut by the declared length', () => {
      const bytes = hex(`${SIGNATURE} 21 11 000e cb007107 0a60280c c822 0050 0400`);
      expect(parseProxyV2(checkedView(bytes))).toMatchObject({ defect: 'proxy.bad-tlv' });
    });

    it('TLV value past the declared length', () => {
      const bytes = hex(`${SIGNATURE} 21 11 0012 cb007107 0a60280c c822 0050 020004 657861 6d`);
      expect(parseProxyV2(checkedView(bytes))).toMatchObject({ defect: 'proxy.bad-tlv' });
    });
  });

  const u16 = fc.integer({ min: 0, max: 0xffff });
  const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
  const addressesArb: fc.Arbitrary<ProxyAddresses> = fc.oneof(
    fc.record({ type: fc.constant('ipv4' as const), srcAddr: u32, dstAddr: u32, srcPort: u16, dstPort: u16 }),
    fc.record({
      type: fc.constant('raw' as const),
      family: fc.constant(PROXY_AF_INET6),
      bytes: fc.uint8Array({ minLength: PROXY_V2_IPV6_BLOCK_LEN, maxLength: PROXY_V2_IPV6_BLOCK_LEN }),
    }),
    fc.record({
      type: fc.constant('raw' as const),
      family: fc.constant(PROXY_AF_UNIX),
      bytes: fc.uint8Array({ minLength: PROXY_V2_UNIX_BLOCK_LEN, maxLength: PROXY_V2_UNIX_BLOCK_LEN }),
    }),
    fc.record({
      type: fc.constant('raw' as const),
      family: fc.integer({ min: 0, max: 15 }).filter((family) => family < 1 || family > 3),
      bytes: fc.uint8Array({ maxLength: 24 }),
    }),
  );

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(
        fc.record({
          command: fc.constantFrom('local' as const, 'proxy' as const),
          transport: fc.integer({ min: 0, max: 15 }),
          addresses: addressesArb,
          tlvs: fc.array(
            fc.record({ type: fc.integer({ min: 0, max: 255 }), value: fc.uint8Array({ maxLength: 20 }) }),
            { maxLength: 4 },
          ),
        }),
        fc.uint8Array({ maxLength: 16 }),
        (repr, stream) => {
          const headerLen = proxyV2HeaderLen(repr);
          const first = new Uint8Array(headerLen + stream.length);
          first.set(stream, headerLen);
          emitProxyV2(repr, ProxyV2View.unchecked(first));
          const parsed = parseProxyV2(checkedView(first));
          if (isWireError(parsed)) throw new Error(parsed.defect);
          const second = first.slice();
          second.fill(0xa5, 0, headerLen);
          emitProxyV2(parsed, ProxyV2View.unchecked(second));
          expect(toHex(second)).toBe(toHex(first));
        },
      ),
    );
  });

  it('never throws on random bytes', () => {
    // Besides bare random bytes, headers with a valid signature and version whose family byte,
    // declared length (sometimes exactly the rest) and body are random, so every check is reached.
    const headed = (tail: Uint8Array, family: number, exact: boolean): Uint8Array => {
      const length = exact ? tail.length : tail.length ^ family;
      return hex(
        `${SIGNATURE} 21 ${family.toString(16).padStart(2, '0')} ${length.toString(16).padStart(4, '0')} ${toHex(tail)}`,
      );
    };
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom('bare', 'exact', 'skewed'),
        fc.nat(4),
        (tail, family, shape, offset) => {
          const body = shape === 'bare' ? tail : headed(tail, family, shape === 'exact');
          const bytes = new Uint8Array(offset + body.length);
          bytes.set(body, offset);
          const view = ProxyV2View.checked(bytes, offset);
          if (!isWireError(view)) {
            parseProxyV2(view);
            view.payload();
            view.tlvArea();
            view.addressBlock();
            void [view.srcAddr, view.dstAddr, view.srcPort, view.dstPort];
          }
        },
      ),
    );
  });
});
