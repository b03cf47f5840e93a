// The options every protocol printer reads (tcpdump's command-line flags that shape a frame's text); no parsing of a command line here.

import type { TcpSeqTable } from './tcp-seq.ts';

/** Link types the printer reads: LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL and LINKTYPE_LINUX_SLL2. */
export type PrintLinkType = 1 | 113 | 276;

export interface PrintOptions {
  readonly linkType: PrintLinkType;
  /** `tcpdump -e`: print the link-level header on every line. */
  readonly showLinkLayer?: boolean;
  /** Interface names for SLL2 headers (tcpdump's if_indextoname); undefined prints `?`. */
  readonly ifName?: (ifIndex: number) => string | undefined;
  /** The frame's length on the wire when the capture cut it (pcap orig_len); default its captured length. */
  readonly wireLength?: number;
  /** `tcpdump -S`: absolute TCP sequence numbers. */
  readonly absoluteSeq?: boolean;
  /** Conversation state for relative sequence numbers; without it every frame prints as the first of its conversation. */
  readonly tcpSeq?: TcpSeqTable;
  /** `-v`, `-vv`, `-vvv`: how many times -v was given (ndo_vflag); default 0. */
  readonly verbose?: number;
  /** `-K`: no checksum is verified, so -v prints none (ndo_Kflag). */
  readonly noChecksums?: boolean;
  /** `-q`: the quiet, shorter protocol lines (ndo_qflag). */
  readonly quiet?: boolean;
  /** No hex dump of undecoded bytes (tcpdump's choice with -x and -X, which dump the whole packet). */
  readonly suppressDefaultPrint?: boolean;
}
