// IPv4 and MAC addresses as plain numbers, with their text forms; no IPv6.

/** An IPv4 address as an unsigned 32-bit integer in host order (10.0.0.1 is 0x0a000001). */
export type Ipv4Addr = number;

/** A MAC address as an unsigned 48-bit integer (exact in a double: 2^48 < 2^53). */
export type MacAddr = number;

export const MAC_BROADCAST: MacAddr = 0xffff_ffff_ffff;
export const MAC_ZERO: MacAddr = 0;

/** Dotted-quad text of an address, as `inet_ntoa` prints it. */
export function formatIpv4(addr: Ipv4Addr): string {
  return `${addr >>> 24}.${(addr >>> 16) & 0xff}.${(addr >>> 8) & 0xff}.${addr & 0xff}`;
}

/** Strict dotted-quad parse (four decimal octets, no leading zeros); undefined when invalid. */
export function parseIpv4(text: string): Ipv4Addr | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let addr = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    addr = addr * 256 + octet;
  }
  return addr;
}

/** The network mask of a prefix length, as an unsigned 32-bit integer. */
export function prefixMask(prefixLen: number): number {
  return prefixLen === 0 ? 0 : (0xffff_ffff << (32 - prefixLen)) >>> 0;
}

export function readIpv4(bytes: Uint8Array, at: number): Ipv4Addr {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

export function writeIpv4(bytes: Uint8Array, at: number, addr: Ipv4Addr): void {
  bytes[at] = addr >>> 24;
  bytes[at + 1] = (addr >>> 16) & 0xff;
  bytes[at + 2] = (addr >>> 8) & 0xff;
  bytes[at + 3] = addr & 0xff;
}

/** Colon-separated lower-case hex, as iproute2 and tcpdump print it. */
export function formatMac(mac: MacAddr): string {
  let text = '';
  for (let shift = 40; shift >= 0; shift -= 8) {
    const octet = Math.floor(mac / 2 ** shift) % 256;
    text += (shift === 40 ? '' : ':') + octet.toString(16).padStart(2, '0');
  }
  return text;
}

/** Parses `aa:bb:cc:dd:ee:ff` (case-insensitive); undefined when invalid. */
export function parseMac(text: string): MacAddr | undefined {
  if (!/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(text)) return undefined;
  return Number.parseInt(text.replaceAll(':', ''), 16);
}

export function readMac(bytes: Uint8Array, at: number): MacAddr {
  const high = (bytes[at]! << 8) | bytes[at + 1]!;
  const low =
    ((bytes[at + 2]! << 24) | (bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!) >>> 0;
  return high * 0x1_0000_0000 + low;
}

export function writeMac(bytes: Uint8Array, at: number, mac: MacAddr): void {
  const high = Math.floor(mac / 0x1_0000_0000);
  const low = mac >>> 0;
  bytes[at] = high >>> 8;
  bytes[at + 1] = high & 0xff;
  bytes[at + 2] = low >>> 24;
  bytes[at + 3] = (low >>> 16) & 0xff;
  bytes[at + 4] = (low >>> 8) & 0xff;
  bytes[at + 5] = low & 0xff;
}

/** True for a group (multicast or broadcast) MAC: the low bit of the first octet. */
export function isMulticastMac(mac: MacAddr): boolean {
  return Math.floor(mac / 2 ** 40) % 2 === 1;
}
