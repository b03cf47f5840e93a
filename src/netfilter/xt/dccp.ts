// The dccp match on a packet (xt_dccp.c: dccp_mt, match_types, dccp_find_option): first fragments only, the ports,
// the packet type's bit in the mask, and an option found in the header's option area. A header too short to read
// does not match (the kernel also sets hotdrop, dropping the packet: not modelled).

import type { ExtMatchOptions } from './ext-options.ts';

type DccpOptions = Extract<ExtMatchOptions, { name: 'dccp' }>;

/** sizeof(struct dccp_hdr): ports, data offset, CCVal/CsCov, checksum, type and X, the 24-bit sequence. */
const DCCP_HDR = 12;

/** dccp_packet_hdr_len: what follows the generic header for each type. */
function packetHeaderLength(type: number): number {
  if (type === 2) return 0; // DATA
  if (type === 3 || type === 4) return 8; // ACK, DATAACK: the acknowledgement number
  if (type === 0) return 4; // REQUEST: the service code
  if (type === 7) return 12; // RESET
  return 12; // RESPONSE and the others: acknowledgement and service code
}

function inRange(range: { low: number; high: number; invert: boolean } | undefined, value: number): boolean {
  if (range === undefined) return true;
  return (value >= range.low && value <= range.high) !== range.invert;
}

export function dccpMatches(buf: Uint8Array, network: number, end: number, options: DccpOptions): boolean {
  if ((((buf[network + 6]! << 8) | buf[network + 7]!) & 0x1fff) !== 0) return false;
  const th = network + (buf[network]! & 0x0f) * 4;
  if (th + DCCP_HDR > end) return false;
  if (!inRange(options.sport, (buf[th]! << 8) | buf[th + 1]!)) return false;
  if (!inRange(options.dport, (buf[th + 2]! << 8) | buf[th + 3]!)) return false;
  const type = (buf[th + 8]! >> 1) & 0x0f;
  if (options.types !== undefined && ((options.types.mask & (1 << type)) !== 0) === options.types.invert)
    return false;
  if (options.option === undefined) return true;
  return hasOption(buf, th, end, type, options.option.value) !== options.option.invert;
}

/** dccp_find_option: walk the options between the headers and the data offset. */
function hasOption(buf: Uint8Array, th: number, end: number, type: number, option: number): boolean {
  const extended = (buf[th + 8]! & 1) !== 0;
  const headers = DCCP_HDR + (extended ? 4 : 0) + packetHeaderLength(type);
  const offset = buf[th + 4]! * 4;
  if (offset < headers || th + offset > end) return false;
  for (let i = th + headers; i < th + offset; ) {
    const kind = buf[i]!;
    if (kind === option) return true;
    if (kind < 2) i++;
    else i += buf[i + 1] || 1;
  }
  return false;
}
