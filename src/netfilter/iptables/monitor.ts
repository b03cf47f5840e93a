// `xtables-monitor --trace` lines (xtables-monitor.c: trace_cb, trace_print_packet) as iptables 1.8.9 prints
// them for TRACE'd packets: a PACKET line before the first event of each base-chain run, then one TRACE line
// per rule, and the policy. Return events print nothing (none was seen from the real tool).

import { formatIpv4, readIpv4 } from '../../wire/address.ts';
import { readU16 } from '../../wire/bytes.ts';
import type { Verdict } from '../ir.ts';
import type { NftTraceEvent, TracedPacket } from '../trace.ts';

/** NFPROTO_IPV4, printed as the family. */
const FAMILY = 2;

/** ether_ntoa: hex bytes without leading zeros (`2:42:ac:11:0:2`). */
function etherNtoa(bytes: Uint8Array, at: number): string {
  return Array.from(bytes.subarray(at, at + 6), (byte) => byte.toString(16)).join(':');
}

/** print_verdict: `ACCEPT`, `JUMP:CHAIN`; a return shows as its raw code. */
function verdictText(verdict: Verdict): string {
  switch (verdict.kind) {
    case 'accept':
      return 'ACCEPT';
    case 'drop':
      return 'DROP';
    case 'queue':
      return 'QUEUE';
    case 'continue':
      return 'CONTINUE';
    case 'return':
      return '0xfffffffb';
    case 'jump':
      return `JUMP:${verdict.chain}`;
    case 'goto':
      return `GOTO:${verdict.chain}`;
  }
}

/** The `PACKET:` line for the headers of `packet`. */
export function formatTracePacket(id: number, packet: TracedPacket): string {
  let line = `PACKET: ${FAMILY} ${hex8(id)} `;
  if (packet.iifname !== undefined) line += `IN=${packet.iifname} `;
  if (packet.oifname !== undefined) line += `OUT=${packet.oifname} `;
  if (packet.iifname === 'lo') line += 'LOOPBACK ';
  else if (packet.linkHeader !== undefined && packet.linkHeader.length >= 14) {
    const ll = packet.linkHeader;
    line += `MACSRC=${etherNtoa(ll, 6)} MACDST=${etherNtoa(ll, 0)} MACPROTO=${readU16(ll, 12).toString(16).padStart(4, '0')} `;
  }
  const ip = packet.network;
  let l4proto = -1;
  let l4 = -1;
  if (ip.length >= 20) {
    line += `SRC=${formatIpv4(readIpv4(ip, 12))} DST=${formatIpv4(readIpv4(ip, 16))} `;
    line += `LEN=${readU16(ip, 2)} TOS=0x${ip[1]!.toString(16)} TTL=${ip[8]} ID=${readU16(ip, 4)} `;
    const frag = readU16(ip, 6);
    if (frag & 0x8000) line += 'CE ';
    if (frag & 0x4000) line += 'DF ';
    if (frag & 0x2000) line += 'MF ';
    if (frag & 0x1fff) line += `FRAG:${frag & 0x1fff} `;
    const ihl = (ip[0]! & 0xf) * 4;
    if (ihl > 20) {
      line += 'OPT (';
      for (let i = 20; i < ihl && i < ip.length; i++)
        line += ip[i]!.toString(16).toUpperCase().padStart(2, '0');
      line += ')';
    }
    l4proto = ip[9]!;
    if ((frag & 0x1fff) === 0) l4 = ihl;
  }
  if (l4 >= 0) {
    const transport = ip.subarray(l4);
    if ([17, 132, 33, 136].includes(l4proto) && transport.length >= 4)
      line += `SPORT=${readU16(transport, 0)} DPORT=${readU16(transport, 2)} `;
    if (l4proto === 6 && transport.length >= 20) {
      line += `SPORT=${readU16(transport, 0)} DPORT=${readU16(transport, 2)} `;
      const flags = transport[13]!;
      if (flags & 0x02) line += 'SYN ';
      if (flags & 0x10) line += 'ACK ';
      if (flags & 0x01) line += 'FIN ';
      if (flags & 0x04) line += 'RST ';
      if (flags & 0x08) line += 'PSH ';
      if (flags & 0x20) line += 'URG ';
    }
  }
  if (packet.mark !== 0) line += `MARK=0x${(packet.mark >>> 0).toString(16)} `;
  return line;
}

function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

/**
 * The lines xtables-monitor --trace prints for one trace event (each ending in a newline; empty for a return).
 * Rules iptables did not create print only their `-4 -t TABLE -A CHAIN` prefix.
 */
export function formatXtablesTrace(event: NftTraceEvent): string {
  if (event.type === 'return') return '';
  let text = '';
  if (event.packet !== undefined) text += `${formatTracePacket(event.id, event.packet)}\n`;
  text += ` TRACE: ${FAMILY} ${hex8(event.id)} ${event.table.name}:${event.chain.name}`;
  if (event.type === 'policy') return `${text}:policy:${verdictText(event.verdict)} \n`;
  const rule = event.rule;
  text += `:rule:0x${(rule?.handle ?? 0).toString(16)}:${verdictText(event.verdict)}  `;
  text += `-4 -t ${event.table.name} -A ${event.chain.name}`;
  const args = rule?.iptables?.args ?? [];
  if (args.length > 0) text += ` ${args.join(' ')}`;
  return `${text}\n`;
}
