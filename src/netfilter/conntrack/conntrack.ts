// Connection tracking for one network namespace: the entry points the Netfilter hooks call (process at PREROUTING/OUTPUT, confirm at INPUT/POSTROUTING), ctstate for matches, the NAT hooks, accessors for `conntrack -L`, events and the expiry sweep; IPv4 only, no helpers, expectations or zones.
//
// Mirrors net/netfilter/nf_conntrack_core.c: nf_conntrack_in, resolve_normal_ct,
// init_conntrack, __nf_conntrack_confirm, nf_ct_resolve_clash (with allow_clash for UDP),
// nf_conntrack_alter_reply, nf_conntrack_tuple_taken, and the event cache delivered at confirm.
//
// How a packet carries its conntrack (the skb's _nfct): pkt.ctIndex is the entry (-1: none),
// pkt.ctInfo the kernel's enum ip_conntrack_info (IP_CT_NEW, IP_CT_ESTABLISHED, ...,
// IP_CT_UNTRACKED), pkt.ctReply whether it travels in the reply direction. No entry and not
// UNTRACKED means ctstate INVALID, as nf_ct_get returning NULL does in the kernel.
//
// Contract with the hooks:
// - process() at PREROUTING and OUTPUT (priority -200), after defragmentation: non-first
//   fragments are INVALID here;
// - confirm() at INPUT and POSTROUTING (priority INT_MAX) for every packet: it inserts a new
//   entry, resolves or reports a clash, and delivers the cached events;
// - abandon() for a packet that dies between the two (a DROP rule, no route): an unconfirmed
//   entry is freed, as the kernel frees it with the skb;
// - a packet leaving the namespace must forget its conntrack (resetConntrack, like
//   skb_scrub_packet on veth), since entry numbers are per namespace.
//
// Statistics are one set (see table.ts). Untouched kernel details: `insert` counts only
// entries created from userspace (ctnetlink) in the kernel, so it stays 0 here as in `conntrack
// -S` on a live system; `search_restart` and `chaintoolong` cannot happen with this table.

import type { Packet } from '../../core/packet.ts';
import type { Scheduler, TimerId } from '../../core/scheduler.ts';
import type { SoftirqClock } from '../host.ts';
import { GENERIC_DEFAULT_TIMEOUT_SEC, genericPacket } from './generic.ts';
import {
  ICMP_DEFAULT_TIMEOUT_SEC,
  ICMP_ERROR_INVALID,
  ICMP_NOT_AN_ERROR,
  icmpError,
  icmpPacket,
} from './icmp.ts';
import {
  ConnTable,
  type ConnTableOptions,
  type ConntrackStats,
  DIR_ORIGINAL,
  DIR_REPLY,
  IPCT_DESTROY,
  IPCT_MARK,
  IPCT_NEW,
  IPCT_RELATED,
  IPCT_REPLY,
  IPS_CONFIRMED,
  IPS_DYING,
  IPS_EXPECTED,
  IPS_FIXED_TIMEOUT,
  IPS_NAT_CLASH,
  IPS_NAT_DONE_MASK,
  IPS_OFFLOAD,
  IPS_SEEN_REPLY,
  TRACK_ACCEPT,
  TRACK_REPEAT,
} from './table.ts';
import {
  defaultTcpSettings,
  TCP_STATE_NAMES,
  type TcpSettings,
  type TcpStateName,
  tcpCanEarlyDrop,
  tcpPacket,
  tcpState,
} from './tcp.ts';
import {
  createTuple,
  fillTuple,
  IPPROTO_ICMP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  IPPROTO_UDPLITE,
  invertTuple,
  l4Offset,
  type Tuple,
} from './tuple.ts';
import { defaultUdpSettings, type UdpSettings, udpPacket } from './udp.ts';

// enum ip_conntrack_info (include/uapi/linux/netfilter/nf_conntrack_common.h)
export const IP_CT_ESTABLISHED = 0;
export const IP_CT_RELATED = 1;
export const IP_CT_NEW = 2;
export const IP_CT_IS_REPLY = 3;
export const IP_CT_ESTABLISHED_REPLY = IP_CT_ESTABLISHED + IP_CT_IS_REPLY;
export const IP_CT_RELATED_REPLY = IP_CT_RELATED + IP_CT_IS_REPLY;
export const IP_CT_UNTRACKED = 7;

// ctstate bits as xt_conntrack and nft `ct state` test them (NF_CT_STATE_BIT).
export const CT_STATE_INVALID = 1 << 0;
export const CT_STATE_ESTABLISHED = 1 << 1;
export const CT_STATE_RELATED = 1 << 2;
export const CT_STATE_NEW = 1 << 3;
export const CT_STATE_UNTRACKED = 1 << 6;

export type CtStateName = 'INVALID' | 'ESTABLISHED' | 'RELATED' | 'NEW' | 'UNTRACKED';

/** The hooks conntrack is registered at (only PREROUTING matters: checksums are verified there). */
export type ConntrackHook = 'PREROUTING' | 'INPUT' | 'FORWARD' | 'OUTPUT' | 'POSTROUTING';

/** What process() decided: pass the packet on, or drop it for this reason. */
export type ConntrackVerdict = 'accept' | 'CONNTRACK_TABLE_FULL';
/** What confirm() decided: pass the packet on, or drop it (insert_failed). */
export type ConfirmVerdict = 'accept' | 'CONNTRACK_INSERT_FAILED';

export type ConntrackEventType = 'NEW' | 'UPDATE' | 'DESTROY';
/** `events` holds the IPCT_* bits delivered together (one netlink message in the kernel). */
export type ConntrackEventListener = (type: ConntrackEventType, index: number, events: number) => void;

/** The sysctls of one namespace's conntrack (net.netfilter.nf_conntrack_*), timeouts in ns. */
export interface ConntrackSettings {
  readonly tcp: TcpSettings;
  readonly udp: UdpSettings;
  icmpTimeout: number;
  genericTimeout: number;
  /**
   * nf_conntrack_checksum, verified at PREROUTING. Default false: Linux's default is 1, but the
   * skbs packetlab models (veth, loopback, VXLAN with offloads) arrive CHECKSUM_UNNECESSARY or
   * CHECKSUM_PARTIAL, for which nf_checksum computes nothing; true models a NIC without receive
   * checksum offload, at 0.5-1 µs per full-size packet.
   */
  checksum: boolean;
}

export function defaultConntrackSettings(): ConntrackSettings {
  return {
    tcp: defaultTcpSettings(),
    udp: defaultUdpSettings(),
    icmpTimeout: ICMP_DEFAULT_TIMEOUT_SEC * NS_PER_SEC,
    genericTimeout: GENERIC_DEFAULT_TIMEOUT_SEC * NS_PER_SEC,
    checksum: false,
  };
}

export interface ConntrackOptions extends ConnTableOptions {
  readonly settings?: ConntrackSettings;
}

export interface GcOptions {
  /** Entries examined per sweep step before yielding (the kernel bounds a step at 10 ms). Default 8192. */
  readonly batch?: number;
}

const NS_PER_SEC = 1_000_000_000;
/** CONFIG_HZ=250, the kernel's default tick: the unit of ct->timeout. */
const HZ = 250;
const JIFFY_NS = NS_PER_SEC / HZ;
// gc_worker pacing (GC_SCAN_INTERVAL_MIN / _MAX).
const GC_INTERVAL_MIN = NS_PER_SEC;
const GC_INTERVAL_MAX = 60 * NS_PER_SEC;
const DEFAULT_GC_BATCH = 8192;
/** A clash entry inserted by nf_ct_resolve_clash_harder lives one second. */
const CLASH_TIMEOUT = NS_PER_SEC;
const IPV4_TOTAL_LEN = 2;
const IPV4_PROTOCOL = 9;

/** The ctstate of a packet as conntrack matches see it (one of the CT_STATE_* bits). */
export function ctStateBits(pkt: Packet): number {
  if (pkt.ctIndex >= 0) return 1 << ((pkt.ctInfo % IP_CT_IS_REPLY) + 1);
  return pkt.ctInfo === IP_CT_UNTRACKED ? CT_STATE_UNTRACKED : CT_STATE_INVALID;
}

export function ctStateName(pkt: Packet): CtStateName {
  switch (ctStateBits(pkt)) {
    case CT_STATE_ESTABLISHED:
      return 'ESTABLISHED';
    case CT_STATE_RELATED:
      return 'RELATED';
    case CT_STATE_NEW:
      return 'NEW';
    case CT_STATE_UNTRACKED:
      return 'UNTRACKED';
    default:
      return 'INVALID';
  }
}

/** Marks a packet untracked (the raw table's NOTRACK / `notrack`): conntrack then ignores it. */
export function setUntracked(pkt: Packet): void {
  pkt.ctIndex = -1;
  pkt.ctReply = false;
  pkt.ctInfo = IP_CT_UNTRACKED;
}

/** Forgets the packet's conntrack (nf_reset_ct), e.g. when it crosses into another namespace. */
export function resetConntrack(pkt: Packet): void {
  pkt.ctIndex = -1;
  pkt.ctReply = false;
  pkt.ctInfo = 0;
}

/**
 * How confirm settles a UDP entry that lost the insert race, by kernel generation (nf_ct_resolve_clash's history):
 * - `untranslated` (Linux 4.7-4.20, "netfilter: conntrack: introduce clash resolution on insertion race"): the
 *   packet adopts the entry in the table only when that one has no NAT; a DNATed pair always loses one packet;
 * - `matching` (5.0-5.6, "netfilter: nf_conntrack: resolve clash for matching conntracks"): also when both entries
 *   have the same tuples, i.e. were DNATed to the same endpoint; two different endpoints still lose one;
 * - `reply-only` (5.7 on, "netfilter: conntrack: allow insertion of clashing entries", the machine's 6.18): failing
 *   that, the loser goes into the table under its reply tuple alone for 1 s (IPS_NAT_CLASH) and its packet passes.
 * Up to 5.6 every clash counted insert_failed, resolved or not (the out: path of __nf_conntrack_confirm); 5.7 counts
 * clash_resolve for a resolved one and insert_failed (with drop) only for a dropped one.
 */
export type ClashResolution = 'untranslated' | 'matching' | 'reply-only';
export const CLASH_RESOLUTIONS: readonly ClashResolution[] = ['untranslated', 'matching', 'reply-only'];

/** Entries a softirq window is remembered for (a few frames: the others are pruned as frames move on). */
const RACE_WINDOW_ENTRIES = 64;

function allowClash(protocol: number): boolean {
  // nf_conntrack_l4proto.allow_clash: set for UDP and UDP-Lite only.
  return protocol === IPPROTO_UDP || protocol === IPPROTO_UDPLITE;
}

/** NF_CT_DAY: how far nf_ct_offload_timeout pushes an offloaded entry's deadline. */
const OFFLOAD_TIMEOUT_NS = 86_400 * 1_000_000_000;

export class Conntrack {
  readonly table: ConnTable;
  readonly settings: ConntrackSettings;

  private listener: ConntrackEventListener | null = null;
  private scheduler: Scheduler | null = null;
  private gcBatch = DEFAULT_GC_BATCH;
  private gcTimer: TimerId = -1;
  private gcAt = Number.POSITIVE_INFINITY;
  /** Soonest remaining timeout seen so far in the current sweep pass. */
  private passMin = Number.POSITIVE_INFINITY;
  private readonly runGc = (now: number): void => this.gcRun(now);

  /** Kernel generation of the clash resolution (default: the machine's, 5.7 on). */
  clash: ClashResolution = 'reply-only';
  /**
   * CPUs whose receive softirqs run at once (default 1: frames one after the other, no insert race). With N > 1, a
   * frame and the up to N - 1 frames already queued behind it when it was taken run together, one per CPU: a packet
   * of a later one does not see an entry an earlier one confirmed (its lookup ran before that confirm), so two
   * packets of one new flow (glibc's A and AAAA from one socket) each create an entry and the second clashes at
   * confirm. A model of the race window, which on a real node is microseconds wide: here every such pair races.
   */
  cpus = 1;
  /** The backlog's frame numbering (the namespace gives it; none: every packet in process context). */
  softirq: SoftirqClock | null = null;
  // Entries confirmed by a frame while later frames ran alongside it: entry, confirming frame, last frame alongside.
  private readonly raceEntry = new Int32Array(RACE_WINDOW_ENTRIES);
  private readonly raceFrom = new Float64Array(RACE_WINDOW_ENTRIES);
  private readonly raceUntil = new Float64Array(RACE_WINDOW_ENTRIES);
  private raceCount = 0;

  // Scratch tuples: the packet path allocates nothing.
  private readonly tuple0 = createTuple();
  private readonly tuple1 = createTuple();
  private readonly tuple2 = createTuple();
  private readonly tuple3 = createTuple();
  private readonly natScratch = createTuple();

  constructor(options: ConntrackOptions = {}) {
    this.table = new ConnTable(options);
    this.settings = options.settings ?? defaultConntrackSettings();
    this.table.canEarlyDrop = tcpCanEarlyDrop;
  }

  get stats(): ConntrackStats {
    return this.table.stats;
  }

  /** Live entries, confirmed or not (nf_conntrack_count). */
  get count(): number {
    return this.table.count;
  }

  get max(): number {
    return this.table.max;
  }

  // ---- the packet path ------------------------------------------------------------------

  /**
   * nf_conntrack_in for the IPv4 packet at pkt.network: finds its connection or creates an
   * unconfirmed one, runs the protocol's tracker and sets pkt.ctIndex, pkt.ctReply and
   * pkt.ctInfo. An invalid packet leaves without a conntrack (ctstate INVALID) and is accepted,
   * as in the kernel; only a full table drops.
   */
  process(pkt: Packet, hook: ConntrackHook, now: number): ConntrackVerdict {
    // Previously seen (loopback) or untracked: ignore.
    if (pkt.ctIndex >= 0 || pkt.ctInfo === IP_CT_UNTRACKED) return 'accept';
    const table = this.table;
    const buf = pkt.buf;
    const nhoff = pkt.network;
    let end = pkt.end;
    if (nhoff >= 0 && nhoff + 4 <= end) {
      const totalEnd = nhoff + ((buf[nhoff + IPV4_TOTAL_LEN]! << 8) | buf[nhoff + IPV4_TOTAL_LEN + 1]!);
      if (totalEnd < end) end = totalEnd;
    }
    const dataoff = l4Offset(buf, nhoff, end);
    if (dataoff < 0) {
      table.stats.invalid++;
      return 'accept';
    }
    const protocol = buf[nhoff + IPV4_PROTOCOL]!;
    const verifyChecksum = this.settings.checksum && hook === 'PREROUTING';

    if (protocol === IPPROTO_ICMP) {
      const ref = icmpError(table, buf, nhoff, dataoff, end, verifyChecksum, this.tuple2, this.tuple3, now);
      if (ref === ICMP_ERROR_INVALID) {
        table.stats.error++;
        return 'accept';
      }
      if (ref !== ICMP_NOT_AN_ERROR) {
        const reply = (ref & 1) === DIR_REPLY;
        pkt.ctIndex = ref >>> 1;
        pkt.ctReply = reply;
        pkt.ctInfo = reply ? IP_CT_RELATED_REPLY : IP_CT_RELATED;
        return 'accept';
      }
    }

    const tuple = this.tuple0;
    for (;;) {
      // resolve_normal_ct
      if (!fillTuple(buf, nhoff, dataoff, end, tuple)) {
        table.stats.invalid++;
        return 'accept';
      }
      let index: number;
      let dir: number;
      let ref = table.lookup(tuple, now);
      // A packet on another CPU, in flight since before this entry was confirmed: its lookup missed it.
      if (ref >= 0 && this.raceCount > 0 && (ref & 1) === DIR_ORIGINAL && this.confirmedAlongside(ref >>> 1))
        ref = -1;
      if (ref >= 0) {
        index = ref >>> 1;
        dir = ref & 1;
      } else {
        // init_conntrack
        const reply = this.tuple1;
        if (!invertTuple(tuple, reply)) {
          table.stats.invalid++;
          return 'accept';
        }
        index = table.alloc(tuple, reply, now);
        if (index < 0) {
          // "nf_conntrack: table full, dropping packet"
          table.stats.drop++;
          return 'CONNTRACK_TABLE_FULL';
        }
        dir = DIR_ORIGINAL;
      }
      const status = table.status(index);
      let ctinfo: number;
      if (dir === DIR_REPLY) ctinfo = IP_CT_ESTABLISHED_REPLY;
      else if ((status & IPS_SEEN_REPLY) !== 0) ctinfo = IP_CT_ESTABLISHED;
      else if ((status & IPS_EXPECTED) !== 0) ctinfo = IP_CT_RELATED;
      else ctinfo = IP_CT_NEW;

      const verdict = this.handlePacket(protocol, index, dir, buf, nhoff, dataoff, end, verifyChecksum, now);
      if (verdict !== TRACK_ACCEPT) {
        if ((table.status(index) & IPS_CONFIRMED) === 0) table.release(index);
        if (verdict === TRACK_REPEAT) continue;
        table.stats.invalid++;
        return 'accept';
      }
      pkt.ctIndex = index;
      pkt.ctReply = dir === DIR_REPLY;
      pkt.ctInfo = ctinfo;
      if (ctinfo === IP_CT_ESTABLISHED_REPLY && (table.status(index) & IPS_SEEN_REPLY) === 0) {
        table.setStatus(index, IPS_SEEN_REPLY);
        table.cacheEvent(index, IPCT_REPLY);
      }
      return 'accept';
    }
  }

  /** nf_conntrack_handle_packet: the protocol's tracker. */
  private handlePacket(
    protocol: number,
    index: number,
    dir: number,
    buf: Uint8Array,
    nhoff: number,
    dataoff: number,
    end: number,
    verifyChecksum: boolean,
    now: number,
  ): number {
    const table = this.table;
    switch (protocol) {
      case IPPROTO_TCP:
        return tcpPacket(table, index, dir, buf, nhoff, dataoff, end, verifyChecksum, this.settings.tcp, now);
      case IPPROTO_UDP:
        return udpPacket(table, index, buf, nhoff, dataoff, end, verifyChecksum, this.settings.udp, now);
      case IPPROTO_ICMP:
        return icmpPacket(table, index, this.settings.icmpTimeout, now);
      default:
        return genericPacket(table, index, this.settings.genericTimeout, now);
    }
  }

  /**
   * nf_conntrack_confirm for the packet: a new entry is inserted under both tuples and reported
   * NEW; a clash with an entry already in the table is resolved as the kernel does (UDP only:
   * the packet adopts the existing entry when that one has no NAT or the same tuples, or the new
   * entry is kept under its reply tuple alone for 1 s) or fails with insert_failed, and the
   * caller drops the packet. Events cached for the entry are delivered here.
   */
  confirm(pkt: Packet, now: number): ConfirmVerdict {
    const index = pkt.ctIndex;
    if (index < 0) return 'accept';
    const table = this.table;
    const status = table.status(index);
    if ((status & IPS_CONFIRMED) !== 0) {
      this.deliverEvents(index);
      return 'accept';
    }
    // A reply-direction packet attached to an unconfirmed entry (REJECT) confirms nothing.
    if (pkt.ctReply) return 'accept';
    if ((status & IPS_DYING) !== 0) {
      table.stats.insert_failed++;
      resetConntrack(pkt);
      return 'CONNTRACK_INSERT_FAILED';
    }
    // Another entry with either tuple? NAT may have taken it without knowing: we lost the race.
    const orig = table.tuple(index, DIR_ORIGINAL, this.tuple0);
    let clash = table.lookup(orig, now);
    if (clash < 0) clash = table.lookup(table.tuple(index, DIR_REPLY, this.tuple1), now);
    if (clash >= 0) return this.resolveClash(pkt, index, clash >>> 1, now);

    // The timer runs from confirmation, not from allocation.
    table.setExpiry(index, table.timeout(index) + now);
    table.link(index, 3);
    if (this.cpus > 1) this.rememberConfirm(index);
    table.cacheEvent(index, (status & IPS_EXPECTED) !== 0 ? IPCT_RELATED : IPCT_NEW);
    this.deliverEvents(index);
    this.scheduleGc(table.timeout(index), now);
    return 'accept';
  }

  /**
   * The frames that ran alongside the current one (see `cpus`) will not see `index`: remembered until the frames
   * move past them. Not on the packet path unless cpus > 1.
   */
  private rememberConfirm(index: number): void {
    const softirq = this.softirq;
    if (softirq === null) return;
    const frame = softirq.frame();
    if (frame < 0) return;
    const until = frame + Math.min(softirq.queuedBehind(), this.cpus - 1);
    if (until === frame) return;
    this.pruneRaces(frame);
    if (this.raceCount === RACE_WINDOW_ENTRIES) return;
    const k = this.raceCount++;
    this.raceEntry[k] = index;
    this.raceFrom[k] = frame;
    this.raceUntil[k] = until;
  }

  /** Whether the current frame ran on another CPU alongside the frame that confirmed `index`. */
  private confirmedAlongside(index: number): boolean {
    const frame = this.softirq?.frame() ?? -1;
    if (frame < 0) return false;
    this.pruneRaces(frame);
    for (let k = 0; k < this.raceCount; k++)
      if (this.raceEntry[k] === index && this.raceFrom[k]! < frame && frame <= this.raceUntil[k]!)
        return true;
    return false;
  }

  /** Forgets the windows that ended before `frame`. */
  private pruneRaces(frame: number): void {
    let kept = 0;
    for (let k = 0; k < this.raceCount; k++) {
      if (this.raceUntil[k]! < frame) continue;
      this.raceEntry[kept] = this.raceEntry[k]!;
      this.raceFrom[kept] = this.raceFrom[k]!;
      this.raceUntil[kept] = this.raceUntil[k]!;
      kept++;
    }
    this.raceCount = kept;
  }

  /** nf_ct_resolve_clash, __nf_ct_resolve_clash and nf_ct_resolve_clash_harder, as `clash` says. */
  private resolveClash(pkt: Packet, loser: number, winner: number, now: number): ConfirmVerdict {
    const table = this.table;
    if (allowClash(table.protocol(loser)) && this.clash !== 'reply-only') {
      // Up to 5.6: the packet adopts the winner, or is dropped; insert_failed counts either way.
      table.stats.insert_failed++;
      if (this.adoptWinner(pkt, loser, winner)) return 'accept';
      table.stats.drop++;
      table.release(loser);
      resetConntrack(pkt);
      return 'CONNTRACK_INSERT_FAILED';
    }
    if (allowClash(table.protocol(loser))) {
      if (this.adoptWinner(pkt, loser, winner)) return 'accept';
      // The reply direction must never clash, unless both tuples are identical.
      const replyRef = table.lookup(table.tuple(loser, DIR_REPLY, this.tuple1), now);
      if (replyRef >= 0) {
        if (this.adoptWinner(pkt, loser, replyRef >>> 1)) return 'accept';
      } else {
        // Keep the new entry under its reply tuple only, for one second: ORIGINAL packets keep
        // matching the winner, replies to this packet still find their way back.
        table.setExpiry(loser, now + CLASH_TIMEOUT);
        table.setStatus(loser, IPS_FIXED_TIMEOUT | IPS_NAT_CLASH);
        table.link(loser, 2);
        table.stats.clash_resolve++;
        this.scheduleGc(table.timeout(loser), now);
        return 'accept';
      }
    }
    table.stats.drop++;
    table.stats.insert_failed++;
    table.release(loser);
    resetConntrack(pkt);
    return 'CONNTRACK_INSERT_FAILED';
  }

  /** __nf_ct_resolve_clash: the packet may use the entry in the table instead of its own. */
  private adoptWinner(pkt: Packet, loser: number, winner: number): boolean {
    const table = this.table;
    if ((table.status(winner) & IPS_DYING) !== 0) return false;
    if ((table.status(winner) & IPS_NAT_DONE_MASK) !== 0) {
      // Before 5.0 an entry with NAT was never shared; since, only one with the same tuples (nf_ct_match).
      if (this.clash === 'untranslated' || !table.sameTuples(winner, loser)) return false;
    }
    table.release(loser);
    pkt.ctIndex = winner;
    if (this.clash === 'reply-only') table.stats.clash_resolve++;
    this.deliverEvents(winner);
    return true;
  }

  /**
   * The packet died before confirm (dropped by a rule, no route...): its unconfirmed entry is
   * freed, as the kernel frees it with the skb, and the packet forgets its conntrack. Entries
   * carry no per-packet reference count: when copies of one packet share an unconfirmed entry
   * (a bridge flood), abandon only the last copy, or confirm one of them first.
   */
  abandon(pkt: Packet): void {
    const index = pkt.ctIndex;
    if (index >= 0 && (this.table.status(index) & IPS_CONFIRMED) === 0) this.table.release(index);
    resetConntrack(pkt);
  }

  // ---- NAT ------------------------------------------------------------------------------

  /** nf_conntrack_alter_reply: NAT sets the reply tuple of an unconfirmed entry. */
  setReplyTuple(index: number, tuple: Tuple): void {
    this.table.setReplyTuple(index, tuple);
  }

  /** nf_conntrack_tuple_taken: whether another live connection holds `tuple`; one probe. */
  isTupleTaken(tuple: Tuple, ignored: number, now: number): boolean {
    return this.table.isTupleTaken(tuple, ignored, now);
  }

  /**
   * nf_nat_used_tuple: whether the connection of `ignored` can use `tuple` as its original
   * direction after NAT, i.e. whether the reply tuple that implies is free.
   */
  isNatTupleUsed(tuple: Tuple, ignored: number, now: number): boolean {
    const reply = this.natScratch;
    if (!invertTuple(tuple, reply)) return false;
    return this.table.isTupleTaken(reply, ignored, now);
  }

  /** Sets status bits (NAT: IPS_SRC_NAT, IPS_DST_NAT, IPS_SRC_NAT_DONE, IPS_DST_NAT_DONE). */
  setStatus(index: number, bits: number): void {
    this.table.setStatus(index, bits);
  }

  /**
   * The flowtable's hold on an offloaded entry (flowtable.ts): IPS_OFFLOAD, and nf_ct_offload_timeout's deadline a
   * day ahead while the flow lives; at teardown flow_offload_fixup_ct brings it back to `timeoutNs` from now.
   */
  setOffloaded(index: number, offloaded: boolean, now: number, timeoutNs: number): void {
    const table = this.table;
    if (offloaded) {
      table.setStatus(index, IPS_OFFLOAD);
      if (table.timeout(index) - now < OFFLOAD_TIMEOUT_NS / 2)
        table.setExpiry(index, now + OFFLOAD_TIMEOUT_NS);
      return;
    }
    table.clearStatus(index, IPS_OFFLOAD);
    if (table.timeout(index) - now > timeoutNs) table.setExpiry(index, now + timeoutNs);
  }

  // ---- accessors (conntrack -L, matches, NAT) ------------------------------------------

  /** Fills `out` (a fresh tuple by default) with the tuple of `direction` (DIR_ORIGINAL or DIR_REPLY). */
  tuple(index: number, direction: number, out: Tuple = createTuple()): Tuple {
    return this.table.tuple(index, direction, out);
  }

  protocol(index: number): number {
    return this.table.protocol(index);
  }

  status(index: number): number {
    return this.table.status(index);
  }

  hasStatus(index: number, bits: number): boolean {
    return (this.table.status(index) & bits) === bits;
  }

  /** Virtual ns until the entry expires (0 once expired); the pending timeout for an unconfirmed entry. */
  timeoutRemaining(index: number, now: number): number {
    const table = this.table;
    if ((table.status(index) & IPS_CONFIRMED) === 0) return table.timeout(index);
    return Math.max(0, table.timeout(index) - now);
  }

  /**
   * Whole seconds until expiry as `conntrack -L` prints them: nf_ct_expires() / HZ, counted in
   * jiffies (HZ 250), so a timeout set earlier in the same jiffy still shows in full (a RST
   * 100 µs after its SYN reports `120`, as on Linux).
   */
  timeoutSeconds(index: number, now: number): number {
    const table = this.table;
    if ((table.status(index) & IPS_CONFIRMED) === 0) return Math.floor(table.timeout(index) / NS_PER_SEC);
    const jiffies = Math.floor(table.timeout(index) / JIFFY_NS) - Math.floor(now / JIFFY_NS);
    return Math.max(0, Math.floor(jiffies / HZ));
  }

  mark(index: number): number {
    return this.table.mark(index);
  }

  /** Sets the connection mark (CONNMARK, `ct mark set`); reports an UPDATE when it changes. */
  setMark(index: number, mark: number): void {
    const table = this.table;
    if (table.mark(index) === mark >>> 0) return;
    table.setMark(index, mark);
    table.cacheEvent(index, IPCT_MARK);
  }

  /** TCP_CONNTRACK_* of a TCP entry (0, NONE, for other protocols). */
  tcpState(index: number): number {
    return this.table.protocol(index) === IPPROTO_TCP ? tcpState(this.table, index) : 0;
  }

  tcpStateName(index: number): TcpStateName {
    return TCP_STATE_NAMES[this.tcpState(index)] ?? 'NONE';
  }

  /** The 32-bit id `conntrack -L -o id` prints (deterministic, unique while entries live). */
  id(index: number): number {
    return this.table.id(index);
  }

  /** References held: 1 for an entry in the table (what `use=` shows at rest). */
  use(index: number): number {
    return this.table.use(index);
  }

  /** True for an entry conntrack -L lists (confirmed, live, not a hidden clash entry). */
  isListed(index: number, now: number): boolean {
    return this.table.isListed(index, now);
  }

  /** The listed entries, in entry-number order (Linux lists in hash order, which is random per boot). */
  entries(now: number): number[] {
    const out: number[] = [];
    const table = this.table;
    for (let index = 0; index < table.size; index++) if (table.isListed(index, now)) out.push(index);
    return out;
  }

  /** The entry holding `tuple` in either direction, as `index << 1 | direction`, or -1 (conntrack -G). */
  find(tuple: Tuple, now: number): number {
    return this.table.lookup(tuple, now);
  }

  /** Deletes a confirmed entry (conntrack -D); false when it was not live. */
  delete(index: number, now: number): boolean {
    if ((this.table.status(index) & IPS_CONFIRMED) === 0) return false;
    return this.table.kill(index, now);
  }

  /** Deletes every entry (conntrack -F); returns how many. */
  flush(now: number): number {
    return this.table.flush(now);
  }

  // ---- events ---------------------------------------------------------------------------

  /**
   * Listens for NEW, UPDATE and DESTROY (what `conntrack -E` shows); null stops. With no listener
   * nothing is cached, so the packet path pays one branch.
   */
  onEvent(listener: ConntrackEventListener | null): void {
    this.listener = listener;
    const table = this.table;
    table.eventsEnabled = listener !== null;
    table.destroyListener =
      listener === null
        ? null
        : (index) => {
            if ((table.status(index) & IPS_NAT_CLASH) === 0) listener('DESTROY', index, IPCT_DESTROY);
          };
  }

  /** nf_ct_deliver_cached_events. */
  private deliverEvents(index: number): void {
    const listener = this.listener;
    if (listener === null) return;
    const events = this.table.takeEvents(index);
    if (events === 0 || (this.table.status(index) & (IPS_DYING | IPS_NAT_CLASH)) !== 0) return;
    listener((events & (IPCT_NEW | IPCT_RELATED)) !== 0 ? 'NEW' : 'UPDATE', index, events);
  }

  // ---- expiry ---------------------------------------------------------------------------

  /**
   * Runs the sweep (gc_worker) on this scheduler: while entries exist, a step examines up to
   * `batch` entries, killing the expired ones (and reporting DESTROY); after a full pass the
   * next one is due when the soonest deadline seen passes, at least 1 s and at most 60 s later.
   * With no entries no timer is pending, so `runUntilIdle` ends; with entries it runs until the
   * last one expires (5 days for an established TCP connection). A new entry expiring before the
   * next step brings that step forward; a deadline shortened by a packet (a RST: 10 s) is reaped
   * by the next pass, up to 60 s later, as gc_worker's pacing also allows. Lookups and listings
   * treat expired entries as gone whether or not a scheduler is attached.
   */
  attachScheduler(scheduler: Scheduler, options: GcOptions = {}): void {
    if (this.scheduler !== null && this.gcTimer !== -1) this.scheduler.cancel(this.gcTimer);
    this.scheduler = scheduler;
    this.gcBatch = Math.max(1, options.batch ?? DEFAULT_GC_BATCH);
    this.gcTimer = -1;
    this.gcAt = Number.POSITIVE_INFINITY;
    if (this.table.confirmed > 0) this.scheduleAt(scheduler.now + GC_INTERVAL_MIN);
  }

  /** One sweep step by hand (without a scheduler): examines `budget` entries at `now`. */
  sweep(now: number, budget = Number.MAX_SAFE_INTEGER): void {
    this.table.gcStep(now, budget);
  }

  private scheduleGc(deadline: number, now: number): void {
    if (this.scheduler === null) return;
    const at = Math.max(Math.ceil(deadline), now + GC_INTERVAL_MIN);
    if (at < this.gcAt) this.scheduleAt(at);
  }

  private scheduleAt(time: number): void {
    const scheduler = this.scheduler!;
    if (this.gcTimer !== -1) scheduler.cancel(this.gcTimer);
    const at = Math.max(time, scheduler.now);
    this.gcAt = at;
    this.gcTimer = scheduler.scheduleAt(at, this.runGc);
  }

  private gcRun(now: number): void {
    this.gcTimer = -1;
    this.gcAt = Number.POSITIVE_INFINITY;
    const result = this.table.gcStep(now, this.gcBatch);
    if (result.minRemaining < this.passMin) this.passMin = result.minRemaining;
    if (this.table.confirmed === 0) {
      this.passMin = Number.POSITIVE_INFINITY;
      return;
    }
    if (!result.passDone) {
      // Like gc_worker past its time budget: continue at once.
      this.scheduleAt(now);
      return;
    }
    const wait = Math.min(Math.max(Math.ceil(this.passMin), GC_INTERVAL_MIN), GC_INTERVAL_MAX);
    this.passMin = Number.POSITIVE_INFINITY;
    this.scheduleAt(now + wait);
  }
}
