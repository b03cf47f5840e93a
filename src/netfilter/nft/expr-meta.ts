// nft 1.0.6's meta keys (meta.c: meta_templates) as packetlab models them: each key's datatype, width, whether it
// may be written without `meta` (parser_bison.y: meta_key_unqualified), and what the kernel refuses for the ip and
// inet families (nft_meta_get_validate: the bridge port names and VLAN keys), and the tc handles of `meta priority`.
// The wall-clock keys' values are in expr-time.ts. Not supported: secmark compared with a constant (nft refuses it too), skuid/skgid names other than root.

import type { MetaKey } from '../ir.ts';
import type { NftType } from './types.ts';

export interface MetaKeyInfo {
  readonly type: NftType;
  readonly bits: number;
  /** The kernel refuses the key in ip and inet tables (`Could not process rule: Operation not supported`). */
  readonly refused?: boolean;
}

/** The keys packetlab reads (meta set is modelled for mark and nftrace only). */
export const META_KEYS: Readonly<Partial<Record<MetaKey, MetaKeyInfo>>> = {
  cpu: { type: 'integer', bits: 32 },
  priority: { type: 'tc_handle', bits: 32 },
  skuid: { type: 'uid', bits: 32 },
  skgid: { type: 'gid', bits: 32 },
  rtclassid: { type: 'realm', bits: 32 },
  iiftype: { type: 'iftype', bits: 16 },
  oiftype: { type: 'iftype', bits: 16 },
  iifgroup: { type: 'devgroup', bits: 32 },
  oifgroup: { type: 'devgroup', bits: 32 },
  cgroup: { type: 'integer', bits: 32 },
  secmark: { type: 'integer', bits: 32 },
  random: { type: 'integer', bits: 32 },
  ipsec: { type: 'boolean', bits: 1 },
  iifkind: { type: 'ifkind', bits: 128 },
  oifkind: { type: 'ifkind', bits: 128 },
  sdif: { type: 'iface', bits: 32 },
  sdifname: { type: 'ifname', bits: 128 },
  ibrname: { type: 'ifname', bits: 128, refused: true },
  obrname: { type: 'ifname', bits: 128, refused: true },
  ibrpvid: { type: 'integer', bits: 16, refused: true },
  ibrvproto: { type: 'ether_type', bits: 16, refused: true },
  time: { type: 'date', bits: 64 },
  day: { type: 'day', bits: 8 },
  hour: { type: 'hour', bits: 32 },
};

/** Keys that may be written without `meta` (and list so when nft prints them bare). */
export const BARE_META_KEYS: ReadonlySet<string> = new Set([
  'mark',
  'iif',
  'iifname',
  'iiftype',
  'oif',
  'oifname',
  'oiftype',
  'skuid',
  'skgid',
  'nftrace',
  'rtclassid',
  'ibrname',
  'obrname',
  'pkttype',
  'cpu',
  'iifgroup',
  'oifgroup',
  'cgroup',
]);

/** Keys nft lists without `meta`. */
export function printsBare(key: MetaKey): boolean {
  return (
    key === 'iifname' ||
    key === 'oifname' ||
    key === 'iif' ||
    key === 'oif' ||
    key === 'iifgroup' ||
    key === 'oifgroup'
  );
}

/**
 * A `meta priority` value (datatype.c: tchandle_type_parse): `none`, `root`, `MAJOR:MINOR` in hex, or a number. Like
 * nft 1.0.6, a word it cannot read is `none`.
 */
export function parseTcHandle(text: string): number {
  if (text === 'root') return 0xffff_ffff;
  const match = /^([0-9a-fA-F]*):([0-9a-fA-F]*)$/.exec(text);
  if (match !== null)
    return ((Number.parseInt(match[1] || '0', 16) << 16) | Number.parseInt(match[2] || '0', 16)) >>> 0;
  if (/^(0x[0-9a-fA-F]+|\d+)$/.test(text)) return Number(text) >>> 0;
  return 0;
}

/** tchandle_type_print. */
export function formatTcHandle(value: number): string {
  if (value === 0xffff_ffff) return 'root';
  if (value === 0) return 'none';
  return `${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
}
