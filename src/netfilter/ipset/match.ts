// What a packet is to an ipset (the types' kadt functions and ip_set_core.c:ip_set_test/ip_set_add/ip_set_del):
// its element built from the directions a rule gives (`src,dst`), tested for the set match (xt_set) with counters,
// --return-nomatch and counter comparisons, or added and deleted by the SET target. No physdev members (a bridge
// port's name is not known here), no IPv6.

import type { IpsetCounterTest, IpsetDirection } from '../ir.ts';
import { BitmapPortSet } from './bitmap-port.ts';
import type { HashElement } from './element.ts';
import type { SetEntry } from './extensions.ts';
import type { HashSet } from './hash-set.ts';
import { ListSet } from './list-set.ts';
import type { AnySet, IpSets } from './sets.ts';

const IPPROTO_ICMP = 1;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPPROTO_SCTP = 132;
const IPPROTO_UDPLITE = 136;
const IP_OFFSET = 0x1fff;

/** What of a packet the set types read, filled in place for each match (one object per namespace). */
export interface PacketFields {
  srcAddr: number;
  dstAddr: number;
  proto: number;
  /** The IPv4 fragment offset field (in 8-byte units); ports are unknown past the first fragment. */
  fragmentOffset: number;
  srcPort: number;
  dstPort: number;
  /** ICMP type << 8 | code, ipset's pseudo port for ICMP. */
  icmpPort: number;
  inIface: string | undefined;
  outIface: string | undefined;
  /** skb->len at the IP hooks. */
  length: number;
}

/** The dimensions of each type (IPSET_DIM_*): how many directions a rule must give. */
const DIMENSIONS: Readonly<Record<AnySet['type'], number>> = {
  'hash:ip': 1,
  'hash:net': 1,
  'hash:ip,port': 2,
  'hash:net,port': 2,
  'hash:net,iface': 2,
  'bitmap:port': 1,
  'list:set': 1,
};

function hasPorts(proto: number): boolean {
  return (
    proto === IPPROTO_TCP || proto === IPPROTO_UDP || proto === IPPROTO_SCTP || proto === IPPROTO_UDPLITE
  );
}

/** ip_set_get_ip4_port: the port of direction `dir`, ICMP's type/code, 0 for other protocols; none past a fragment. */
function portOf(fields: PacketFields, dir: IpsetDirection): number | undefined {
  if (fields.proto <= 0) return undefined;
  if ((fields.fragmentOffset & IP_OFFSET) !== 0)
    return hasPorts(fields.proto) || fields.proto === IPPROTO_ICMP ? undefined : 0;
  if (hasPorts(fields.proto)) return dir === 'src' ? fields.srcPort : fields.dstPort;
  if (fields.proto === IPPROTO_ICMP) return fields.icmpPort;
  return 0;
}

function addressOf(fields: PacketFields, dir: IpsetDirection): number {
  return dir === 'src' ? fields.srcAddr : fields.dstAddr;
}

function masked(addr: number, cidr: number): number {
  return cidr === 0 ? 0 : (addr & ((0xffff_ffff << (32 - cidr)) >>> 0)) >>> 0;
}

/**
 * The element a hash or bitmap set sees in the packet (mtype_kadt), or undefined when the packet has none for
 * it (-EINVAL: a zero address, no port past a first fragment, no interface). `prefix` is the prefix a net type
 * uses: 32 to test (every stored prefix is then tried), the longest stored one to add.
 */
function packetElement(
  set: HashSet,
  directions: readonly IpsetDirection[],
  fields: PacketFields,
  prefix: number,
): HashElement | undefined {
  const first = directions[0]!;
  const second = directions[1] ?? 'src';
  switch (set.type) {
    case 'hash:ip': {
      const ip = masked(addressOf(fields, first), set.netmask);
      return ip === 0 ? undefined : { kind: 'hash:ip', ip };
    }
    case 'hash:net':
      return { kind: 'hash:net', ip: masked(addressOf(fields, first), prefix), cidr: prefix };
    case 'hash:ip,port': {
      const port = portOf(fields, second);
      if (port === undefined) return undefined;
      return { kind: 'hash:ip,port', ip: addressOf(fields, first), proto: fields.proto, port };
    }
    case 'hash:net,port': {
      const port = portOf(fields, second);
      if (port === undefined) return undefined;
      const ip = masked(addressOf(fields, first), prefix);
      return { kind: 'hash:net,port', ip, cidr: prefix, proto: fields.proto, port };
    }
    case 'hash:net,iface': {
      const iface = second === 'src' ? fields.inIface : fields.outIface;
      if (iface === undefined || iface === '') return undefined;
      const ip = masked(addressOf(fields, first), prefix);
      return { kind: 'hash:net,iface', ip, cidr: prefix, iface, physdev: false };
    }
  }
}

/** bitmap_port_kadt: the port of a TCP, UDP, SCTP or UDP-Lite packet. */
function packetPort(directions: readonly IpsetDirection[], fields: PacketFields): number | undefined {
  return hasPorts(fields.proto) ? portOf(fields, directions[0]!) : undefined;
}

/** What the set match asks besides the element (IPSET_FLAG_* of xt_set rev 4). */
export interface MatchFlags {
  readonly returnNomatch: boolean;
  readonly updateCounters: boolean;
  readonly updateSubcounters: boolean;
  readonly packets: IpsetCounterTest | undefined;
  readonly bytes: IpsetCounterTest | undefined;
}

function counterPasses(value: number, test: IpsetCounterTest | undefined): boolean {
  if (test === undefined) return true;
  switch (test.op) {
    case 'eq':
      return (value === test.value) !== test.invert;
    case 'lt':
      return value < test.value;
    case 'gt':
      return value > test.value;
  }
}

/**
 * ip_set_match_extensions for a member found: counters updated first (unless `! --update-counters`), then
 * compared (--packets-gt and friends).
 */
function extensionsPass(
  set: AnySet,
  entry: SetEntry<unknown>,
  flags: MatchFlags,
  fields: PacketFields,
): boolean {
  if (!set.extensions.counters) return true;
  if (flags.updateCounters) {
    entry.packets += 1;
    entry.bytes += fields.length;
  }
  return counterPasses(entry.packets, flags.packets) && counterPasses(entry.bytes, flags.bytes);
}

/** ip_set_test: whether the packet's element is in set `name` (0 when the set is missing or the element is not). */
export function ipsetTest(
  sets: IpSets,
  name: string,
  directions: readonly IpsetDirection[],
  flags: MatchFlags,
  fields: PacketFields,
  nowNs: number,
): boolean {
  const set = sets.get(name)?.set;
  if (set === undefined || directions.length < DIMENSIONS[set.type]) return false;
  if (set instanceof ListSet) return listTest(sets, set, directions, flags, fields, nowNs);
  if (set instanceof BitmapPortSet) {
    const port = packetPort(directions, fields);
    const entry = port === undefined ? undefined : set.test(port, nowNs);
    return entry !== undefined && extensionsPass(set, entry, flags, fields);
  }
  const element = packetElement(set, directions, fields, 32);
  const entry = element === undefined ? undefined : set.probe(element, nowNs);
  if (entry === undefined || !extensionsPass(set, entry, flags, fields)) return false;
  // --return-nomatch turns the answer around for the types that store nomatch members.
  const nomatchType =
    set.type === 'hash:net' || set.type === 'hash:net,port' || set.type === 'hash:net,iface';
  const matched = !entry.nomatch;
  return flags.returnNomatch && nomatchType ? !matched : matched;
}

/**
 * list_set_ktest: the first member set that matches, tested without counter comparisons (and without counting
 * when `! --update-subcounters`); then the list's own member entry is counted and compared.
 */
function listTest(
  sets: IpSets,
  list: ListSet,
  directions: readonly IpsetDirection[],
  flags: MatchFlags,
  fields: PacketFields,
  nowNs: number,
): boolean {
  const memberFlags: MatchFlags = {
    returnNomatch: flags.returnNomatch,
    updateCounters: flags.updateCounters && flags.updateSubcounters,
    updateSubcounters: flags.updateSubcounters,
    packets: undefined,
    bytes: undefined,
  };
  for (const entry of list.members(nowNs)) {
    if (!ipsetTest(sets, entry.element.name, directions, memberFlags, fields, nowNs)) continue;
    if (extensionsPass(list, entry, flags, fields)) return true;
  }
  return false;
}

/** ip_set_add / ip_set_del from the SET target: errors (full, out of range, no element) are ignored. */
export function ipsetChange(
  sets: IpSets,
  op: 'add' | 'del',
  name: string,
  directions: readonly IpsetDirection[],
  options: { readonly exist: boolean; readonly timeout: number | undefined },
  fields: PacketFields,
  nowNs: number,
): void {
  const set = sets.get(name)?.set;
  if (set === undefined || directions.length < DIMENSIONS[set.type]) return;
  if (set instanceof ListSet) {
    // list_set_kadd/kdel: the first member set that takes the element.
    for (const entry of set.members(nowNs)) {
      const member = sets.get(entry.element.name)?.set;
      if (member === undefined || member instanceof ListSet) continue;
      if (changeOne(member, op, directions, options, fields, nowNs)) return;
    }
    return;
  }
  changeOne(set, op, directions, options, fields, nowNs);
}

function changeOne(
  set: HashSet | BitmapPortSet,
  op: 'add' | 'del',
  directions: readonly IpsetDirection[],
  options: { readonly exist: boolean; readonly timeout: number | undefined },
  fields: PacketFields,
  nowNs: number,
): boolean {
  // A timeout on a set without timeouts is ignored.
  const timeout = set.extensions.timeout === undefined ? undefined : options.timeout;
  const ext = timeout === undefined ? {} : { timeout };
  if (set instanceof BitmapPortSet) {
    const port = packetPort(directions, fields);
    if (port === undefined) return false;
    return (op === 'add' ? set.add(port, ext, options.exist, nowNs) : set.del(port, nowNs)).ok;
  }
  const element = packetElement(set, directions, fields, set.kernelPrefix());
  if (element === undefined) return false;
  const flags = { exist: options.exist, nomatch: false };
  return (op === 'add' ? set.add(element, ext, flags, nowNs) : set.del(element, nowNs)).ok;
}
