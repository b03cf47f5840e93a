// `nft monitor trace` as nftables 1.0.6 prints it (trace.c): for each traced packet and base chain a `packet:`
// line decoding the headers the kernel dumped (link layer by name only when the input interface is known, else
// `@ll,0,112 0x...`; IPv4, then TCP, UDP or ICMP with leftover bytes as `@th,...`), a `rule ... (verdict ...)`
// line per rule that matched, printed from the ruleset as it was when the monitor started (counters included;
// rules added later show as `unknown rule handle N`), and `policy accept|drop` with `meta mark` when the mark is
// set. Implicit returns from regular chains print nothing, as with Linux 6.x. Not modelled: IPv6, VLAN tags.

import type { Family, Rule, Verdict } from '../ir.ts';
import type { Netfilter } from '../netfilter.ts';
import type { NftTraceEvent, TracedPacket, TraceListener } from '../trace.ts';
import { formatRule } from './printer.ts';
import {
  DSCP,
  ECN,
  formatIpv4,
  formatMac,
  hex8,
  ICMP_CODES,
  ICMP_TYPES,
  symbolName,
  TCP_FLAGS,
} from './types.ts';

/** The kernel dumps at most this many transport header bytes (NFT_TRACETYPE_TRANSPORT_HSIZE). */
const TRANSPORT_DUMP = 20;

type CounterSnapshot = ReadonlyMap<Rule, { readonly packets: number; readonly bytes: number }>;

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function macAt(bytes: Uint8Array, at: number): string {
  let value = 0;
  for (let i = 0; i < 6; i++) value = value * 256 + bytes[at + i]!;
  return formatMac(value);
}

/** A raw payload match as nft prints an undecoded rest: `@th,64,96 0x76c10c6b...` (no leading zeros). */
function raw(base: 'll' | 'nh' | 'th', bytes: Uint8Array, from: number, to: number): string {
  let hex = '';
  for (let i = from; i < to; i++) hex += bytes[i]!.toString(16).padStart(2, '0');
  hex = hex.replace(/^0+/, '');
  return `@${base},${from * 8},${(to - from) * 8} 0x${hex === '' ? '0' : hex}`;
}

function named(table: readonly (readonly [string, number])[], value: number, fallback: string): string {
  for (const [name, symbol] of table) if (symbol === value) return name;
  return fallback;
}

function tcpFlags(value: number): string {
  for (const [name, bit] of TCP_FLAGS) if (bit === value) return name;
  return `0x${value.toString(16)}`;
}

/** trace.c: trace_print_packet — the fields of one packet as nft expressions, each followed by a space. */
export function packetFields(packet: TracedPacket, family: Family): string[] {
  const fields: string[] = [];
  if (packet.iifname !== undefined) fields.push(`iif "${packet.iifname}"`);
  if (packet.oifname !== undefined) fields.push(`oif "${packet.oifname}"`);
  const link = packet.linkHeader;
  // The bridge and netdev families know their link layer (proto_eth), whatever the devices the kernel named.
  const linkFamily = family === 'bridge' || family === 'netdev';
  if (link === undefined && linkFamily) return [...fields, ...unknownLinkFields(packet)];
  if (link !== undefined && link.length > 0) {
    if ((packet.iifname !== undefined || linkFamily) && link.length >= 14 && packet.linkEthernet !== false) {
      fields.push(`ether saddr ${macAt(link, 6)}`, `ether daddr ${macAt(link, 0)}`);
    } else fields.push(raw('ll', link, 0, link.length));
  }
  // The network protocol: the link header's EtherType when dumped (an arp table's packets are ARP).
  const etherType =
    link !== undefined && link.length >= 14 ? u16(link, 12) : family === 'arp' ? ETH_P_ARP : ETH_P_IP;
  if (etherType === ETH_P_ARP) return [...fields, ...arpFields(packet.network)];
  if (etherType !== ETH_P_IP) return fields;
  const ip = packet.network;
  if (ip.length < 20) return fields;
  const ihl = (ip[0]! & 0x0f) * 4;
  const protocol = ip[9]!;
  fields.push(
    `ip saddr ${formatIpv4(((ip[12]! << 24) | (ip[13]! << 16) | (ip[14]! << 8) | ip[15]!) >>> 0)}`,
    `ip daddr ${formatIpv4(((ip[16]! << 24) | (ip[17]! << 16) | (ip[18]! << 8) | ip[19]!) >>> 0)}`,
    `ip dscp ${named(DSCP, ip[1]! >>> 2, `0x${(ip[1]! >>> 2).toString(16).padStart(2, '0')}`)}`,
    `ip ecn ${named(ECN, ip[1]! & 3, String(ip[1]! & 3))}`,
    `ip ttl ${ip[8]!}`,
    `ip id ${u16(ip, 4)}`,
  );
  const fragment = (u16(ip, 6) & 0x1fff) !== 0;
  const end = Math.min(ip.length, ihl + TRANSPORT_DUMP);
  const th = fragment || ihl >= end ? undefined : ip.subarray(ihl, end);
  const transport = th === undefined ? [] : transportFields(protocol, th);
  // In an ip table the decoded transport header implies the protocol; inet keeps `ip protocol`.
  if (family !== 'ip' || transport.length === 0 || transport[0]!.startsWith('@th'))
    fields.push(`ip protocol ${symbolName('inet_proto', protocol) ?? protocol}`);
  fields.push(`ip length ${u16(ip, 2)}`, ...transport);
  return fields;
}

const ETH_P_IP = 0x0800;
const ETH_P_ARP = 0x0806;

/** An ARP header: nft decodes the operation only (the hardware and protocol fields are its dependencies). */
function arpFields(arp: Uint8Array): string[] {
  if (arp.length < 8) return [];
  const op = u16(arp, 6);
  return [`arp operation ${symbolName('arp_op', op) ?? op}`];
}

/**
 * A netdev packet whose link header the kernel did not dump (at egress): nft cannot tell its network protocol, so
 * the network header prints raw up to the transport header, then at most 20 bytes of it (`@nh,0,160 0x45...`).
 */
function unknownLinkFields(packet: TracedPacket): string[] {
  const ip = packet.network;
  if (ip.length < 20) return ip.length === 0 ? [] : [raw('nh', ip, 0, ip.length)];
  const ihl = Math.min((ip[0]! & 0x0f) * 4, ip.length);
  const fields = [raw('nh', ip, 0, ihl)];
  const th = ip.subarray(ihl, Math.min(ip.length, ihl + TRANSPORT_DUMP));
  if (th.length > 0) fields.push(raw('th', th, 0, th.length));
  return fields;
}

function transportFields(protocol: number, th: Uint8Array): string[] {
  switch (protocol) {
    case 6:
      if (th.length < 16) break;
      return [
        `tcp sport ${u16(th, 0)}`,
        `tcp dport ${u16(th, 2)}`,
        `tcp flags == ${tcpFlags(th[13]!)}`,
        `tcp window ${u16(th, 14)}`,
      ];
    case 17: {
      if (th.length < 8) break;
      const fields = [`udp sport ${u16(th, 0)}`, `udp dport ${u16(th, 2)}`, `udp length ${u16(th, 4)}`];
      if (th.length > 8) fields.push(raw('th', th, 8, th.length));
      return fields;
    }
    case 1: {
      if (th.length < 8) break;
      const fields = [
        `icmp type ${named(ICMP_TYPES, th[0]!, String(th[0]!))}`,
        `icmp code ${named(ICMP_CODES, th[1]!, String(th[1]!))}`,
        `icmp id ${u16(th, 4)}`,
        `icmp sequence ${u16(th, 6)}`,
      ];
      if (th.length > 8) fields.push(raw('th', th, 8, th.length));
      return fields;
    }
  }
  return th.length === 0 ? [] : [raw('th', th, 0, th.length)];
}

function verdictText(verdict: Verdict): string {
  return verdict.kind === 'jump' || verdict.kind === 'goto'
    ? `${verdict.kind} ${verdict.chain}`
    : verdict.kind;
}

function traceHeader(event: NftTraceEvent): string {
  return `trace id ${(event.id >>> 0).toString(16).padStart(8, '0')} ${event.family} ${event.table.name} ${event.chain.name} `;
}

/**
 * The lines (each ending in a newline) nft prints for one trace event. `counters` is the monitor's cache: the
 * counters each rule had when it started; a rule missing from it prints as `unknown rule handle N`.
 */
export function formatTraceEvent(event: NftTraceEvent, counters?: CounterSnapshot): string {
  let out = '';
  const header = traceHeader(event);
  if (event.packet !== undefined)
    out += `${header}packet: ${packetFields(event.packet, event.family)
      .map((field) => `${field} `)
      .join('')}\n`;
  switch (event.type) {
    case 'rule': {
      const rule = event.rule;
      if (rule === undefined) break;
      const cached = counters === undefined ? rule : counters.get(rule);
      if (cached === undefined)
        out += `${header}unknown rule handle ${rule.handle} (verdict ${verdictText(event.verdict)})\n`;
      else
        out += `${header}rule ${formatRule(rule, event.table, { counters: () => cached })} (verdict ${verdictText(event.verdict)})\n`;
      break;
    }
    case 'policy':
      out += `${header}policy ${verdictText(event.verdict)} ${event.mark !== 0 ? `meta mark ${hex8(event.mark)} ` : ''}\n`;
      break;
    case 'return':
      break;
  }
  return out;
}

/** A running `nft monitor trace`: collects lines until stop(), like a background process. */
export class TraceMonitor {
  private out = '';
  private stopped = false;
  private readonly counters = new Map<Rule, { packets: number; bytes: number }>();
  private readonly listener: TraceListener;

  constructor(private readonly netfilter: Pick<Netfilter, 'store' | 'traceListeners'>) {
    for (const table of netfilter.store.ruleset.tables)
      for (const chain of table.chains.values())
        for (const rule of chain.rules) this.counters.set(rule, { packets: rule.packets, bytes: rule.bytes });
    this.listener = (event) => {
      this.out += formatTraceEvent(event, this.counters);
    };
    netfilter.traceListeners.add(this.listener);
  }

  get done(): boolean {
    return this.stopped;
  }

  get stdout(): string {
    return this.out;
  }

  stop(): { stdout: string; stderr: string; exitCode: number } {
    if (!this.stopped) {
      this.stopped = true;
      this.netfilter.traceListeners.delete(this.listener);
    }
    return { stdout: this.out, stderr: '', exitCode: 0 };
  }
}
