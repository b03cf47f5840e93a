// Choosing the tuple a new connection is NATed to: keep it, reuse the source's mapping, pick the address by hash, then search the port (or ICMP id) space in bounded rounds; IPv4 only, no zones, no GRE keys (PPTP).
//
// Mirrors net/netfilter/nf_nat_core.c as of Linux 6.x:
//   get_unique_tuple            the order of the steps below
//   find_appropriate_src        through bysource.ts
//   find_best_ips_proto         jhash2 of the source address, seeded with the destination
//                               (0 with --persistent), scaled onto the address range
//   nf_nat_l4proto_unique_tuple the per-protocol key: default port classes 1-511, 600-1023,
//                               1024-65535 (ICMP ids 0-65535); offset 0 for DNAT without
//                               random flags, else a random u16; rounds of min(range, 128)
//                               consecutive probes, halved with a new random offset while
//                               attempts >= 16 and < range: 128 + 64 + 32 + 16 + 8 = 248
//                               probes at most (commit a504b703bb1d: "at most 248 attempts")
//   nf_nat_used_tuple_harder    in the last NF_NAT_HARDER_THRESH (32) probes, a TCP SYN_SENT
//                               connection may evict a source-NATed TIME_WAIT (or later)
//                               connection whose sequence space it has passed
// Every probe is one conntrack index lookup (Conntrack.isNatTupleUsed = nf_nat_used_tuple).
// Deviation: nf_nat_used_tuple_new's reverse-clash exception for UDP (two CPUs creating both
// directions at once) cannot happen single-threaded, so the plain check is used there.

import type { Rng } from '../../core/rng.ts';
import type { Conntrack } from '../conntrack/conntrack.ts';
import { DIR_ORIGINAL, DIR_REPLY, IPS_DYING, IPS_FIXED_TIMEOUT, IPS_SRC_NAT } from '../conntrack/table.ts';
import { TCP_CONNTRACK_SYN_SENT, TCP_CONNTRACK_TIME_WAIT, tcpState, tcpWindow } from '../conntrack/tcp.ts';
import {
  copyTuple,
  createTuple,
  hasPorts,
  IPPROTO_ICMP,
  IPPROTO_TCP,
  invertTuple,
  type Tuple,
} from '../conntrack/tuple.ts';
import { jhash2, rawAddressWord, reciprocalScale } from '../jhash.ts';
import type { BySourceIndex } from './bysource.ts';
import {
  inRange,
  l4InRange,
  type Manip,
  type NatRange2,
  NF_NAT_RANGE_MAP_IPS,
  NF_NAT_RANGE_PERSISTENT,
  NF_NAT_RANGE_PROTO_OFFSET,
  NF_NAT_RANGE_PROTO_RANDOM_ALL,
  NF_NAT_RANGE_PROTO_SPECIFIED,
} from './range.ts';

/** NF_NAT_MAX_ATTEMPTS. */
export const NAT_MAX_ATTEMPTS = 128;
/** NF_NAT_HARDER_THRESH: probes left at which a SYN may evict a closing connection. */
export const NAT_HARDER_THRESH = NAT_MAX_ATTEMPTS / 4;
/** Rounds stop once attempts drop below this. */
const MIN_ROUND = 16;

export class TupleChooser {
  private readonly hashKey = new Uint32Array(4);
  private readonly scratch = createTuple();
  private readonly holderTuple = createTuple();
  // find_appropriate_src's arguments, set before the by-source walk (its visitor allocates nothing).
  private srcResult: Tuple = createTuple();
  private srcOrig: Tuple = createTuple();
  private srcRange: NatRange2 | null = null;
  private readonly visitSource = (index: number): boolean => this.trySourceMapping(index);

  constructor(
    private readonly conntrack: Conntrack,
    private readonly bySource: BySourceIndex,
    private readonly rng: Rng,
  ) {}

  /**
   * get_unique_tuple: fills `tuple` with the original-direction tuple connection `ct` should
   * have after this manip of `orig` into `range`. It may still be in use (every probe failed,
   * or DNAT may not move the port): then the clash surfaces at confirm.
   */
  choose(tuple: Tuple, orig: Tuple, range: NatRange2, ct: number, manip: Manip, now: number): void {
    const flags = range.flags;
    const conntrack = this.conntrack;
    // 1) Source NAT: keep the tuple if it already fits, else reuse this source's mapping.
    if (manip === 'src' && (flags & NF_NAT_RANGE_PROTO_RANDOM_ALL) === 0) {
      if (inRange(orig, range)) {
        if (!conntrack.isNatTupleUsed(orig, ct, now)) {
          copyTuple(orig, tuple);
          return;
        }
      } else if (this.findAppropriateSrc(orig, tuple, range) && !conntrack.isNatTupleUsed(tuple, ct, now)) {
        return;
      }
    }
    // 2) The address, by hash.
    copyTuple(orig, tuple);
    this.findBestIps(tuple, range, manip);
    // 3) Keep the per-protocol key if it is in range and unique.
    if ((flags & NF_NAT_RANGE_PROTO_RANDOM_ALL) === 0) {
      if ((flags & NF_NAT_RANGE_PROTO_SPECIFIED) !== 0) {
        if (
          (flags & NF_NAT_RANGE_PROTO_OFFSET) === 0 &&
          l4InRange(tuple, manip, range.minProto, range.maxProto) &&
          (range.minProto === range.maxProto || !conntrack.isNatTupleUsed(tuple, ct, now))
        ) {
          return;
        }
      } else if (!conntrack.isNatTupleUsed(tuple, ct, now)) {
        return;
      }
    }
    // Last chance: search the key space.
    this.uniqueKey(tuple, range, manip, ct, now);
  }

  /** find_appropriate_src: an existing mapping of this source that fits the range, written to `result`. */
  private findAppropriateSrc(orig: Tuple, result: Tuple, range: NatRange2): boolean {
    this.srcOrig = orig;
    this.srcResult = result;
    this.srcRange = range;
    const found = this.bySource.find(orig, this.visitSource);
    this.srcRange = null;
    return found >= 0;
  }

  private trySourceMapping(index: number): boolean {
    const result = this.srcResult;
    const orig = this.srcOrig;
    // Copy the source part from the reply tuple; keep our destination.
    this.conntrack.tuple(index, DIR_REPLY, this.scratch);
    if (!invertTuple(this.scratch, result)) return false;
    result.dst = orig.dst;
    result.dstPort = orig.dstPort;
    result.protocol = orig.protocol;
    return inRange(result, this.srcRange!);
  }

  /**
   * find_best_ips_proto for IPv4: one address, or minip + reciprocal_scale(jhash2(src, dst), n)
   * over the n addresses of the range. jhash2 runs, as in the kernel, over the 16-byte
   * union nf_inet_addr holding the source (the IPv4 address then three zero words) with the
   * destination as seed (0 with --persistent), each word as a little-endian CPU reads it: the
   * same address a real x86 or arm64 kernel picks. The kernel keys nothing here on purpose, so
   * a client keeps its address across reboots.
   */
  private findBestIps(tuple: Tuple, range: NatRange2, manip: Manip): void {
    if ((range.flags & NF_NAT_RANGE_MAP_IPS) === 0) return;
    let addr = range.minAddr;
    if (range.minAddr !== range.maxAddr) {
      const key = this.hashKey;
      key[0] = rawAddressWord(tuple.src);
      key[1] = 0;
      key[2] = 0;
      key[3] = 0;
      const seed = (range.flags & NF_NAT_RANGE_PERSISTENT) !== 0 ? 0 : rawAddressWord(tuple.dst);
      const j = jhash2(key, 4, seed);
      const dist = (range.maxAddr - range.minAddr + 1) >>> 0;
      addr = (range.minAddr + reciprocalScale(j, dist)) >>> 0;
    }
    if (manip === 'src') tuple.src = addr;
    else tuple.dst = addr;
  }

  /** nf_nat_l4proto_unique_tuple: the bounded search for a free key; leaves the last one probed when all are used. */
  private uniqueKey(tuple: Tuple, range: NatRange2, manip: Manip, ct: number, now: number): void {
    const protocol = tuple.protocol;
    const specified = (range.flags & NF_NAT_RANGE_PROTO_SPECIFIED) !== 0;
    let keyIsSrc: boolean;
    let min: number;
    let rangeSize: number;
    if (protocol === IPPROTO_ICMP) {
      // The id is the same for either direction.
      keyIsSrc = true;
      if (!specified) {
        min = 0;
        rangeSize = 65536;
      } else {
        min = Math.min(range.minProto, range.maxProto);
        rangeSize = Math.abs(range.maxProto - range.minProto) + 1;
      }
    } else if (hasPorts(protocol)) {
      keyIsSrc = manip === 'src';
      if (!specified) {
        // A destination rewrite without a port range cannot change the port.
        if (manip === 'dst') return;
        const port = tuple.srcPort;
        if (port < 1024) {
          // Loose convention: >= 512 is credential passing.
          if (port < 512) {
            min = 1;
            rangeSize = 511;
          } else {
            min = 600;
            rangeSize = 1023 - 600 + 1;
          }
        } else {
          min = 1024;
          rangeSize = 65535 - 1024 + 1;
        }
      } else {
        min = Math.min(range.minProto, range.maxProto);
        rangeSize = Math.abs(range.maxProto - range.minProto) + 1;
      }
    } else {
      return;
    }

    const randomOffset = (range.flags & NF_NAT_RANGE_PROTO_RANDOM_ALL) !== 0 || manip !== 'dst';
    // off is a u16 in the kernel: it wraps at 65536 while probing. A shifted portmap starts at key - base.
    const key = keyIsSrc ? tuple.srcPort : tuple.dstPort;
    let off =
      (range.flags & NF_NAT_RANGE_PROTO_OFFSET) !== 0
        ? (key - range.baseProto) & 0xffff
        : randomOffset
          ? this.randomU16()
          : 0;
    let attempts = Math.min(rangeSize, NAT_MAX_ATTEMPTS);
    for (;;) {
      for (let i = 0; i < attempts; i++, off = (off + 1) & 0xffff) {
        const key = min + (off % rangeSize);
        if (keyIsSrc) tuple.srcPort = key;
        else tuple.dstPort = key;
        if (!this.usedHarder(tuple, ct, attempts - i, now)) return;
      }
      if (attempts >= rangeSize || attempts < MIN_ROUND) return;
      attempts >>>= 1;
      off = this.randomU16();
    }
  }

  /** get_random_u16. */
  private randomU16(): number {
    return this.rng.u32() & 0xffff;
  }

  /**
   * nf_nat_used_tuple_harder: nf_nat_used_tuple, except that in the last NAT_HARDER_THRESH
   * probes a TCP connection in SYN_SENT may evict the holder when that one is source-NATed,
   * in TIME_WAIT or a later state, neither fixed-timeout nor dying, and our first sequence
   * number lies past its end (so its stray segments cannot be mistaken for ours).
   */
  private usedHarder(tuple: Tuple, ct: number, attemptsLeft: number, now: number): boolean {
    const conntrack = this.conntrack;
    const table = conntrack.table;
    // Outside the last probes, nf_conntrack_tuple_taken (which counts `found`); inside, a plain lookup.
    if (
      attemptsLeft > NAT_HARDER_THRESH ||
      tuple.protocol !== IPPROTO_TCP ||
      tcpState(table, ct) !== TCP_CONNTRACK_SYN_SENT
    )
      return conntrack.isNatTupleUsed(tuple, ct, now);
    const reply = this.holderTuple;
    invertTuple(tuple, reply);
    const ref = conntrack.find(reply, now);
    if (ref < 0) return false;
    const holder = ref >>> 1;
    if ((ref & 1) === DIR_ORIGINAL || holder === ct) return true;
    // nf_nat_may_kill
    const status = conntrack.status(holder);
    if (tcpState(table, holder) < TCP_CONNTRACK_TIME_WAIT) return true;
    if ((status & (IPS_FIXED_TIMEOUT | IPS_DYING)) !== 0 || (status & IPS_SRC_NAT) === 0) return true;
    // nf_seq_has_advanced
    const ours = tcpWindow(table, ct, DIR_ORIGINAL).tdEnd;
    const theirs = tcpWindow(table, holder, DIR_ORIGINAL).tdEnd;
    if (((ours - theirs) | 0) <= 0) return true;
    // No offload here, so an evicted holder frees the tuple.
    return !conntrack.delete(holder, now);
  }
}
