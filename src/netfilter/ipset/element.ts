// The members an IPv4 ipset holds, one shape per set type, with the 32-bit words the kernel hashes them by (the
// element structs of ip_set_hash_*.c read as a little-endian CPU reads them) and their equality. No IPv6, no
// hash:mac, hash:ip,mark, hash:net,net, hash:ip,port,ip/net or bitmap:ip(,mac) types.

import { elementWord, rawAddressWord } from '../jhash.ts';

/** The set types packetlab models. */
export const SET_TYPES = [
  'hash:ip',
  'hash:net',
  'hash:ip,port',
  'hash:net,port',
  'hash:net,iface',
  'bitmap:port',
  'list:set',
] as const;
export type SetTypeName = (typeof SET_TYPES)[number];

export type HashTypeName = Extract<SetTypeName, `hash:${string}`>;

/** One member, by set type: addresses host-order, ports host-order, `proto` an IPPROTO number. */
export type SetElement =
  | { readonly kind: 'hash:ip'; readonly ip: number }
  | { readonly kind: 'hash:net'; readonly ip: number; readonly cidr: number }
  | { readonly kind: 'hash:ip,port'; readonly ip: number; readonly proto: number; readonly port: number }
  | {
      readonly kind: 'hash:net,port';
      readonly ip: number;
      readonly cidr: number;
      readonly proto: number;
      readonly port: number;
    }
  | {
      readonly kind: 'hash:net,iface';
      readonly ip: number;
      readonly cidr: number;
      readonly iface: string;
      readonly physdev: boolean;
    }
  | { readonly kind: 'bitmap:port'; readonly port: number }
  | { readonly kind: 'list:set'; readonly name: string };

export type HashElement = Extract<SetElement, { kind: HashTypeName }>;

/** What the kernel reports for each type: its revision (ipset 7.17 with Linux 6.18) and the struct sizes. */
export interface SetTypeInfo {
  readonly revision: number;
  /** sizeof the IPv4 element struct (the hash key covers HKEY_DATALEN of it), 0 for bitmap:port. */
  readonly elementLen: number;
  /** Whether the type keeps its networks' prefix lengths (IP_SET_HASH_WITH_NETS). */
  readonly withNets: boolean;
  /**
   * "Size in memory" of an empty set at fewer than 2^10 buckets: sizeof the type's struct htype, struct htable and
   * one region lock (hash types), sizeof struct bitmap_port, or struct list_set. Measured on Linux 6.18 x86_64.
   */
  readonly emptySize: number;
}

export const SET_TYPE_INFO: Readonly<Record<SetTypeName, SetTypeInfo>> = {
  'hash:ip': { revision: 6, elementLen: 4, withNets: false, emptySize: 216 },
  'hash:net': { revision: 7, elementLen: 8, withNets: true, emptySize: 456 },
  'hash:ip,port': { revision: 7, elementLen: 8, withNets: false, emptySize: 216 },
  'hash:net,port': { revision: 8, elementLen: 8, withNets: true, emptySize: 456 },
  'hash:net,iface': { revision: 8, elementLen: 28, withNets: true, emptySize: 488 },
  'bitmap:port': { revision: 3, elementLen: 0, withNets: false, emptySize: 72 },
  'list:set': { revision: 3, elementLen: 48, withNets: false, emptySize: 80 },
};

/**
 * The words HKEY hashes, written into `out` (two words at most); returns how many. hash_ip4_elem {ip};
 * hash_net4_elem {ip; padding0; nomatch; cidr}; hash_ipport4_elem {ip; port (be16); proto; padding};
 * hash_netport4_elem {ip; port; proto; cidr - 1 : 7, nomatch : 1} (packed cidr); hash_netiface4_elem_hashed {ip;
 * physdev; cidr; nomatch; elem = 1} (the name, in the 28-byte element, is compared, not hashed). The nomatch flag is
 * set after hashing, so it is 0 here.
 */
export function hashWords(element: HashElement, out: Uint32Array): number {
  out[0] = rawAddressWord(element.ip);
  switch (element.kind) {
    case 'hash:ip':
      return 1;
    case 'hash:net':
      out[1] = elementWord(0, 0, 0, element.cidr);
      return 2;
    case 'hash:ip,port':
      out[1] = elementWord(element.port >>> 8, element.port, element.proto, 0);
      return 2;
    case 'hash:net,port':
      out[1] = elementWord(element.port >>> 8, element.port, element.proto, element.cidr - 1);
      return 2;
    case 'hash:net,iface':
      out[1] = elementWord(element.physdev ? 1 : 0, element.cidr, 0, 1);
      return 2;
  }
}

/** mtype_data_equal. */
export function sameElement(a: SetElement, b: SetElement): boolean {
  switch (a.kind) {
    case 'hash:ip':
      return b.kind === a.kind && a.ip === b.ip;
    case 'hash:net':
      return b.kind === a.kind && a.ip === b.ip && a.cidr === b.cidr;
    case 'hash:ip,port':
      return b.kind === a.kind && a.ip === b.ip && a.proto === b.proto && a.port === b.port;
    case 'hash:net,port':
      return (
        b.kind === a.kind && a.ip === b.ip && a.cidr === b.cidr && a.proto === b.proto && a.port === b.port
      );
    case 'hash:net,iface':
      return (
        b.kind === a.kind &&
        a.ip === b.ip &&
        a.cidr === b.cidr &&
        a.iface === b.iface &&
        a.physdev === b.physdev
      );
    case 'bitmap:port':
      return b.kind === a.kind && a.port === b.port;
    case 'list:set':
      return b.kind === a.kind && a.name === b.name;
  }
}

/** The element with its network part masked to `cidr` (mtype_data_netmask), for the net types. */
export function withPrefix(element: HashElement, cidr: number): HashElement {
  const mask = cidr === 0 ? 0 : (0xffff_ffff << (32 - cidr)) >>> 0;
  switch (element.kind) {
    case 'hash:net':
    case 'hash:net,port':
    case 'hash:net,iface':
      return { ...element, ip: (element.ip & mask) >>> 0, cidr };
    default:
      return element;
  }
}

/** The prefix length of a net element, 32 for the others. */
export function prefixOf(element: SetElement): number {
  return 'cidr' in element ? element.cidr : 32;
}
