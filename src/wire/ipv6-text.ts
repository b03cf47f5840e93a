// IPv6 addresses as text, for every tool that reads or prints one (nft's ip6 constants, tcpdump's AAAA records):
// inet_pton's forms (`2001:db8::1`, `::ffff:10.0.0.1`) to eight 16-bit groups, and glibc inet_ntop's text (RFC 5952:
// the longest run of two or more zero groups as `::`, lower-case hex, an IPv4-mapped or -compatible tail dotted).
// No scope ids (`fe80::1%eth0`); packetlab has no IPv6 packets.

const GROUP = /^[0-9a-fA-F]{1,4}$/;

function ipv4Groups(text: string): [number, number] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => (/^\d{1,3}$/.test(part) ? Number(part) : 256));
  if (bytes.some((byte) => byte > 255)) return undefined;
  return [(bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!];
}

function groupsOf(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  const parts = text.split(':');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i === parts.length - 1 && part.includes('.')) {
      const tail = ipv4Groups(part);
      if (tail === undefined) return undefined;
      groups.push(...tail);
    } else if (GROUP.test(part)) groups.push(Number.parseInt(part, 16));
    else return undefined;
  }
  return groups;
}

/** inet_pton(AF_INET6): the eight groups, or undefined when `text` is not an IPv6 address. */
export function parseIpv6(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0]!);
  if (head === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const tail = groupsOf(halves[1]!);
  if (tail === undefined || head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** inet_ntop(AF_INET6) as glibc's inet_ntop6 writes it (RFC 5952), from eight 16-bit groups. */
export function formatIpv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  // inet_ntop6: after a leading run of six zero groups, or of five and 0xffff, the last 32 bits print as IPv4.
  if (bestStart === 0 && (bestLength === 6 || (bestLength === 5 && groups[5] === 0xffff))) {
    const v4 = `${groups[6]! >>> 8}.${groups[6]! & 255}.${groups[7]! >>> 8}.${groups[7]! & 255}`;
    return bestLength === 6 ? `::${v4}` : `::ffff:${v4}`;
  }
  const hex = (from: number, to: number): string =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLength, 8)}`;
}

/** The text of the 16-byte address at `at` of `bytes` (network order), as formatIpv6 writes it. */
export function formatIpv6Bytes(bytes: Uint8Array, at: number): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push((bytes[at + 2 * i]! << 8) | bytes[at + 2 * i + 1]!);
  return formatIpv6(groups);
}

/** The groups of `groups` with all bits past `len` cleared (a prefix's network address). */
export function maskIpv6(groups: readonly number[], len: number): number[] {
  return groups.map((group, i) => {
    const bits = Math.max(0, Math.min(16, len - i * 16));
    return bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff);
  });
}
