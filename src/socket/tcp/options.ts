// TCP options as Linux writes and reads them: the layout of tcp_options_write (SYN, SYN-ACK and established
// segments) and the lenient walk of tcp_parse_options, both without allocating.

import { readU16, readU32, writeU32 } from '../../wire/bytes.ts';
import {
  TCP_HEADER_LEN,
  TCPOPT_EOL,
  TCPOPT_MSS,
  TCPOPT_NOP,
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

/** tcp_options_write's size for these options: every option group is a multiple of 4 bytes. */
export function optionsLength(options: OutgoingOptions): number {
  let length = 0;
  if (options.mss > 0) length += 4;
  if (options.timestamps) length += 12;
  else if (options.sackPermitted) length += 4;
  if (options.wscale >= 0) length += 4;
  return length;
}

/**
 * tcp_options_write: MSS; then timestamps, led by SACK-permitted when both go in a SYN and by
 * two NOPs otherwise; SACK-permitted alone after two NOPs; window scale after one NOP.
 * Returns the offset after the options.
 */
export function writeOptions(bytes: Uint8Array, at: number, options: OutgoingOptions): number {
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

  /**
   * tcp_parse_options: walks the options area; an option that does not fit ends the walk,
   * one with an unexpected length is skipped. MSS, window scale and SACK-permitted count only
   * on a SYN; a window scale above 14 is taken as 14 (with a warning in the kernel log).
   */
  parse(view: TcpView, syn: boolean): void {
    this.mss = 0;
    this.wscale = -1;
    this.sackPermitted = false;
    this.sawTimestamp = false;
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
      }
      at += length;
    }
  }
}
