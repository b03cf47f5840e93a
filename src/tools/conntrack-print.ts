// The two conntrack-tools 1.4.7 output formats that format.ts does not cover: `-o save` (a conntrack command line per entry) and `-o xml`; no counters, timestamps, labels, zones or secmarks (packetlab keeps none of them).
//
// `-o save` mirrors conntrack.c:ct_save_snprintf: `-A`/`-U`/`-D` by message type, `-t`
// timeout, `-u` status bits (EXPECTED, SEEN_REPLY, ASSURED, FIXED_TIMEOUT, or UNSET), the four
// addresses with `-g`/`-n` in place of `-r`/`-q` when the entry is DNATed/SNATed, then `-p` and
// the protocol's own options. `-o xml` mirrors libnetfilter_conntrack's
// __snprintf_conntrack_xml. Both verified against conntrack -L on Linux 6.18
// (test/tools/conntrack-fixtures.ts).

import type { Conntrack, ConntrackEventType } from '../netfilter/conntrack/conntrack.ts';
import { protocolName } from '../netfilter/conntrack/format.ts';
import {
  DIR_ORIGINAL,
  DIR_REPLY,
  IPS_ASSURED,
  IPS_DST_NAT_DONE,
  IPS_EXPECTED,
  IPS_FIXED_TIMEOUT,
  IPS_SEEN_REPLY,
  IPS_SRC_NAT_DONE,
} from '../netfilter/conntrack/table.ts';
import {
  createTuple,
  IPPROTO_DCCP,
  IPPROTO_ICMP,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  IPPROTO_UDPLITE,
  icmpCode,
  icmpId,
  icmpType,
  type Tuple,
} from '../netfilter/conntrack/tuple.ts';
import { formatIpv4 } from '../wire/address.ts';

/** Protocols whose tuple carries ports (the l4src/l4dst conntrack-tools prints as sport/dport). */
export function hasPorts(protocol: number): boolean {
  return (
    protocol === IPPROTO_TCP ||
    protocol === IPPROTO_UDP ||
    protocol === IPPROTO_UDPLITE ||
    protocol === IPPROTO_SCTP ||
    protocol === IPPROTO_DCCP
  );
}

/** nfct_getobjopt NFCT_GOPT_IS_SNAT/IS_DNAT/IS_SPAT/IS_DPAT: what NAT changed, read from the two tuples. */
export interface NatView {
  readonly snat: boolean;
  readonly dnat: boolean;
  readonly spat: boolean;
  readonly dpat: boolean;
}

/**
 * libnetfilter_conntrack compares the layer-4 words whatever the protocol: for ICMP the echo id
 * against type/code, so an ICMP entry with the NAT_DONE bits (any entry that met a nat chain,
 * even without a mapping) counts as port-translated, as `conntrack -L --src-nat` shows on Linux.
 */
export function natView(status: number, orig: Tuple, reply: Tuple): NatView {
  const srcDone = (status & IPS_SRC_NAT_DONE) !== 0;
  const dstDone = (status & IPS_DST_NAT_DONE) !== 0;
  return {
    snat: srcDone && reply.dst !== orig.src,
    dnat: dstDone && reply.src !== orig.dst,
    spat: srcDone && reply.dstPort !== orig.srcPort,
    dpat: dstDone && reply.srcPort !== orig.dstPort,
  };
}

const orig = createTuple();
const reply = createTuple();

/** The save-format status list (conntrack_status_map, in bit order). */
function statusWords(status: number): string {
  const words: string[] = [];
  if ((status & IPS_EXPECTED) !== 0) words.push('EXPECTED');
  if ((status & IPS_SEEN_REPLY) !== 0) words.push('SEEN_REPLY');
  if ((status & IPS_ASSURED) !== 0) words.push('ASSURED');
  if ((status & IPS_FIXED_TIMEOUT) !== 0) words.push('FIXED_TIMEOUT');
  return words.length === 0 ? 'UNSET' : words.join(',');
}

const SAVE_PREFIX: Record<ConntrackEventType, string> = { NEW: '-A ', UPDATE: '-U ', DESTROY: '-D ' };

/**
 * One `-o save` line. `type` is the event type (listings print as NEW, deletions as DESTROY);
 * `skipZeroTimeout` drops `-t` for a DESTROY event of an expired entry, which carries no timeout.
 */
export function formatSave(
  ct: Conntrack,
  index: number,
  now: number,
  type: ConntrackEventType,
  skipZeroTimeout = false,
): string {
  const protocol = ct.protocol(index);
  const status = ct.status(index);
  ct.tuple(index, DIR_ORIGINAL, orig);
  ct.tuple(index, DIR_REPLY, reply);
  const nat = natView(status, orig, reply);
  let text = SAVE_PREFIX[type];
  const timeout = ct.timeoutSeconds(index, now);
  if (timeout !== 0 || !skipZeroTimeout) text += `-t ${timeout} `;
  text += `-u ${statusWords(status)} `;
  text += `-s ${formatIpv4(orig.src)} -d ${formatIpv4(orig.dst)} `;
  text += `${nat.dnat ? '-g' : '-r'} ${formatIpv4(reply.src)} ${nat.snat ? '-n' : '-q'} ${formatIpv4(reply.dst)} `;
  const name = protocolName(protocol);
  if (name === 'unknown') {
    text += `-p ${protocol} `;
  } else {
    text += `-p ${name} `;
    if (hasPorts(protocol)) {
      text += `--sport ${orig.srcPort} --dport ${orig.dstPort} --reply-port-src ${reply.srcPort} --reply-port-dst ${reply.dstPort} `;
    }
    if (protocol === IPPROTO_TCP) text += `--state ${ct.tcpStateName(index)} `;
    if (protocol === IPPROTO_ICMP) {
      text += `--icmp-type ${icmpType(orig)} --icmp-code ${icmpCode(orig)} --icmp-id ${icmpId(orig)} `;
    }
  }
  return text.trimEnd();
}

const XML_TYPE: Record<ConntrackEventType, string> = { NEW: 'new', UPDATE: 'update', DESTROY: 'destroy' };

export const XML_HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<conntrack>\n';
export const XML_FOOTER = '</conntrack>\n';

function xmlDirection(direction: string, t: Tuple): string {
  const name = protocolName(t.protocol);
  let layer4 = '';
  if (hasPorts(t.protocol)) layer4 = `<sport>${t.srcPort}</sport><dport>${t.dstPort}</dport>`;
  return (
    `<meta direction="${direction}"><layer3 protonum="2" protoname="ipv4"><src>${formatIpv4(t.src)}</src>` +
    `<dst>${formatIpv4(t.dst)}</dst></layer3><layer4 protonum="${t.protocol}" protoname="${name}">${layer4}` +
    '</layer4></meta>'
  );
}

/**
 * One `<flow>` element. A listing (`type` undefined) carries the mark and the use count; an event
 * carries its type, the mark only when set and no use count, and an expired DESTROY no timeout.
 */
export function formatXml(
  ct: Conntrack,
  index: number,
  now: number,
  type: ConntrackEventType | undefined,
): string {
  const protocol = ct.protocol(index);
  const status = ct.status(index);
  ct.tuple(index, DIR_ORIGINAL, orig);
  ct.tuple(index, DIR_REPLY, reply);
  let text = type === undefined ? '<flow>' : `<flow type="${XML_TYPE[type]}">`;
  text += xmlDirection('original', orig) + xmlDirection('reply', reply);
  text += '<meta direction="independent">';
  if (protocol === IPPROTO_TCP) text += `<state>${ct.tcpStateName(index)}</state>`;
  const timeout = ct.timeoutSeconds(index, now);
  if (timeout !== 0 || type !== 'DESTROY') text += `<timeout>${timeout}</timeout>`;
  const mark = ct.mark(index);
  if (type === undefined || mark !== 0) text += `<mark>${mark}</mark>`;
  if (type === undefined) text += `<use>${ct.use(index)}</use>`;
  text += `<id>${ct.id(index)}</id>`;
  if ((status & IPS_ASSURED) !== 0) text += '<assured/>';
  if ((status & IPS_SEEN_REPLY) === 0) text += '<unreplied/>';
  return `${text}</meta></flow>`;
}
