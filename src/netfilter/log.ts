// The kernel log line of the LOG target / nft `log` statement (net/netfilter/nf_log_syslog.c: nf_log_ip_packet,
// dump_ipv4_packet), default log flags only: no TCP sequence numbers, IP or TCP options, or uid.

import { formatIpv4, readIpv4 } from '../wire/address.ts';
import { readU16 } from '../wire/bytes.ts';

const TCP_FLAG_NAMES: [number, string][] = [
  [0x80, 'CWR'],
  [0x40, 'ECE'],
  [0x20, 'URG'],
  [0x10, 'ACK'],
  [0x08, 'PSH'],
  [0x04, 'RST'],
  [0x02, 'SYN'],
  [0x01, 'FIN'],
];

function hexByte(value: number): string {
  return value.toString(16).padStart(2, '0');
}

/** dump_ipv4_packet for the datagram in `ip` (IPv4 header first); nested for the packet an ICMP error quotes. */
function dumpIpv4(ip: Uint8Array, nested: boolean): string {
  if (ip.length < 20) return 'TRUNCATED';
  let line = `SRC=${formatIpv4(readIpv4(ip, 12))} DST=${formatIpv4(readIpv4(ip, 16))} `;
  const tos = ip[1]!;
  line += `LEN=${readU16(ip, 2)} TOS=0x${hexByte(tos & 0x1e).toUpperCase()} PREC=0x${hexByte(tos & 0xe0).toUpperCase()} TTL=${ip[8]} ID=${readU16(ip, 4)} `;
  const fragWord = readU16(ip, 6);
  if ((tos & 3) === 3) line += 'CE ';
  if (fragWord & 0x4000) line += 'DF ';
  if (fragWord & 0x2000) line += 'MF ';
  const fragOffset = fragWord & 0x1fff;
  if (fragOffset !== 0) line += `FRAG:${fragOffset} `;
  const l4 = (ip[0]! & 0xf) * 4;
  const protocol = ip[9]!;
  switch (protocol) {
    case 6: {
      line += 'PROTO=TCP ';
      if (fragOffset !== 0) break;
      if (ip.length < l4 + 20) return `${line}INCOMPLETE [${ip.length - l4} bytes] `;
      line += `SPT=${readU16(ip, l4)} DPT=${readU16(ip, l4 + 2)} `;
      line += `WINDOW=${readU16(ip, l4 + 14)} `;
      line += `RES=0x${hexByte((ip[l4 + 12]! & 0x0e) >> 1)} `;
      const flags = ip[l4 + 13]!;
      for (const [bit, name] of TCP_FLAG_NAMES) if (flags & bit) line += `${name} `;
      line += `URGP=${readU16(ip, l4 + 18)} `;
      break;
    }
    case 17: {
      line += 'PROTO=UDP ';
      if (fragOffset !== 0) break;
      if (ip.length < l4 + 8) return `${line}INCOMPLETE [${ip.length - l4} bytes] `;
      line += `SPT=${readU16(ip, l4)} DPT=${readU16(ip, l4 + 2)} LEN=${readU16(ip, l4 + 4)} `;
      break;
    }
    case 1: {
      line += 'PROTO=ICMP ';
      if (fragOffset !== 0) break;
      if (ip.length < l4 + 4) return `${line}INCOMPLETE [${ip.length - l4} bytes] `;
      const type = ip[l4]!;
      line += `TYPE=${type} CODE=${ip[l4 + 1]} `;
      if ((type === 0 || type === 8) && ip.length >= l4 + 8)
        line += `ID=${readU16(ip, l4 + 4)} SEQ=${readU16(ip, l4 + 6)} `;
      if ((type === 3 || type === 11) && !nested && ip.length > l4 + 8) {
        line += `[${dumpIpv4(ip.subarray(l4 + 8), true)}] `;
        if (type === 3 && ip[l4 + 1] === 4) line += `MTU=${readU16(ip, l4 + 6)} `;
      }
      break;
    }
    default:
      line += `PROTO=${protocol} `;
  }
  return line;
}

/**
 * The whole line: `PREFIX` + `IN=eth0 OUT= MAC=... SRC=... ` ... `MARK=0x4000 `. `linkHeader` is
 * the received MAC header (printed only for incoming packets), `mark` the skb mark.
 */
export function formatLogLine(
  prefix: string,
  ip: Uint8Array,
  inDev: string | undefined,
  outDev: string | undefined,
  linkHeader: Uint8Array | undefined,
  mark = 0,
): string {
  let line = `${prefix}IN=${inDev ?? ''} OUT=${outDev ?? ''} `;
  if (inDev !== undefined)
    line += `MAC=${linkHeader === undefined ? '' : Array.from(linkHeader, hexByte).join(':')} `;
  line += dumpIpv4(ip, false);
  if (mark !== 0) line += `MARK=0x${(mark >>> 0).toString(16)} `;
  return line;
}
