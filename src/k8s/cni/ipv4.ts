// IPv4 prefixes as the Kubernetes layer's API writes them ('10.244.1.0/24'), parsed once with ipaddr.js at the edge
// into integers, and the addresses a CNI derives from them (the gateway .1, host-local's range). IPv4 only.

import ipaddr from 'ipaddr.js';

export interface Ipv4Prefix {
  /** The network address as an unsigned 32-bit integer (host bits cleared). */
  readonly network: number;
  readonly prefixLength: number;
}

/** Parses `A.B.C.D/N` (four-part decimal only); undefined when it is not one. */
export function parsePrefix(text: string): Ipv4Prefix | undefined {
  if (!ipaddr.IPv4.isValidCIDRFourPartDecimal(text)) return undefined;
  const [addr, prefixLength] = ipaddr.IPv4.parseCIDR(text);
  const value = bytesToU32(addr.toByteArray());
  const mask = prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
  return { network: (value & mask) >>> 0, prefixLength };
}

/** Parses a prefix the cluster itself made; a bad one is a programming error. */
export function mustParsePrefix(text: string): Ipv4Prefix {
  const prefix = parsePrefix(text);
  if (prefix === undefined) throw new Error(`bad IPv4 prefix ${text}`);
  return prefix;
}

/** Parses `A.B.C.D`; undefined when it is not a four-part decimal address. */
export function parseAddress(text: string): number | undefined {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return undefined;
  return bytesToU32(ipaddr.IPv4.parse(text).toByteArray());
}

export function formatAddress(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 0xff}.${(value >>> 8) & 0xff}.${value & 0xff}`;
}

/** The address `offset` into the prefix (`.1` is the gateway host-local gives). */
export function addressIn(prefix: Ipv4Prefix, offset: number): string {
  return formatAddress((prefix.network + offset) >>> 0);
}

export function formatPrefix(prefix: Ipv4Prefix): string {
  return `${formatAddress(prefix.network)}/${prefix.prefixLength}`;
}

export function contains(prefix: Ipv4Prefix, address: number): boolean {
  const mask = prefix.prefixLength === 0 ? 0 : (0xffffffff << (32 - prefix.prefixLength)) >>> 0;
  return (address & mask) >>> 0 === prefix.network;
}

function bytesToU32(bytes: readonly number[]): number {
  return (((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)) >>> 0;
}
