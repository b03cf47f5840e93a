// A tcpdump-style printer for captured frames (what `tcpdump -nn [-e]` 4.99 prints after the timestamp), Ethernet and Linux cooked v2 link types; the dispatcher over the per-protocol printers in print/, as tcpdump's print.c over its print-*.c. No -v detail, no IPv6, no LLC/SNAP; of the application protocols only HTTP request/status lines and VXLAN/OTV are decoded.
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

import { etherPrint } from './print/ether.ts';
import { Dissector, Truncated } from './print/netdissect.ts';
import type { PrintOptions } from './print/options.ts';
import { sll2Print } from './print/sll.ts';
import { TcpSeqTable } from './print/tcp-seq.ts';
import { formatTimestamp, type TimestampFormat } from './print/timestamp.ts';

export type { PrintLinkType, PrintOptions } from './print/options.ts';
export { TcpSeqTable } from './print/tcp-seq.ts';
export { formatTimestamp, type TimestampFormat } from './print/timestamp.ts';

export interface LineOptions extends PrintOptions {
  readonly timestamp?: TimestampFormat;
  /** `--nano`: nine fractional digits instead of six (micro digits are truncated, as libpcap does). */
  readonly nano?: boolean;
}

/** A printer that keeps tcpdump's per-capture state (relative TCP sequence numbers) across frames. */
export class TcpdumpPrinter {
  private readonly tcpSeq = new TcpSeqTable();

  constructor(private readonly options: Omit<LineOptions, 'tcpSeq' | 'wireLength'>) {}

  /** The text after the timestamp. */
  format(frame: Uint8Array, wireLength: number = frame.length): string {
    return formatFrame(frame, { ...this.options, wireLength, tcpSeq: this.tcpSeq });
  }

  /** The whole line (lines, for VXLAN and hex dumps), timestamp first. */
  formatLine(timeNs: number, frame: Uint8Array, wireLength: number = frame.length): string {
    return formatTcpdumpLine(timeNs, frame, { ...this.options, wireLength, tcpSeq: this.tcpSeq });
  }
}

/** The full tcpdump line for one frame: timestamp, a space, then formatFrame's text. */
export function formatTcpdumpLine(timeNs: number, frame: Uint8Array, options: LineOptions): string {
  const body = formatFrame(frame, options);
  if (frame.length === 0) return body; // tcpdump prints the invalid-header notice without a timestamp
  const stamp = formatTimestamp(timeNs, options.timestamp ?? 'clock', options.nano ?? false);
  return stamp === '' ? body : `${stamp} ${body}`;
}

/**
 * What `tcpdump -nn` (with `showLinkLayer`, `-e`) prints for one captured frame after the
 * timestamp and its space. Several lines for VXLAN (the inner frame starts a new line) and
 * for unknown EtherTypes (a hex dump follows, each line starting with a tab).
 */
export function formatFrame(frame: Uint8Array, options: PrintOptions): string {
  const wireLength = options.wireLength ?? frame.length;
  if (frame.length === 0) return '[Invalid header: caplen==0]';
  if (wireLength < frame.length) return `[Invalid header: len(${wireLength}) < caplen(${frame.length})]`;
  const printer = new Dissector(frame, options);
  try {
    if (options.linkType === 276) sll2Print(printer, 0, wireLength);
    else etherPrint(printer, 0, wireLength, frame.length);
  } catch (error) {
    if (!(error instanceof Truncated)) throw error;
    printer.printTrunc();
  }
  return printer.out;
}
