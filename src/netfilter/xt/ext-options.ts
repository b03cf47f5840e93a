// The options of the xt matches and targets added for issue 12 (sctp, limit, hashlimit, connlimit, helper,
// rpfilter, u32, string, time, policy, ah, esp, ecn, tos; NFLOG, NFQUEUE, CHECKSUM, NETMAP, ECN, TOS, DSCP), as
// data: what the iptables front end parsed and the evaluators under xt/ read. No IPv6 forms.

/** An inclusive range of ports or SPIs, with `!` before it. */
export interface RangeTest {
  readonly low: number;
  readonly high: number;
  readonly invert: boolean;
}

/** One `--chunk-types` flag test: chunk TYPE whose flags & MASK must equal FLAGS. */
export interface SctpFlagTest {
  readonly type: number;
  readonly flags: number;
  readonly mask: number;
}

/** u32's `LOCATION&MASK=RANGES`: a location is a list of steps from the IP header (xt_u32.h). */
export interface U32Step {
  readonly op: 'and' | 'shl' | 'shr' | 'at';
  readonly value: number;
}

export interface U32Test {
  /** The first number (the offset read before any step), then the steps. */
  readonly start: number;
  readonly steps: readonly U32Step[];
  readonly ranges: readonly (readonly [number, number])[];
}

export type ExtMatchOptions =
  /** The dccp match (xt/dccp.ts): ports, a mask of packet types (bit N for type N), one option. */
  | {
      readonly name: 'dccp';
      readonly sport: RangeTest | undefined;
      readonly dport: RangeTest | undefined;
      readonly types: { readonly mask: number; readonly invert: boolean } | undefined;
      readonly option: { readonly value: number; readonly invert: boolean } | undefined;
    }
  | {
      readonly name: 'sctp';
      readonly sport: RangeTest | undefined;
      readonly dport: RangeTest | undefined;
      readonly chunks:
        | {
            readonly match: 'all' | 'any' | 'only';
            /** The chunk types asked for, 0-255. */
            readonly types: readonly number[];
            readonly flags: readonly SctpFlagTest[];
          }
        | undefined;
    }
  | {
      readonly name: 'hashlimit';
      readonly table: string;
      /** XT_LIMIT_SCALE units per packet (10000 / rate per second). */
      readonly avg: number;
      readonly burst: number;
      readonly above: boolean;
      readonly srcip: boolean;
      readonly dstip: boolean;
      readonly srcport: boolean;
      readonly dstport: boolean;
      readonly srcmask: number;
      readonly dstmask: number;
      /** Entries live this long without packets, in ms (--hashlimit-htable-expire). */
      readonly expire: number;
    }
  | {
      readonly name: 'connlimit';
      readonly limit: number;
      readonly mask: number;
      readonly daddr: boolean;
      /** --connlimit-above (the count is over the limit), else --connlimit-upto. */
      readonly above: boolean;
      /** nft's `ct count [over] N` (nft_connlimit: one list per rule, mask 0), listed in nft's words. */
      readonly nft?: boolean;
    }
  | { readonly name: 'helper'; readonly helper: string; readonly invert: boolean }
  | {
      readonly name: 'rpfilter';
      readonly loose: boolean;
      readonly validmark: boolean;
      readonly acceptLocal: boolean;
      readonly invert: boolean;
    }
  | { readonly name: 'u32'; readonly tests: readonly U32Test[]; readonly invert: boolean }
  | {
      readonly name: 'string';
      readonly pattern: readonly number[];
      readonly from: number;
      readonly to: number;
      readonly icase: boolean;
      readonly invert: boolean;
    }
  | {
      readonly name: 'time';
      /** Seconds of the day, 0-86399. */
      readonly dayStart: number;
      readonly dayStop: number;
      /** Bit n for weekday n (1 Monday ... 7 Sunday). */
      readonly weekdays: number;
      /** Bit n for day n of the month. */
      readonly monthdays: number;
      /** Seconds since the epoch. */
      readonly dateStart: number;
      readonly dateStop: number;
      readonly kerneltz: boolean;
      readonly contiguous: boolean;
    }
  /** Without IPsec no packet has a security path: `--pol none` matches every packet, `--pol ipsec` none. */
  | { readonly name: 'policy'; readonly ipsec: boolean }
  | { readonly name: 'ah' | 'esp'; readonly spi: RangeTest }
  | {
      readonly name: 'ecn';
      readonly cwr: { readonly invert: boolean } | undefined;
      readonly ece: { readonly invert: boolean } | undefined;
      readonly ect: { readonly value: number; readonly invert: boolean } | undefined;
    }
  | { readonly name: 'tos'; readonly value: number; readonly mask: number; readonly invert: boolean };

export type ExtTargetOptions =
  /** NFLOG with no nfnetlink_log listener: the packet goes on (nf_log_packet finds no logger). */
  | { readonly name: 'NFLOG'; readonly group: number }
  /** NFQUEUE with no listener: nf_queue fails with ESRCH, so the packet is dropped, or accepted with bypass. */
  | { readonly name: 'NFQUEUE'; readonly bypass: boolean }
  /** CHECKSUM --checksum-fill: fills a checksum left partial (CHECKSUM_PARTIAL); packetlab's are complete. */
  | { readonly name: 'CHECKSUM' }
  | { readonly name: 'NETMAP'; readonly addr: number; readonly mask: number }
  /** ECN: each field given is set (the TCP ECE and CWR flags to 0 or 1, the IP header's ECN field to 0-3). */
  | {
      readonly name: 'ECN';
      readonly ece: number | undefined;
      readonly cwr: number | undefined;
      readonly ect: number | undefined;
    }
  /** TOS: tos = (tos & ~mask) ^ value (xt_DSCP.c: tos_tg). */
  | { readonly name: 'TOS'; readonly value: number; readonly mask: number }
  | { readonly name: 'DSCP'; readonly dscp: number };
