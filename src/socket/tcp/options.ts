// TCP options as Linux writes and reads them: the layout of tcp_options_write (SYN, SYN-ACK and established
// segments, SACK blocks included) and the lenient walk of tcp_parse_options, both without allocating.
// MD5, TCP-AO, Fast Open and MPTCP options are neither written nor read.

import { readU16, readU32, writeU32 } from '../../wire/bytes.ts';
import {
  TCP_HEADER_LEN,
  TCPOPT_EOL,
  TCPOPT_MSS,
  TCPOPT_NOP,
  TCPOPT_SACK,
  TCPOPT_SACK_PERMITTED,
  TCPOPT_TIMESTAMPS,
  TCPOPT_WINDOW_SCALE,
  type TcpView,
} from '../../wire/tcp.ts';

/** What our side puts in a segment's options. */
export interface OutgoingOptions {
  /** The MSS to announce (SYN and SYN-ACK only), 0 for none. */
  mss: number;
  sackPermitted: boolean;
  timestamps: boolean;
  tsVal: number;
  tsEcr: number;
  /** The window scale to announce (SYN and SYN-ACK only), -1 for none. */
  wscale: number;
}

/** The SACK blocks a receiver announces, D-SACK block first (tp->duplicate_sack then tp->selective_acks). */
export interface SackBlockSource {
  /** num_sacks + dsack: the blocks there are to announce, before the option space limits them. */
  readonly blockCount: number;
  blockStart(index: number): number;
  blockEnd(index: number): number;
}

/** MAX_TCP_OPTION_SPACE. */
const MAX_OPTION_SPACE = 40;
/** TCPOLEN_SACK_BASE_ALIGNED (two NOPs, kind, length) and TCPOLEN_SACK_PERBLOCK. */
const SACK_BASE_ALIGNED = 4;
const SACK_PER_BLOCK = 8;
/** TCP_NUM_SACKS: the most SACK blocks an option carries. */
export const TCP_NUM_SACKS = 4;

/** tcp_options_write's size for these options: every option group is a multiple of 4 bytes. */
export function optionsLength(options: OutgoingOptions, sack?: SackBlockSource): number {
  let length = 0;
  if (options.mss > 0) length += 4;
  if (options.timestamps) length += 12;
  else if (options.sackPermitted) length += 4;
  if (options.wscale >= 0) length += 4;
  const blocks = sackBlocksThatFit(length, sack);
  if (blocks > 0) length += SACK_BASE_ALIGNED + blocks * SACK_PER_BLOCK;
  return length;
}

/**
 * tcp_established_options: as many SACK blocks as the option space left allows (4 alone,
 * 3 after timestamps); none when not even one fits.
 */
export function sackBlocksThatFit(sizeBefore: number, sack: SackBlockSource | undefined): number {
  if (sack === undefined || sack.blockCount === 0) return 0;
  const remaining = MAX_OPTION_SPACE - sizeBefore;
  if (remaining < SACK_BASE_ALIGNED + SACK_PER_BLOCK) return 0;
  return Math.min(sack.blockCount, Math.floor((remaining - SACK_BASE_ALIGNED) / SACK_PER_BLOCK));
}

/**
 * tcp_options_write: MSS; then timestamps, led by SACK-permitted when both go in a SYN and by
 * two NOPs otherwise; SACK-permitted alone after two NOPs; window scale after one NOP; SACK
 * blocks last, after two NOPs. Returns the offset after the options.
 */
export function writeOptions(
  bytes: Uint8Array,
  at: number,
  options: OutgoingOptions,
  sack?: SackBlockSource,
): number {
  const start = at;
  if (options.mss > 0) {
    writeU32(bytes, at, ((TCPOPT_MSS << 24) | (4 << 16) | options.mss) >>> 0);
    at += 4;
  }
  if (options.timestamps) {
    const lead = options.sackPermitted
      ? (TCPOPT_SACK_PERMITTED << 24) | (2 << 16)
      : (TCPOPT_NOP << 24) | (TCPOPT_NOP << 16);
    writeU32(bytes, at, (lead | (TCPOPT_TIMESTAMPS << 8) | 10) >>> 0);
    writeU32(bytes, at + 4, options.tsVal);
    writeU32(bytes, at + 8, options.tsEcr);
    at += 12;
  } else if (options.sackPermitted) {
    writeU32(bytes, at, ((TCPOPT_NOP << 24) | (TCPOPT_NOP << 16) | (TCPOPT_SACK_PERMITTED << 8) | 2) >>> 0);
    at += 4;
  }
  if (options.wscale >= 0) {
    writeU32(bytes, at, ((TCPOPT_NOP << 24) | (TCPOPT_WINDOW_SCALE << 16) | (3 << 8) | options.wscale) >>> 0);
    at += 4;
  }
  const blocks = sackBlocksThatFit(at - start, sack);
  if (blocks > 0 && sack !== undefined) {
    const length = 2 + blocks * SACK_PER_BLOCK;
    writeU32(bytes, at, ((TCPOPT_NOP << 24) | (TCPOPT_NOP << 16) | (TCPOPT_SACK << 8) | length) >>> 0);
    at += 4;
    for (let block = 0; block < blocks; block++) {
      writeU32(bytes, at, sack.blockStart(block));
      writeU32(bytes, at + 4, sack.blockEnd(block));
      at += 8;
    }
  }
  return at;
}

/** What tcp_parse_options found in a received segment; reset before each walk. */
export class ReceivedOptions {
  mss = 0;
  /** -1 when absent. */
  wscale = -1;
  sackPermitted = false;
  sawTimestamp = false;
  tsVal = 0;
  tsEcr = 0;
  /** SACK blocks of the last valid SACK option (0 when none); block i is sackEdges[2i], sackEdges[2i + 1]. */
  sackCount = 0;
  readonly sackEdges = new Uint32Array(2 * TCP_NUM_SACKS);

  /**
   * tcp_parse_options: walks the options area; an option that does not fit ends the walk,
   * one with an unexpected length is skipped. MSS, window scale and SACK-permitted count only
   * on a SYN; a window scale above 14 is taken as 14 (with a warning in the kernel log). A SACK
   * option counts with room for one block or more and a whole number of blocks; the last such
   * option wins, as TCP_SKB_CB(skb)->sacked keeps the last one's offset.
   */
  parse(view: TcpView, syn: boolean): void {
    this.mss = 0;
    this.wscale = -1;
    this.sackPermitted = false;
    this.sawTimestamp = false;
    this.sackCount = 0;
    const bytes = view.bytes;
    const end = view.offset + view.headerLen;
    let at = view.offset + TCP_HEADER_LEN;
    while (at < end) {
      const kind = bytes[at]!;
      if (kind === TCPOPT_EOL) return;
      if (kind === TCPOPT_NOP) {
        at++;
        continue;
      }
      if (at + 2 > end) return;
      const length = bytes[at + 1]!;
      if (length < 2 || at + length > end) return;
      if (kind === TCPOPT_MSS && length === 4 && syn) this.mss = readU16(bytes, at + 2);
      else if (kind === TCPOPT_WINDOW_SCALE && length === 3 && syn)
        this.wscale = Math.min(bytes[at + 2]!, 14);
      else if (kind === TCPOPT_SACK_PERMITTED && length === 2 && syn) this.sackPermitted = true;
      else if (kind === TCPOPT_TIMESTAMPS && length === 10) {
        this.sawTimestamp = true;
        this.tsVal = readU32(bytes, at + 2);
        this.tsEcr = readU32(bytes, at + 6);
      } else if (
        kind === TCPOPT_SACK &&
        length >= 2 + SACK_PER_BLOCK &&
        (length - 2) % SACK_PER_BLOCK === 0 &&
        !syn
      ) {
        this.sackCount = Math.min(TCP_NUM_SACKS, (length - 2) / SACK_PER_BLOCK);
        for (let block = 0; block < this.sackCount; block++) {
          this.sackEdges[2 * block] = readU32(bytes, at + 2 + block * SACK_PER_BLOCK);
          this.sackEdges[2 * block + 1] = readU32(bytes, at + 6 + block * SACK_PER_BLOCK);
        }
      }
      at += length;
    }
  }
}
