import { describe, expect, it } from 'vitest';
import {
  type OutgoingOptions,
  optionsLength,
  ReceivedOptions,
  type SackBlockSource,
  writeOptions,
} from '../../../src/socket/tcp/options.ts';
import { TCP_HEADER_LEN, TcpView } from '../../../src/wire/tcp.ts';
import { hex, poisoned, toHex } from '../../support/bytes.ts';

const established = (timestamps: boolean): OutgoingOptions => ({
  mss: 0,
  sackPermitted: false,
  timestamps,
  tsVal: 0x01020304,
  tsEcr: 0x05060708,
  wscale: -1,
});

function blocks(...pairs: [number, number][]): SackBlockSource {
  return {
    blockCount: pairs.length,
    blockStart: (i) => pairs[i]![0],
    blockEnd: (i) => pairs[i]![1],
  };
}

const pairs: [number, number][] = [
  [0x0000_1000, 0x0000_2000],
  [0xffff_f000, 0x0000_0010],
  [0x1111_1111, 0x2222_2222],
  [0x3333_3333, 0x4444_4444],
];

describe('SACK blocks in established segments (tcp_established_options, tcp_options_write)', () => {
  it('writes two blocks after the timestamps, each group led by two NOPs', () => {
    const sack = blocks(pairs[0]!, pairs[1]!);
    const options = established(true);
    expect(optionsLength(options, sack)).toBe(32);
    const out = poisoned(34);
    expect(writeOptions(out, 1, options, sack)).toBe(33);
    expect(toHex(out)).toBe(
      toHex(hex('a5 0101080a 01020304 05060708 01010512 00001000 00002000 fffff000 00000010 a5')),
    );
  });

  it('with timestamps only three of four blocks fit in the 40 bytes of options', () => {
    const sack = blocks(...pairs);
    const options = established(true);
    expect(optionsLength(options, sack)).toBe(40);
    const out = poisoned(40);
    writeOptions(out, 0, options, sack);
    expect(toHex(out)).toBe(
      toHex(hex('0101080a 01020304 05060708 0101051a 00001000 00002000 fffff000 00000010 11111111 22222222')),
    );
  });

  it('without timestamps all four blocks fit', () => {
    const sack = blocks(...pairs);
    const options = established(false);
    expect(optionsLength(options, sack)).toBe(36);
    const out = poisoned(36);
    writeOptions(out, 0, options, sack);
    expect(toHex(out)).toBe(
      toHex(hex('01010522 00001000 00002000 fffff000 00000010 11111111 22222222 33333333 44444444')),
    );
  });

  it('no blocks, no SACK option', () => {
    expect(optionsLength(established(true), blocks())).toBe(12);
    expect(optionsLength(established(true))).toBe(12);
  });
});

/** A TCP header with these option bytes (ACK set, not a SYN). */
function segmentWith(options: string): TcpView {
  const optionBytes = hex(options);
  const bytes = new Uint8Array(TCP_HEADER_LEN + optionBytes.length);
  bytes.set(optionBytes, TCP_HEADER_LEN);
  const view = TcpView.unchecked(bytes);
  view.headerLen = bytes.length;
  view.flags = 0x10;
  return view;
}

describe('reading SACK blocks (tcp_parse_options)', () => {
  it('reads the blocks of the golden option', () => {
    const received = new ReceivedOptions();
    received.parse(
      segmentWith('0101080a 01020304 05060708 01010512 00001000 00002000 fffff000 00000010'),
      false,
    );
    expect(received.sawTimestamp).toBe(true);
    expect(received.sackCount).toBe(2);
    expect([...received.sackEdges.subarray(0, 4)]).toEqual([0x1000, 0x2000, 0xfffff000, 0x10]);
  });

  it('sack.not-whole-blocks: a length that is not 2 + 8n is skipped', () => {
    const received = new ReceivedOptions();
    received.parse(segmentWith('0101050c 00001000 00002000 0000'), false);
    expect(received.sackCount).toBe(0);
  });

  it('sack.no-block: a bare kind and length carries nothing', () => {
    const received = new ReceivedOptions();
    received.parse(segmentWith('01010502'), false);
    expect(received.sackCount).toBe(0);
  });

  it('sack.truncated: an option running past the header ends the walk', () => {
    const received = new ReceivedOptions();
    received.parse(segmentWith('01010512 00001000 00002000'), false);
    expect(received.sackCount).toBe(0);
  });

  it('the count resets on every segment', () => {
    const received = new ReceivedOptions();
    received.parse(segmentWith('0101050a 00001000 00002000'), false);
    expect(received.sackCount).toBe(1);
    received.parse(segmentWith('0101080a 01020304 05060708'), false);
    expect(received.sackCount).toBe(0);
  });
});
