import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIpv4 } from '../../src/wire/address.ts';
import { isWireError } from '../../src/wire/error.ts';
import {
  emitTcp,
  parseTcp,
  parseTcpOptions,
  TCP_HEADER_LEN,
  TCP_MAX_OPTIONS_LEN,
  type TcpFlags,
  type TcpOption,
  type TcpRepr,
  TcpView,
  tcpHeaderLen,
  tcpOptionLen,
} from '../../src/wire/tcp.ts';
import { hex, poisoned, toHex } from '../support/bytes.ts';

const client = parseIpv4('10.244.1.5')!;
const server = parseIpv4('10.244.2.7')!;
const toServer = { srcAddr: client, dstAddr: server };
const toClient = { srcAddr: server, dstAddr: client };

const NO_FLAGS: TcpFlags = {
  fin: false,
  syn: false,
  rst: false,
  psh: false,
  ack: false,
  urg: false,
  ece: false,
  cwr: false,
};
const flags = (on: Partial<TcpFlags>): TcpFlags => ({ ...NO_FLAGS, ...on });

// Golden segments built with Python's struct from RFC 9293, checksums by an RFC 1071 sum in Python,
// then written to a pcap inside Ethernet/IPv4 and read back by tshark 4.0 with
// `-o tcp.check_checksum:TRUE`: every checksum "Good", every field as in the reprs below.

// 10.244.1.5:41234 -> 10.244.2.7:8000 SYN, Linux's SYN options: mss 1460, sackOK, TS, nop, wscale 7.
const syn = hex(`
  a112 1f40 9c3a7f01 00000000   # ports, seq 2621079297, ack 0
  a0 02 faf0 7516 0000          # data offset 10 (40 bytes), SYN, window 64240, checksum, urgent
  020405b4                      # mss 1460
  0402                          # sack-permitted
  080a 0016e360 00000000        # timestamps val 1500000 ecr 0
  01                            # nop
  030307                        # window scale 7
`);
const synRepr: TcpRepr = {
  srcPort: 41234,
  dstPort: 8000,
  seqNumber: 0x9c3a7f01,
  ackNumber: 0,
  flags: flags({ syn: true }),
  window: 64240,
  urgentPointer: 0,
  options: [
    { type: 'mss', mss: 1460 },
    { type: 'sack-permitted' },
    { type: 'timestamps', tsVal: 1500000, tsEcr: 0 },
    { type: 'nop' },
    { type: 'window-scale', shift: 7 },
  ],
  payloadLen: 0,
};

// PSH|ACK with nop, nop, TS and the payload "ping\n".
const data = hex(`
  a112 1f40 9c3a7f02 51f0e2a4
  80 18 01f6 63dd 0000
  0101 080a 0016e3a1 7f2b9c10
  70696e670a
`);
const dataRepr: TcpRepr = {
  srcPort: 41234,
  dstPort: 8000,
  seqNumber: 0x9c3a7f02,
  ackNumber: 0x51f0e2a4,
  flags: flags({ psh: true, ack: true }),
  window: 502,
  urgentPointer: 0,
  options: [{ type: 'nop' }, { type: 'nop' }, { type: 'timestamps', tsVal: 0x0016e3a1, tsEcr: 0x7f2b9c10 }],
  payloadLen: 5,
};

// 10.244.2.7:8000 -> 10.244.1.5:41234 duplicate ACK: nop, nop, TS, nop, nop, one SACK block.
const sack = hex(`
  1f40 a112 51f0e2a4 9c3a7f07
  b0 10 01fd 8bb2 0000
  0101 080a 0016e400 7f2b9d00
  0101 050a 51f0f000 51f0f5b4
`);
const sackRepr: TcpRepr = {
  srcPort: 8000,
  dstPort: 41234,
  seqNumber: 0x51f0e2a4,
  ackNumber: 0x9c3a7f07,
  flags: flags({ ack: true }),
  window: 509,
  urgentPointer: 0,
  options: [
    { type: 'nop' },
    { type: 'nop' },
    { type: 'timestamps', tsVal: 0x0016e400, tsEcr: 0x7f2b9d00 },
    { type: 'nop' },
    { type: 'nop' },
    { type: 'sack', blocks: [{ left: 0x51f0f000, right: 0x51f0f5b4 }] },
  ],
  payloadLen: 0,
};

// FIN|RST|URG|ECE|CWR, seq 0xffffffff (stays unsigned), urgent pointer 258, one byte "x".
const odd = hex('0001 ffff ffffffff 80000001 50 e5 0000 9d06 0102 78');
const oddRepr: TcpRepr = {
  srcPort: 1,
  dstPort: 65535,
  seqNumber: 0xffffffff,
  ackNumber: 0x80000001,
  flags: flags({ fin: true, rst: true, urg: true, ece: true, cwr: true }),
  window: 0,
  urgentPointer: 258,
  options: [],
  payloadLen: 1,
};

const goldens = [
  { name: 'SYN with Linux options', bytes: syn, repr: synRepr, pseudo: toServer },
  { name: 'PSH|ACK with data', bytes: data, repr: dataRepr, pseudo: toServer },
  { name: 'ACK with a SACK block', bytes: sack, repr: sackRepr, pseudo: toClient },
  { name: 'every odd flag and an urgent pointer', bytes: odd, repr: oddRepr, pseudo: toServer },
];

function checkedView(bytes: Uint8Array): TcpView {
  const view = TcpView.checked(bytes);
  if (isWireError(view)) throw new Error(view.defect);
  return view;
}

describe('tcp', () => {
  for (const golden of goldens) {
    it(`reads the golden ${golden.name}`, () => {
      expect(parseTcp(checkedView(golden.bytes), golden.pseudo)).toEqual(golden.repr);
    });

    it(`writes the golden ${golden.name} into a poisoned buffer`, () => {
      const out = poisoned(golden.bytes.length);
      const headerLen = tcpHeaderLen(golden.repr);
      out.set(golden.bytes.subarray(headerLen), headerLen);
      emitTcp(golden.repr, TcpView.unchecked(out), golden.pseudo);
      expect(toHex(out)).toBe(toHex(golden.bytes));
    });
  }

  it('reads the golden SYN through the view accessors', () => {
    const view = checkedView(syn);
    expect(view.headerLen).toBe(40);
    expect(view.flags).toBe(0x02);
    expect([view.fin, view.syn, view.rst, view.psh, view.ack, view.urg, view.ece, view.cwr]).toEqual([
      false,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(view.checksum).toBe(0x7516);
    expect(view.options().length).toBe(20);
    expect(view.payload().length).toBe(0);
    expect(view.verifyChecksum(toServer)).toBe(true);
  });

  it('ends the payload at the segment length, not the buffer end', () => {
    const padded = new Uint8Array(data.length + 6); // an Ethernet minimum-size pad after the segment
    padded.set(data);
    const view = TcpView.checked(padded, 0, data.length) as TcpView;
    expect(new TextDecoder().decode(view.payload())).toBe('ping\n');
    expect(parseTcp(view, toServer)).toEqual(dataRepr);
  });

  it('reads a segment at an offset', () => {
    const framed = new Uint8Array(14 + 20 + odd.length);
    framed.set(odd, 34);
    expect(parseTcp(TcpView.checked(framed, 34) as TcpView, toServer)).toEqual(oddRepr);
  });

  it('sets each flag bit alone and keeps the reserved bits when setting the header length', () => {
    const view = TcpView.unchecked(new Uint8Array(TCP_HEADER_LEN));
    const names = ['fin', 'syn', 'rst', 'psh', 'ack', 'urg', 'ece', 'cwr'] as const;
    names.forEach((name, bit) => {
      view.flags = 0;
      view[name] = true;
      expect(view.flags).toBe(1 << bit);
      view.flags = 0xff;
      view[name] = false;
      expect(view.flags).toBe(0xff & ~(1 << bit));
    });
    view.reserved = 0x1;
    view.headerLen = 32;
    expect(view.bytes[12]).toBe(0x81);
    expect([view.headerLen, view.reserved]).toEqual([32, 1]);
  });

  it('pads options with EOL to a 4-byte boundary and reads the padding back as one EOL', () => {
    const repr: TcpRepr = {
      ...synRepr,
      options: [
        { type: 'mss', mss: 1460 },
        { type: 'window-scale', shift: 7 },
      ],
    };
    const out = poisoned(tcpHeaderLen(repr));
    emitTcp(repr, TcpView.unchecked(out), toServer);
    expect(toHex(out.subarray(TCP_HEADER_LEN))).toBe('020405b4' + '030307' + '00');
    const parsed = parseTcp(checkedView(out), toServer) as TcpRepr;
    expect(parsed.options).toEqual([...repr.options, { type: 'eol' }]);
  });

  it('stops reading options at EOL', () => {
    const bytes = syn.slice();
    bytes[20] = 0; // EOL where the MSS kind was; the rest is padding, whatever it holds
    expect(parseTcpOptions(checkedView(bytes))).toEqual([{ type: 'eol' }]);
  });

  it('keeps unknown option kinds raw', () => {
    // An experimental option (kind 254, RFC 6994) and two NOPs.
    const bytes = hex('a112 1f40 00000000 00000000 70 10 0000 0000 0000 fe06 f989abcd 0101');
    expect(parseTcpOptions(checkedView(bytes))).toEqual([
      { type: 'unknown', kind: 254, data: hex('f989abcd') },
      { type: 'nop' },
      { type: 'nop' },
    ]);
  });

  it('refuses more than 40 bytes of options as a programmer error', () => {
    const sackBlock = { left: 1, right: 2 };
    const blocks = [sackBlock, sackBlock, sackBlock, sackBlock];
    const timestamps = { type: 'timestamps', tsVal: 1, tsEcr: 2 } as const;
    const repr: TcpRepr = { ...synRepr, options: [timestamps, { type: 'sack', blocks }] }; // 10 + 34 bytes
    expect(() => tcpHeaderLen(repr)).toThrow(RangeError);
  });

  it('tcp.truncated', () => {
    expect(TcpView.checked(syn.subarray(0, TCP_HEADER_LEN - 1))).toMatchObject({ defect: 'tcp.truncated' });
    expect(TcpView.checked(odd, 0, odd.length + 1)).toMatchObject({ defect: 'tcp.truncated' });
  });

  it('tcp.data-offset-too-small', () => {
    const bytes = odd.slice();
    bytes[12] = 0x40; // 4 words: 16 bytes
    expect(TcpView.checked(bytes)).toMatchObject({ defect: 'tcp.data-offset-too-small' });
  });

  it('tcp.data-offset-exceeds-buffer', () => {
    // The golden SYN cut inside its options: the data offset still says 40 bytes.
    expect(TcpView.checked(syn.subarray(0, 36))).toMatchObject({ defect: 'tcp.data-offset-exceeds-buffer' });
  });

  describe('tcp.bad-option', () => {
    // A 24-byte header whose options area is the 4 bytes given.
    const withOptions = (options: string) =>
      checkedView(hex(`a112 1f40 00000000 00000000 60 02 0000 0000 0000 ${options}`));
    const cases = [
      ['length below 2', '0801 0000'],
      ['length past the header', '0206 05b4'],
      ['length byte missing at the header end', '0101 0102'],
      ['mss with the wrong length', '0203 0501'],
      ['window scale with the wrong length', '0304 0700'],
      ['sack-permitted with the wrong length', '0403 0000'],
      ['sack with no block', '0502 0000'],
    ] as const;
    for (const [branch, options] of cases) {
      it(branch, () => {
        expect(parseTcp(withOptions(options))).toMatchObject({ defect: 'tcp.bad-option' });
      });
    }

    it('sack whose length is not a whole number of blocks', () => {
      const view = checkedView(
        hex('a112 1f40 00000000 00000000 80 10 0000 0000 0000 050c 00000001 00000002 00000000'),
      );
      expect(parseTcp(view)).toMatchObject({ defect: 'tcp.bad-option' });
    });

    it('timestamps with the wrong length', () => {
      const view = checkedView(
        hex('a112 1f40 00000000 00000000 70 10 0000 0000 0000 0809 00000001 00000002'),
      );
      expect(parseTcp(view)).toMatchObject({ defect: 'tcp.bad-option' });
    });
  });

  it('tcp.bad-checksum', () => {
    const bad = data.slice();
    bad[bad.length - 1]! ^= 1; // one payload bit
    expect(parseTcp(checkedView(bad), toServer)).toMatchObject({ defect: 'tcp.bad-checksum' });
    const elsewhere = { srcAddr: parseIpv4('10.244.1.6')!, dstAddr: server }; // the pseudo-header counts too
    expect(parseTcp(checkedView(data), elsewhere)).toMatchObject({ defect: 'tcp.bad-checksum' });
  });

  const u16 = fc.integer({ min: 0, max: 0xffff });
  const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
  const optionArb: fc.Arbitrary<TcpOption> = fc.oneof(
    fc.constant({ type: 'nop' as const }),
    fc.record({ type: fc.constant('mss' as const), mss: u16 }),
    fc.record({ type: fc.constant('window-scale' as const), shift: fc.integer({ min: 0, max: 255 }) }),
    fc.constant({ type: 'sack-permitted' as const }),
    fc.record({
      type: fc.constant('sack' as const),
      blocks: fc.array(fc.record({ left: u32, right: u32 }), { minLength: 1, maxLength: 4 }),
    }),
    fc.record({ type: fc.constant('timestamps' as const), tsVal: u32, tsEcr: u32 }),
    fc.record({
      type: fc.constant('unknown' as const),
      kind: fc.integer({ min: 6, max: 255 }).filter((kind) => kind !== 8),
      data: fc.uint8Array({ maxLength: 12 }),
    }),
  );
  const optionsArb = fc
    .tuple(fc.array(optionArb, { maxLength: 8 }), fc.boolean())
    .map(([options, endWithEol]): TcpOption[] => (endWithEol ? [...options, { type: 'eol' }] : options))
    .filter(
      (options) => options.reduce((len, option) => len + tcpOptionLen(option), 0) <= TCP_MAX_OPTIONS_LEN,
    );
  const flagsArb = fc.record({
    fin: fc.boolean(),
    syn: fc.boolean(),
    rst: fc.boolean(),
    psh: fc.boolean(),
    ack: fc.boolean(),
    urg: fc.boolean(),
    ece: fc.boolean(),
    cwr: fc.boolean(),
  });

  it('round-trips emit -> parse -> emit byte for byte', () => {
    fc.assert(
      fc.property(
        fc.record({
          srcPort: u16,
          dstPort: u16,
          seqNumber: u32,
          ackNumber: u32,
          flags: flagsArb,
          window: u16,
          urgentPointer: u16,
          options: optionsArb,
        }),
        fc.uint8Array({ maxLength: 64 }),
        (fields, payload) => {
          const repr: TcpRepr = { ...fields, payloadLen: payload.length };
          const headerLen = tcpHeaderLen(repr);
          const first = new Uint8Array(headerLen + payload.length);
          first.set(payload, headerLen);
          emitTcp(repr, TcpView.unchecked(first), toServer);
          const parsed = parseTcp(checkedView(first), toServer);
          if (isWireError(parsed)) throw new Error(parsed.defect);
          const second = first.slice();
          second.fill(0xa5, 0, headerLen);
          emitTcp(parsed, TcpView.unchecked(second), toServer);
          expect(toHex(second)).toBe(toHex(first));
        },
      ),
    );
  });

  it('never throws on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat(8), fc.nat(90), (bytes, offset, segmentLen) => {
        const at = Math.min(offset, bytes.length);
        for (const view of [TcpView.checked(bytes, at), TcpView.checked(bytes, at, segmentLen)]) {
          if (!isWireError(view)) {
            parseTcp(view, toServer);
            parseTcp(view);
            view.payload();
            view.options();
          }
        }
      }),
    );
  });
});
