// A tcpdump-style printer for captured frames (what `tcpdump -nn [-e]` 4.99 prints after the timestamp), Ethernet and Linux cooked v1 and v2 link types; the dispatcher over the per-protocol printers in print/, as tcpdump's print.c over its print-*.c. With -v/-vv detail; no IPv6, no LLC/SNAP; of the application protocols only DNS on UDP port 53, HTTP lines and VXLAN/OTV are decoded.
//
// The printers walk the bytes as tcpdump's dissectors do (print-ether.c, print-sll.c,
// print-arp.c, print-ip.c, print-tcp.c, print-udp.c, print-icmp.c, print-vxlan.c, print-otv.c,
// util-print.c, read as a reference for the output format): every read is bounds-checked
// against the captured bytes, and a read past them ends the line with tcpdump's ` [|proto]`
// truncation marker, naming the protocol being decoded. Malformed headers print tcpdump's own
// complaints (`bad-hlen`, `truncated-udplength`, `[bad hdr length ...]`, `[bad opt]`).
// Bad or truncated input never throws.
//
// tcpdump prints TCP sequence numbers relative to the first segment with ACK it sees of a
// conversation, so it keeps state across packets: pass one TcpSeqTable (or use a
// TcpdumpPrinter) for a whole capture, or none to print each frame as if it were the first.
// Interface names of an SLL2 capture come from the `ifName` callback (tcpdump asks the host it
// runs on); an unknown index prints `?`, as tcpdump does.

import { asciiPrint, hexAndAsciiPrint, hexPrint } from './print/ascii.ts';
import { etherPrint } from './print/ether.ts';
import { Dissector, Truncated } from './print/netdissect.ts';
import type { PrintOptions } from './print/options.ts';
import { sll2Print, sllPrint } from './print/sll.ts';
import { TcpSeqTable } from './print/tcp-seq.ts';
import { formatTimestamp, TimestampClock, type TimestampFormat } from './print/timestamp.ts';

export type { PrintLinkType, PrintOptions } from './print/options.ts';
export { TcpSeqTable } from './print/tcp-seq.ts';
export {
  formatTimestamp,
  formatTimestampAt,
  TimestampClock,
  type TimestampFormat,
} from './print/timestamp.ts';

/** `-x`/`-xx` (hex), `-X`/`-XX` (hex and ASCII), `-A`/`-AA` (ASCII) after each packet; the doubled forms include the link-layer header. */
export interface PacketDump {
  readonly style: 'hex' | 'hex-ascii' | 'ascii';
  readonly withLinkHeader: boolean;
}

export interface LineOptions extends PrintOptions {
  readonly timestamp?: TimestampFormat;
  /** `--nano`: nine fractional digits instead of six (micro digits are truncated, as libpcap does). */
  readonly nano?: boolean;
  /** The raw bytes after each packet's lines (-x, -X, -A and their doubled forms). */
  readonly dump?: PacketDump;
  /** `-#`: each line starts with the packet's number, from 1. */
  readonly packetNumbers?: boolean;
  /**
   * Seconds since 1970-01-01 UTC at virtual time 0, for the clock and date formats of
   * formatLine (default 0: the simulation starts on 1970-01-01). Capture files carry their own dates.
   */
  readonly epochSeconds?: number;
}

/** A printer that keeps tcpdump's per-capture state across frames: relative TCP sequence numbers, -ttt's previous time, -#'s count. */
export class TcpdumpPrinter {
  private readonly tcpSeq = new TcpSeqTable();
  private readonly clock: TimestampClock;
  private packets = 0;

  constructor(private readonly options: Omit<LineOptions, 'tcpSeq' | 'wireLength'>) {
    this.clock = new TimestampClock(options.timestamp ?? 'clock', options.nano ?? false);
  }

  /** The text after the timestamp. */
  format(frame: Uint8Array, wireLength: number = frame.length): string {
    return formatFrame(frame, { ...this.options, wireLength, tcpSeq: this.tcpSeq });
  }

  /** The whole line (lines, for VXLAN and dumps) at virtual time `timeNs`, timestamp first. */
  formatLine(timeNs: number, frame: Uint8Array, wireLength: number = frame.length): string {
    const ns = Math.max(0, Math.floor(timeNs));
    const seconds = Math.floor(ns / NS_PER_SEC);
    return this.formatRecord(
      seconds + (this.options.epochSeconds ?? 0),
      ns - seconds * NS_PER_SEC,
      frame,
      wireLength,
    );
  }

  /** The whole line for a capture file's record: `seconds` since the epoch and `nanos` in the second, as the file holds them. */
  formatRecord(seconds: number, nanos: number, frame: Uint8Array, wireLength: number = frame.length): string {
    this.packets++;
    const number = this.options.packetNumbers === true ? `${String(this.packets).padStart(5, ' ')}  ` : '';
    const options = { ...this.options, wireLength, tcpSeq: this.tcpSeq };
    const invalid = invalidHeader(frame.length, wireLength);
    if (invalid !== undefined) return `${number}${invalid}`;
    const stamp = this.clock.next(seconds, nanos);
    return `${number}${stamp === '' ? '' : `${stamp} `}${printPacket(frame, options)}`;
  }
}

const NS_PER_SEC = 1_000_000_000;

/** The full tcpdump line for one frame: timestamp, a space, then formatFrame's text (and the dump, if asked). */
export function formatTcpdumpLine(timeNs: number, frame: Uint8Array, options: LineOptions): string {
  const invalid = invalidHeader(frame.length, options.wireLength ?? frame.length);
  if (invalid !== undefined) return invalid; // tcpdump prints the invalid-header notice without a timestamp
  const stamp = formatTimestamp(timeNs, options.timestamp ?? 'clock', options.nano ?? false);
  const body = printPacket(frame, options);
  return stamp === '' ? body : `${stamp} ${body}`;
}

/** pretty_print_packet's sanity checks: the notice for a record tcpdump will not decode. */
function invalidHeader(caplen: number, wireLength: number): string | undefined {
  const problems: string[] = [];
  if (caplen === 0) problems.push('caplen==0');
  if (wireLength === 0) problems.push('len==0');
  else if (wireLength < caplen) problems.push(`len(${wireLength}) < caplen(${caplen})`);
  return problems.length === 0 ? undefined : `[Invalid header: ${problems.join(', ')}]`;
}

/**
 * What `tcpdump -nn` (with `showLinkLayer`, `-e`) prints for one captured frame after the
 * timestamp and its space. Several lines for VXLAN (the inner frame starts a new line) and
 * for unknown EtherTypes (a hex dump follows, each line starting with a tab).
 */
export function formatFrame(frame: Uint8Array, options: PrintOptions): string {
  const invalid = invalidHeader(frame.length, options.wireLength ?? frame.length);
  if (invalid !== undefined) return invalid;
  return dissect(frame, options).out;
}

/** The decoded text, then the dump of -x/-X/-A (the link header left out unless doubled). */
function printPacket(frame: Uint8Array, options: LineOptions): string {
  const dump = options.dump;
  if (dump === undefined) return dissect(frame, options).out;
  const d = dissect(frame, { ...options, suppressDefaultPrint: dump.style !== 'ascii' });
  const from = dump.withLinkHeader ? 0 : d.llHdrLen;
  if (frame.length > from || dump.withLinkHeader) {
    d.snapEnd = frame.length;
    if (dump.style === 'hex') hexPrint(d, '\n\t', from, frame.length - from);
    else if (dump.style === 'hex-ascii') hexAndAsciiPrint(d, '\n\t', from, frame.length - from);
    else asciiPrint(d, from, frame.length - from);
  }
  return d.out;
}

/** Walks one frame from its link-layer header; a truncation ends the text with its marker and (as tcpdump) dumps the whole frame. */
function dissect(frame: Uint8Array, options: PrintOptions): Dissector {
  const wireLength = options.wireLength ?? frame.length;
  const printer = new Dissector(frame, options);
  try {
    switch (options.linkType) {
      case 1:
        etherPrint(printer, 0, wireLength, frame.length);
        break;
      case 113:
        sllPrint(printer, 0, wireLength);
        break;
      case 276:
        sll2Print(printer, 0, wireLength);
        break;
      default:
        options.linkType satisfies never;
    }
  } catch (error) {
    if (!(error instanceof Truncated)) throw error;
    printer.printTrunc();
    printer.llHdrLen = 0;
  }
  return printer;
}
