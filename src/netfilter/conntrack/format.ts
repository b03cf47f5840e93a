// Conntrack entries, events and statistics as conntrack-tools 1.4.7 prints them (`conntrack -L`, `-E`, `-S`); the default output only, no XML, no counters or timestamps (acct and tstamp are off by default).
//
// Mirrors libnetfilter_conntrack's __snprintf_conntrack_default: event type padded to 9
// ("%9s "), protocol name padded to 8 and number ("%-8s %u "), remaining timeout in whole
// seconds, the TCP state, `src= dst=` and the protocol part of the original tuple,
// `[UNREPLIED]` without SEEN_REPLY, the reply tuple, `[ASSURED]` (or `[OFFLOAD]`), `mark=`,
// `use=`, and `id=` with `-o id`. Events carry no use count and a mark only when it is set,
// as ctnetlink_conntrack_event fills them. Fixtures recorded on Linux 6.18 with conntrack-tools
// 1.4.7 are in test/netfilter/conntrack/fixtures.ts.

import { formatIpv4 } from '../../wire/address.ts';
import type { Conntrack, ConntrackEventType } from './conntrack.ts';
import {
  type ConntrackStats,
  DIR_ORIGINAL,
  DIR_REPLY,
  IPS_ASSURED,
  IPS_HW_OFFLOAD,
  IPS_OFFLOAD,
  IPS_SEEN_REPLY,
} from './table.ts';
import { TCP_STATE_NAMES } from './tcp.ts';
import {
  createTuple,
  IPPROTO_DCCP,
  IPPROTO_GRE,
  IPPROTO_ICMP,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  IPPROTO_UDPLITE,
  type Tuple,
} from './tuple.ts';

const IPPROTO_ICMPV6 = 58;

/** proto2str of libnetfilter_conntrack; anything else is "unknown". */
export function protocolName(protocol: number): string {
  switch (protocol) {
    case IPPROTO_TCP:
      return 'tcp';
    case IPPROTO_UDP:
      return 'udp';
    case IPPROTO_UDPLITE:
      return 'udplite';
    case IPPROTO_ICMP:
      return 'icmp';
    case IPPROTO_ICMPV6:
      return 'icmpv6';
    case IPPROTO_SCTP:
      return 'sctp';
    case IPPROTO_GRE:
      return 'gre';
    case IPPROTO_DCCP:
      return 'dccp';
    default:
      return 'unknown';
  }
}

export interface FormatOptions {
  /** `-o id`: append `id=N`. */
  readonly showId?: boolean;
  /** `-o extended`: start with the layer-3 protocol (`ipv4     2 `). */
  readonly extended?: boolean;
}

/** `%-8s %u ` */
function protoColumn(name: string, number: number): string {
  return `${name.padEnd(8)} ${number} `;
}

/** __snprintf_address and __snprintf_proto for one tuple. */
function tupleText(t: Tuple): string {
  let text = `src=${formatIpv4(t.src)} dst=${formatIpv4(t.dst)} `;
  switch (t.protocol) {
    case IPPROTO_TCP:
    case IPPROTO_UDP:
    case IPPROTO_UDPLITE:
    case IPPROTO_SCTP:
    case IPPROTO_DCCP:
      text += `sport=${t.srcPort} dport=${t.dstPort} `;
      break;
    case IPPROTO_GRE:
      text += `srckey=0x${t.srcPort.toString(16)} dstkey=0x${t.dstPort.toString(16)} `;
      break;
    case IPPROTO_ICMP:
      text += `type=${t.dstPort >>> 8} code=${t.dstPort & 0xff} id=${t.srcPort} `;
      break;
    default:
      break;
  }
  return text;
}

const scratch = createTuple();

/**
 * The part shared by listings and events, ending with a space. `skipZeroTimeout`: a DESTROY
 * event of an expired entry has no timeout (ctnetlink_dump_timeout with skip_zero).
 */
function body(
  ct: Conntrack,
  index: number,
  now: number,
  extended: boolean,
  skipZeroTimeout: boolean,
): string {
  const protocol = ct.protocol(index);
  const status = ct.status(index);
  let text = extended ? protoColumn('ipv4', 2) : '';
  text += protoColumn(protocolName(protocol), protocol);
  const timeout = ct.timeoutSeconds(index, now);
  if (timeout !== 0 || !skipZeroTimeout) text += `${timeout} `;
  if (protocol === IPPROTO_TCP) text += `${TCP_STATE_NAMES[ct.tcpState(index)] ?? 'NONE'} `;
  text += tupleText(ct.tuple(index, DIR_ORIGINAL, scratch));
  if ((status & IPS_SEEN_REPLY) === 0) text += '[UNREPLIED] ';
  text += tupleText(ct.tuple(index, DIR_REPLY, scratch));
  if ((status & IPS_HW_OFFLOAD) !== 0) text += '[HW_OFFLOAD] ';
  else if ((status & IPS_OFFLOAD) !== 0) text += '[OFFLOAD] ';
  else if ((status & IPS_ASSURED) !== 0) text += '[ASSURED] ';
  return text;
}

/** One line of `conntrack -L` (without newline). */
export function formatEntry(ct: Conntrack, index: number, now: number, options: FormatOptions = {}): string {
  let text = body(ct, index, now, options.extended === true, false);
  text += `mark=${ct.mark(index)} use=${ct.use(index)} `;
  if (options.showId === true) text += `id=${ct.id(index)} `;
  return text.slice(0, -1);
}

/** One line of `conntrack -E` (without newline). */
export function formatEvent(
  ct: Conntrack,
  type: ConntrackEventType,
  index: number,
  now: number,
  options: FormatOptions = {},
): string {
  const skipZero = type === 'DESTROY';
  let text = `${`[${type}]`.padStart(9)} ${body(ct, index, now, options.extended === true, skipZero)}`;
  const mark = ct.mark(index);
  if (mark !== 0) text += `mark=${mark} `;
  if (options.showId === true) text += `id=${ct.id(index)} `;
  return text.slice(0, -1);
}

/** The `conntrack -S` line; packetlab has one set of counters, printed as cpu 0. */
export function formatStats(stats: ConntrackStats, cpu = 0): string {
  return (
    `cpu=${String(cpu).padEnd(4)}\tfound=${stats.found} invalid=${stats.invalid} insert=${stats.insert} ` +
    `insert_failed=${stats.insert_failed} drop=${stats.drop} early_drop=${stats.early_drop} ` +
    `error=${stats.error} search_restart=${stats.search_restart} clash_resolve=${stats.clash_resolve} ` +
    `chaintoolong=${stats.chaintoolong} `
  );
}

/** What conntrack writes to stderr after `-L`. */
export function formatListSummary(count: number): string {
  return `conntrack v1.4.7 (conntrack-tools): ${count} flow entries have been shown.`;
}

/** What conntrack writes to stderr when `-E` ends. */
export function formatEventSummary(count: number): string {
  return `conntrack v1.4.7 (conntrack-tools): ${count} flow events have been shown.`;
}

/** `conntrack -L` as a whole: one line per listed entry (stdout) and the summary (stderr). */
export function formatList(
  ct: Conntrack,
  now: number,
  options: FormatOptions = {},
): { stdout: string; stderr: string } {
  const entries = ct.entries(now);
  let stdout = '';
  for (const index of entries) stdout += `${formatEntry(ct, index, now, options)}\n`;
  return { stdout, stderr: `${formatListSummary(entries.length)}\n` };
}
