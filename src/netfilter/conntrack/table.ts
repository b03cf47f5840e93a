// The connection table: per-entry state in typed arrays and one open-addressing index over both directions' tuples, with lazy expiry, an incremental sweep, nf_conntrack_max and early drop; no zones, no expectations, no per-netns sharing.
//
// Chosen by bench/conntrack-table.ts (see its header for the figures). Layout:
//
// Index: one Int32Array of 4-word (16-byte) slots, linear probing, power-of-two size, grown
// when more than maxLoad (0.5) of the slots are used, deletion by backward shift (no tombstones).
//   slot[0] src   slot[1] dst   slot[2] srcPort << 16 | dstPort
//   slot[3] (entry + 1) << 9 | direction << 8 | protocol        (0: empty)
// A probe compares the key words of one slot in one cache line; a confirmed entry owns two
// slots (ORIGINAL and REPLY), as each nf_conn sits in the kernel's hash twice (tuplehash[2]).
// 23 bits of entry number cap the table at MAX_ENTRIES (8,388,606) entries.
//
// Entries (struct of arrays, indexed by entry number, grown by doubling):
//   tuples    6 x i32: original src, dst, ports; reply src, dst, ports (kept also for
//             unconfirmed entries, which are not in the index)
//   protocol  u8;  status u16 (IPS_* bits, the kernel's bit numbers);  mark u32;  id u32;
//   use u8;  ecache u8 (events cached for delivery at confirm, nf_conntrack_ecache);
//   timeout   f64: absolute deadline in virtual ns once CONFIRMED; before that, the relative
//             timeout the trackers asked for (the kernel keeps ct->timeout relative until
//             __nf_conntrack_confirm adds nfct_time_stamp);
//   proto     14 x i32 (56 bytes) per entry: the trackers' private state, like the kernel's
//             union nf_conntrack_proto; views as u8/u16/f64 over the same memory.
//
// Statistics are one set for the whole table (the kernel keeps one per cpu and `conntrack -S`
// prints a line per cpu; packetlab is single-threaded and prints them as cpu=0).
//
// Entries leave in two steps. kill() unlinks the entry at once (lookups stop finding it, the
// count drops, DESTROY is reported) but its number is recycled only after the virtual clock has
// moved on: a packet of the current instant may still carry it in ctIndex (the kernel keeps the
// nf_conn alive while an skb holds a reference).

import type { Tuple } from './tuple.ts';

// enum ip_conntrack_status (include/uapi/linux/netfilter/nf_conntrack_common.h)
export const IPS_EXPECTED = 1 << 0;
export const IPS_SEEN_REPLY = 1 << 1;
export const IPS_ASSURED = 1 << 2;
export const IPS_CONFIRMED = 1 << 3;
export const IPS_SRC_NAT = 1 << 4;
export const IPS_DST_NAT = 1 << 5;
export const IPS_SEQ_ADJUST = 1 << 6;
export const IPS_SRC_NAT_DONE = 1 << 7;
export const IPS_DST_NAT_DONE = 1 << 8;
export const IPS_DYING = 1 << 9;
export const IPS_FIXED_TIMEOUT = 1 << 10;
export const IPS_TEMPLATE = 1 << 11;
export const IPS_UNTRACKED = 1 << 12;
/** In-kernel reuse of the UNTRACKED bit for an entry that lost an insert race (nf_ct_resolve_clash_harder). */
export const IPS_NAT_CLASH = IPS_UNTRACKED;
export const IPS_HELPER = 1 << 13;
export const IPS_OFFLOAD = 1 << 14;
export const IPS_HW_OFFLOAD = 1 << 15;
export const IPS_NAT_MASK = IPS_SRC_NAT | IPS_DST_NAT;
export const IPS_NAT_DONE_MASK = IPS_SRC_NAT_DONE | IPS_DST_NAT_DONE;

export const DIR_ORIGINAL = 0;
export const DIR_REPLY = 1;

// enum ip_conntrack_events, as bits of the per-entry event cache
export const IPCT_NEW = 1 << 0;
export const IPCT_RELATED = 1 << 1;
export const IPCT_DESTROY = 1 << 2;
export const IPCT_REPLY = 1 << 3;
export const IPCT_ASSURED = 1 << 4;
export const IPCT_PROTOINFO = 1 << 5;
export const IPCT_HELPER = 1 << 6;
export const IPCT_MARK = 1 << 7;

// What a tracker (tcp.ts, udp.ts, icmp.ts, generic.ts) tells nf_conntrack_in.
/** -NF_ACCEPT: the packet passes without a conntrack (ctstate INVALID). */
export const TRACK_INVALID = 0;
/** NF_ACCEPT. */
export const TRACK_ACCEPT = 1;
/** -NF_REPEAT: the entry was killed to reopen a closed connection; look the packet up again. */
export const TRACK_REPEAT = 2;

/** Linux's nf_conntrack_max on the machines we compare with (262144; it follows RAM). */
export const DEFAULT_CONNTRACK_MAX = 262_144;
/** 23 bits of entry number in a slot's fourth word, minus the empty marker. */
export const MAX_ENTRIES = (1 << 23) - 2;
/** 32-bit words of tracker state per entry (56 bytes, like the kernel's union nf_conntrack_proto; a multiple of 8 for the f64 view). */
export const PROTO_WORDS = 14;

const SLOT_WORDS = 4;
const ENTRY_SHIFT = 9;
const DIR_SHIFT = 8;
const PROTO_MASK = 0xff;
const TUPLE_WORDS = 6;
/** Index load that triggers growth; chosen by bench/conntrack-table.ts. */
const DEFAULT_MAX_LOAD = 0.5;
const MIN_INDEX_SLOTS = 64;
const DEFAULT_INITIAL_ENTRIES = 1024;
/**
 * Slots early_drop examines from the new tuple's home slot. The kernel scans
 * NF_CT_EVICTION_RANGE (8) hash buckets; at nf_conntrack_max with buckets == max a bucket
 * holds about two tuplehashes, so 8 buckets see about 16 of them.
 */
const EARLY_DROP_SLOTS = 16;

/** The counters `conntrack -S` prints, named as the kernel's struct ip_conntrack_stat. */
export interface ConntrackStats {
  found: number;
  invalid: number;
  insert: number;
  insert_failed: number;
  drop: number;
  early_drop: number;
  error: number;
  search_restart: number;
  clash_resolve: number;
  chaintoolong: number;
}

export function createStats(): ConntrackStats {
  return {
    found: 0,
    invalid: 0,
    insert: 0,
    insert_failed: 0,
    drop: 0,
    early_drop: 0,
    error: 0,
    search_restart: 0,
    clash_resolve: 0,
    chaintoolong: 0,
  };
}

export interface ConnTableOptions {
  /** nf_conntrack_max: live entries (confirmed or not) before early drop; default 262144, at most MAX_ENTRIES. */
  readonly max?: number;
  /** Entries allocated up front; the arrays double as needed. Default 1024. */
  readonly initialEntries?: number;
  /** Seed of the tuple hash (the kernel draws nf_conntrack_hash_rnd at boot); default fixed. */
  readonly hashSeed?: number;
  /** Fraction of index slots in use that makes the index double (0.1-0.9); default 0.5, see the bench. */
  readonly maxLoad?: number;
}

/** Called with an entry about to be unlinked, while its fields are still readable. */
export type DestroyListener = (index: number) => void;

/** Result of gcStep. */
export interface SweepResult {
  /** True when the cursor went round the whole table during this step. */
  readonly passDone: boolean;
  /** Smallest remaining timeout (ns) among the live entries seen; Infinity if none. */
  readonly minRemaining: number;
}

// Hash rounds of MurmurHash3 (x86_32); the kernel uses siphash, any good mix will do.
const C1 = 0xcc9e2d51 | 0;
const C2 = 0x1b873593 | 0;

function mixRound(h: number, k: number): number {
  let x = Math.imul(k, C1);
  x = (x << 15) | (x >>> 17);
  x = Math.imul(x, C2);
  let y = h ^ x;
  y = (y << 13) | (y >>> 19);
  return (Math.imul(y, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3's finalizer: a bijection on 32-bit integers. */
export function fmix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

function hashKey(seed: number, src: number, dst: number, ports: number, protocol: number): number {
  let h = seed ^ protocol;
  h = mixRound(h, src);
  h = mixRound(h, dst);
  h = mixRound(h, ports);
  return fmix32(h ^ 12);
}

/** The ports word of a tuple as the index stores it. */
function portsOf(t: Tuple): number {
  return (t.srcPort << 16) | t.dstPort | 0;
}

export class ConnTable {
  /** nf_conntrack_max (0: no limit); the sysctl may change it at any time, within 0..MAX_ENTRIES. */
  max: number;
  readonly stats: ConntrackStats = createStats();
  /** Live entries, confirmed or not (the kernel's cnet->count). */
  count = 0;
  /** Confirmed entries in the index. */
  confirmed = 0;

  // Index.
  private slots: Int32Array;
  private slotMask: number;
  private slotsUsed = 0;
  private growAt: number;
  private readonly seed: number;
  private readonly maxLoad: number;

  // Entries.
  private capacity: number;
  private highWater = 0;
  private freeList: Int32Array;
  private freeCount = 0;
  private dying: number[] = [];
  private dyingStamp = 0;
  private tuples: Int32Array;
  private protocols: Uint8Array;
  private statuses: Uint16Array;
  private deadlines: Float64Array;
  private marks: Uint32Array;
  private ids: Uint32Array;
  private uses: Uint8Array;
  private ecache: Uint8Array;
  /** Tracker state (see PROTO_WORDS); replaced on growth, so read it from the table each time. */
  proto32: Int32Array;
  proto16: Uint16Array;
  proto8: Uint8Array;
  protoF64: Float64Array;

  private idCounter = 0;
  private sweepCursor = 0;
  /** Set by a failed early drop: the sweep then also evicts as gc_worker does near the limit. */
  gcEarlyDrop = false;
  /** Non-null when someone listens for events; caching then costs one byte write. */
  destroyListener: DestroyListener | null = null;
  eventsEnabled = false;
  /** tcp_can_early_drop, installed by the TCP tracker: entries the sweep may evict near the limit even when ASSURED. */
  canEarlyDrop: ((table: ConnTable, index: number) => boolean) | null = null;

  constructor(options: ConnTableOptions = {}) {
    const max = options.max ?? DEFAULT_CONNTRACK_MAX;
    if (!Number.isInteger(max) || max < 0 || max > MAX_ENTRIES) {
      throw new RangeError(`conntrack max must be an integer from 0 to ${MAX_ENTRIES}, got ${max}`);
    }
    this.max = max;
    this.seed = (options.hashSeed ?? 0x9e3779b9) | 0;
    this.maxLoad = Math.min(0.9, Math.max(0.1, options.maxLoad ?? DEFAULT_MAX_LOAD));
    const initial = Math.max(16, Math.min(options.initialEntries ?? DEFAULT_INITIAL_ENTRIES, MAX_ENTRIES));
    this.capacity = initial;
    this.freeList = new Int32Array(initial);
    this.tuples = new Int32Array(initial * TUPLE_WORDS);
    this.protocols = new Uint8Array(initial);
    this.statuses = new Uint16Array(initial);
    this.deadlines = new Float64Array(initial);
    this.marks = new Uint32Array(initial);
    this.ids = new Uint32Array(initial);
    this.uses = new Uint8Array(initial);
    this.ecache = new Uint8Array(initial);
    const buffer = new ArrayBuffer(initial * PROTO_WORDS * 4);
    this.proto32 = new Int32Array(buffer);
    this.proto16 = new Uint16Array(buffer);
    this.proto8 = new Uint8Array(buffer);
    this.protoF64 = new Float64Array(buffer);
    let slotCount = MIN_INDEX_SLOTS;
    while (slotCount * this.maxLoad < initial * 2) slotCount *= 2;
    this.slots = new Int32Array(slotCount * SLOT_WORDS);
    this.slotMask = slotCount - 1;
    this.growAt = Math.floor(slotCount * this.maxLoad);
  }

  // ---- lookups --------------------------------------------------------------------------

  /**
   * The entry and direction holding `t`, as `index << 1 | direction`, or -1. A match whose
   * deadline has passed is killed on the spot and not returned (____nf_conntrack_find with
   * nf_ct_gc_expired). The index holds confirmed entries only, as nf_ct_key_equal requires.
   */
  lookup(t: Tuple, now: number): number {
    const ref = this.probe(t.src | 0, t.dst | 0, portsOf(t), t.protocol);
    if (ref < 0) return -1;
    const index = ref >>> 1;
    if (this.deadlines[index]! <= now) {
      this.kill(index, now);
      return -1;
    }
    return ref;
  }

  /**
   * True when another live entry holds `t` in either direction (nf_conntrack_tuple_taken):
   * `ignored` is the entry NAT is choosing a tuple for; an entry with the same original tuple as
   * `ignored` does not count (the kernel lets nf_ct_resolve_clash sort that out). One probe.
   */
  isTupleTaken(t: Tuple, ignored: number, now: number): boolean {
    const ref = this.probe(t.src | 0, t.dst | 0, portsOf(t), t.protocol);
    if (ref < 0) return false;
    const index = ref >>> 1;
    if (index === ignored) return false;
    if (this.deadlines[index]! <= now) {
      this.kill(index, now);
      return false;
    }
    if (ignored >= 0 && this.sameOriginal(index, ignored)) return false;
    this.stats.found++;
    return true;
  }

  private sameOriginal(a: number, b: number): boolean {
    const tuples = this.tuples;
    const ta = a * TUPLE_WORDS;
    const tb = b * TUPLE_WORDS;
    return (
      this.protocols[a] === this.protocols[b] &&
      tuples[ta] === tuples[tb] &&
      tuples[ta + 1] === tuples[tb + 1] &&
      tuples[ta + 2] === tuples[tb + 2]
    );
  }

  /** The raw probe: `index << 1 | direction` of the slot whose key equals the words, or -1. */
  private probe(src: number, dst: number, ports: number, protocol: number): number {
    const slots = this.slots;
    const mask = this.slotMask;
    let slot = hashKey(this.seed, src, dst, ports, protocol) & mask;
    for (;;) {
      const at = slot << 2;
      const meta = slots[at + 3]!;
      if (meta === 0) return -1;
      if (
        slots[at + 2] === ports &&
        slots[at] === src &&
        slots[at + 1] === dst &&
        (meta & PROTO_MASK) === protocol
      ) {
        return ((((meta >>> ENTRY_SHIFT) - 1) << 1) | ((meta >>> DIR_SHIFT) & 1)) >>> 0;
      }
      slot = (slot + 1) & mask;
    }
  }

  // ---- entry life cycle -----------------------------------------------------------------

  /**
   * A new unconfirmed entry for `orig` and `reply`, or -1 when the table is full and early drop
   * found nothing to evict. Mirrors __nf_conntrack_alloc: the count goes up first, then over
   * nf_conntrack_max early_drop runs from the new tuple's hash bucket; on failure the sweep is
   * told to evict (conntrack_gc_work.early_drop) and the caller drops the packet.
   */
  alloc(orig: Tuple, reply: Tuple, now: number): number {
    this.count++;
    if (this.max !== 0 && this.count > this.max) {
      if (!this.earlyDrop(orig, now)) {
        this.gcEarlyDrop = true;
        this.count--;
        return -1;
      }
    }
    const index = this.takeEntry(now);
    if (index < 0) {
      // MAX_ENTRIES reached with nf_conntrack_max = 0 (unlimited): full all the same.
      this.gcEarlyDrop = true;
      this.count--;
      return -1;
    }
    const t = index * TUPLE_WORDS;
    const tuples = this.tuples;
    tuples[t] = orig.src | 0;
    tuples[t + 1] = orig.dst | 0;
    tuples[t + 2] = portsOf(orig);
    tuples[t + 3] = reply.src | 0;
    tuples[t + 4] = reply.dst | 0;
    tuples[t + 5] = portsOf(reply);
    this.protocols[index] = orig.protocol;
    this.statuses[index] = 0;
    this.deadlines[index] = 0;
    this.marks[index] = 0;
    this.ids[index] = fmix32(this.seed ^ ++this.idCounter) >>> 0;
    this.uses[index] = 1;
    this.ecache[index] = 0;
    const proto32 = this.proto32;
    // A loop: TypedArray.prototype.fill over a range costs ~400 ns in V8.
    for (let w = index * PROTO_WORDS, end = w + PROTO_WORDS; w < end; w++) proto32[w] = 0;
    return index;
  }

  /**
   * Frees an unconfirmed entry whose packet was dropped or found invalid (the last nf_ct_put).
   * An entry already killed is left to the dying queue.
   */
  release(index: number): void {
    const status = this.statuses[index]!;
    if ((status & IPS_CONFIRMED) !== 0) throw new Error(`conntrack: release of confirmed entry ${index}`);
    if ((status & IPS_DYING) !== 0) return;
    this.count--;
    this.statuses[index] = IPS_DYING;
    this.uses[index] = 0;
    this.freeList[this.freeCount++] = index;
  }

  /**
   * Puts an entry into the index under the directions in `dirMask` (bit 0 ORIGINAL, bit 1
   * REPLY) and marks it CONFIRMED. The caller has checked for clashes and turned the relative
   * timeout into a deadline (__nf_conntrack_confirm).
   */
  link(index: number, dirMask: number): void {
    if (this.slotsUsed + 2 > this.growAt) this.growIndex();
    const protocol = this.protocols[index]!;
    const t = index * TUPLE_WORDS;
    const tuples = this.tuples;
    if ((dirMask & 1) !== 0) {
      this.insertSlot(tuples[t]!, tuples[t + 1]!, tuples[t + 2]!, protocol, index, DIR_ORIGINAL);
    }
    if ((dirMask & 2) !== 0) {
      this.insertSlot(tuples[t + 3]!, tuples[t + 4]!, tuples[t + 5]!, protocol, index, DIR_REPLY);
    }
    this.statuses[index] = this.statuses[index]! | IPS_CONFIRMED;
    this.confirmed++;
  }

  /**
   * Removes an entry (nf_ct_delete): marks it DYING, reports DESTROY, unlinks it from the index
   * and releases its count; the number is recycled once the clock moves. False if already dying.
   */
  kill(index: number, now: number): boolean {
    const status = this.statuses[index]!;
    if ((status & IPS_DYING) !== 0) return false;
    if (this.destroyListener !== null && (status & IPS_CONFIRMED) !== 0) this.destroyListener(index);
    this.statuses[index] = status | IPS_DYING;
    this.count--;
    if ((status & IPS_CONFIRMED) !== 0) {
      this.unlinkDirection(index, DIR_ORIGINAL);
      this.unlinkDirection(index, DIR_REPLY);
      this.confirmed--;
    }
    this.reclaim(now);
    this.dyingStamp = now;
    this.dying.push(index);
    return true;
  }

  /** Returns the entries killed before `now` to the free list. */
  private reclaim(now: number): void {
    if (this.dying.length === 0 || this.dyingStamp === now) return;
    for (const index of this.dying) {
      this.uses[index] = 0;
      this.freeList[this.freeCount++] = index;
    }
    this.dying.length = 0;
  }

  /** A free entry number, or -1 when MAX_ENTRIES are in use. */
  private takeEntry(now: number): number {
    this.reclaim(now);
    if (this.freeCount > 0) return this.freeList[--this.freeCount]!;
    if (this.highWater === this.capacity) {
      if (this.capacity >= MAX_ENTRIES) return -1;
      this.growEntries();
    }
    return this.highWater++;
  }

  /**
   * early_drop: from the home slot of `t`, evicts the first confirmed, live, non-ASSURED entry
   * among the next EARLY_DROP_SLOTS slots, reaping expired ones on the way as early_drop_list
   * does (those do not count as a drop). Deviation: the kernel evicts every non-assured entry of
   * the first bucket that has one; we evict one.
   */
  private earlyDrop(t: Tuple, now: number): boolean {
    const slots = this.slots;
    const mask = this.slotMask;
    let slot = hashKey(this.seed, t.src | 0, t.dst | 0, portsOf(t), t.protocol) & mask;
    for (let n = 0; n < EARLY_DROP_SLOTS; n++, slot = (slot + 1) & mask) {
      const meta = slots[(slot << 2) + 3]!;
      if (meta === 0) continue;
      const index = (meta >>> ENTRY_SHIFT) - 1;
      if (this.deadlines[index]! <= now) {
        this.kill(index, now);
        // Backward shift may have moved another slot into this one: look at it again.
        slot = (slot - 1) & mask;
        continue;
      }
      const status = this.statuses[index]!;
      if ((status & (IPS_ASSURED | IPS_DYING)) !== 0 || (status & IPS_CONFIRMED) === 0) continue;
      if (this.kill(index, now)) {
        this.stats.early_drop++;
        return true;
      }
    }
    return false;
  }

  // ---- the sweep (gc_worker) -----------------------------------------------------------

  /**
   * Examines up to `budget` entry numbers from the sweep cursor: kills expired ones and, after
   * a failed early drop while the table is at 95% of max or more, those gc_worker_can_early_drop
   * allows (not ASSURED, or a closing TCP state). Mirrors gc_worker's per-bucket work; the pacing
   * (when to run next) is the caller's.
   */
  gcStep(now: number, budget: number): SweepResult {
    let minRemaining = Number.POSITIVE_INFINITY;
    let passDone = false;
    const max95 = this.gcEarlyDrop ? Math.floor(this.max / 100) * 95 : 0;
    let cursor = this.sweepCursor;
    for (let n = 0; n < budget; n++) {
      if (cursor >= this.highWater) {
        cursor = 0;
        passDone = true;
        break;
      }
      const index = cursor++;
      const status = this.statuses[index]!;
      if ((status & IPS_CONFIRMED) === 0 || (status & IPS_DYING) !== 0) continue;
      const remaining = this.deadlines[index]! - now;
      if (remaining <= 0) {
        this.kill(index, now);
        continue;
      }
      if (remaining < minRemaining) minRemaining = remaining;
      if (max95 !== 0 && this.count >= max95) {
        const canDrop = (status & IPS_ASSURED) === 0 || this.canEarlyDrop?.(this, index) === true;
        if (canDrop) this.kill(index, now);
      }
    }
    if (!passDone && cursor >= this.highWater) {
      cursor = 0;
      passDone = true;
    }
    if (passDone) this.gcEarlyDrop = false;
    this.sweepCursor = cursor;
    return { passDone, minRemaining };
  }

  /** Kills every confirmed entry (conntrack -F). */
  flush(now: number): number {
    let killed = 0;
    for (let index = 0; index < this.highWater; index++) {
      const status = this.statuses[index]!;
      if ((status & IPS_CONFIRMED) !== 0 && (status & IPS_DYING) === 0 && this.kill(index, now)) killed++;
    }
    return killed;
  }

  // ---- per-entry fields -----------------------------------------------------------------

  /** Entry numbers ever handed out (iteration bound: `for (i = 0; i < table.size; i++)`). */
  get size(): number {
    return this.highWater;
  }

  /** True for a confirmed entry that is neither dying, expired, nor a hidden clash entry (what conntrack -L lists). */
  isListed(index: number, now: number): boolean {
    const status = this.statuses[index]!;
    return (
      (status & (IPS_CONFIRMED | IPS_DYING | IPS_NAT_CLASH)) === IPS_CONFIRMED && this.deadlines[index]! > now
    );
  }

  protocol(index: number): number {
    return this.protocols[index]!;
  }

  status(index: number): number {
    return this.statuses[index]!;
  }

  setStatus(index: number, bits: number): void {
    this.statuses[index] = this.statuses[index]! | bits;
  }

  clearStatus(index: number, bits: number): void {
    this.statuses[index] = this.statuses[index]! & ~bits;
  }

  /** Fills `out` with the tuple of `direction` (DIR_ORIGINAL or DIR_REPLY). */
  tuple(index: number, direction: number, out: Tuple): Tuple {
    const t = index * TUPLE_WORDS + (direction === DIR_REPLY ? 3 : 0);
    const tuples = this.tuples;
    out.src = tuples[t]! >>> 0;
    out.dst = tuples[t + 1]! >>> 0;
    out.protocol = this.protocols[index]!;
    const ports = tuples[t + 2]!;
    out.srcPort = ports >>> 16;
    out.dstPort = ports & 0xffff;
    return out;
  }

  /** The ports word of one direction's tuple: srcPort << 16 | dstPort (ICMP: id << 16 | type << 8 | code). */
  ports(index: number, direction: number): number {
    return this.tuples[index * TUPLE_WORDS + (direction === DIR_REPLY ? 5 : 2)]! >>> 0;
  }

  /** Destination address of one direction's tuple, without a Tuple (nf_conntrack_inet_error's check). */
  tupleDst(index: number, direction: number): number {
    return this.tuples[index * TUPLE_WORDS + (direction === DIR_REPLY ? 4 : 1)]! >>> 0;
  }

  /** Replaces the reply tuple of an unconfirmed entry (nf_conntrack_alter_reply). */
  setReplyTuple(index: number, t: Tuple): void {
    if ((this.statuses[index]! & IPS_CONFIRMED) !== 0) {
      throw new Error(`conntrack: reply tuple of confirmed entry ${index} cannot change`);
    }
    const at = index * TUPLE_WORDS + 3;
    this.tuples[at] = t.src | 0;
    this.tuples[at + 1] = t.dst | 0;
    this.tuples[at + 2] = portsOf(t);
  }

  /** True when both directions' tuples of the two entries are equal (nf_ct_match). */
  sameTuples(a: number, b: number): boolean {
    if (this.protocols[a] !== this.protocols[b]) return false;
    const tuples = this.tuples;
    const ta = a * TUPLE_WORDS;
    const tb = b * TUPLE_WORDS;
    for (let k = 0; k < TUPLE_WORDS; k++) if (tuples[ta + k] !== tuples[tb + k]) return false;
    return true;
  }

  /** The deadline in virtual ns (confirmed) or the pending relative timeout (unconfirmed). */
  timeout(index: number): number {
    return this.deadlines[index]!;
  }

  /** Sets the deadline (confirmed) or the relative timeout (unconfirmed) as-is; see refresh. */
  setExpiry(index: number, value: number): void {
    this.deadlines[index] = value;
  }

  /**
   * __nf_ct_refresh_acct: unless the timeout is fixed, the entry now expires `timeoutNs` from
   * `now` (an unconfirmed entry keeps it relative until confirm).
   */
  refresh(index: number, timeoutNs: number, now: number): void {
    const status = this.statuses[index]!;
    if ((status & IPS_FIXED_TIMEOUT) !== 0) return;
    this.deadlines[index] = (status & IPS_CONFIRMED) !== 0 ? now + timeoutNs : timeoutNs;
  }

  mark(index: number): number {
    return this.marks[index]!;
  }

  setMark(index: number, mark: number): void {
    this.marks[index] = mark >>> 0;
  }

  id(index: number): number {
    return this.ids[index]!;
  }

  use(index: number): number {
    return this.uses[index]!;
  }

  /** Adds event bits to the entry's cache (nf_conntrack_event_cache); free when nobody listens. */
  cacheEvent(index: number, bits: number): void {
    if (this.eventsEnabled) this.ecache[index] = this.ecache[index]! | bits;
  }

  /** Takes the cached event bits (nf_ct_deliver_cached_events). */
  takeEvents(index: number): number {
    const bits = this.ecache[index]!;
    this.ecache[index] = 0;
    return bits;
  }

  /** Bytes held by the typed arrays (index and entries). */
  memoryBytes(): number {
    return (
      this.slots.byteLength +
      this.freeList.byteLength +
      this.tuples.byteLength +
      this.protocols.byteLength +
      this.statuses.byteLength +
      this.deadlines.byteLength +
      this.marks.byteLength +
      this.ids.byteLength +
      this.uses.byteLength +
      this.ecache.byteLength +
      this.proto32.byteLength
    );
  }

  /** Index slots in use and allocated (for tests and the bench). */
  indexLoad(): { readonly used: number; readonly slots: number } {
    return { used: this.slotsUsed, slots: this.slotMask + 1 };
  }

  // ---- index internals ------------------------------------------------------------------

  private insertSlot(
    src: number,
    dst: number,
    ports: number,
    protocol: number,
    index: number,
    dir: number,
  ): void {
    const slots = this.slots;
    const mask = this.slotMask;
    let slot = hashKey(this.seed, src, dst, ports, protocol) & mask;
    while (slots[(slot << 2) + 3] !== 0) slot = (slot + 1) & mask;
    const at = slot << 2;
    slots[at] = src;
    slots[at + 1] = dst;
    slots[at + 2] = ports;
    slots[at + 3] = ((index + 1) << ENTRY_SHIFT) | (dir << DIR_SHIFT) | protocol;
    this.slotsUsed++;
  }

  /** Removes the slot of (index, dir) if present, closing the gap by backward shift. */
  private unlinkDirection(index: number, dir: number): void {
    const t = index * TUPLE_WORDS + (dir === DIR_REPLY ? 3 : 0);
    const tuples = this.tuples;
    const src = tuples[t]!;
    const dst = tuples[t + 1]!;
    const ports = tuples[t + 2]!;
    const protocol = this.protocols[index]!;
    const wanted = ((index + 1) << ENTRY_SHIFT) | (dir << DIR_SHIFT) | protocol;
    const slots = this.slots;
    const mask = this.slotMask;
    let slot = hashKey(this.seed, src, dst, ports, protocol) & mask;
    for (;;) {
      const meta = slots[(slot << 2) + 3]!;
      if (meta === 0) return; // not indexed in this direction (a clash entry's ORIGINAL)
      if (meta === wanted) break;
      slot = (slot + 1) & mask;
    }
    this.removeSlot(slot);
  }

  private removeSlot(hole: number): void {
    const slots = this.slots;
    const mask = this.slotMask;
    let gap = hole;
    let next = (gap + 1) & mask;
    for (;;) {
      const at = next << 2;
      const meta = slots[at + 3]!;
      if (meta === 0) break;
      const home = hashKey(this.seed, slots[at]!, slots[at + 1]!, slots[at + 2]!, meta & PROTO_MASK) & mask;
      // The element at `next` may fill the gap unless its home lies cyclically in (gap, next].
      const movable = gap <= next ? home <= gap || home > next : home <= gap && home > next;
      if (movable) {
        const to = gap << 2;
        slots[to] = slots[at]!;
        slots[to + 1] = slots[at + 1]!;
        slots[to + 2] = slots[at + 2]!;
        slots[to + 3] = meta;
        gap = next;
      }
      next = (next + 1) & mask;
    }
    const g = gap << 2;
    slots[g] = 0;
    slots[g + 1] = 0;
    slots[g + 2] = 0;
    slots[g + 3] = 0;
    this.slotsUsed--;
  }

  private growIndex(): void {
    const old = this.slots;
    const count = (this.slotMask + 1) * 2;
    this.slots = new Int32Array(count * SLOT_WORDS);
    this.slotMask = count - 1;
    this.growAt = Math.floor(count * this.maxLoad);
    this.slotsUsed = 0;
    for (let at = 0; at < old.length; at += SLOT_WORDS) {
      const meta = old[at + 3]!;
      if (meta === 0) continue;
      const slots = this.slots;
      const mask = this.slotMask;
      let slot = hashKey(this.seed, old[at]!, old[at + 1]!, old[at + 2]!, meta & PROTO_MASK) & mask;
      while (slots[(slot << 2) + 3] !== 0) slot = (slot + 1) & mask;
      const to = slot << 2;
      slots[to] = old[at]!;
      slots[to + 1] = old[at + 1]!;
      slots[to + 2] = old[at + 2]!;
      slots[to + 3] = meta;
      this.slotsUsed++;
    }
  }

  private growEntries(): void {
    const capacity = Math.min(this.capacity * 2, MAX_ENTRIES);
    this.freeList = grow(this.freeList, new Int32Array(capacity));
    this.tuples = grow(this.tuples, new Int32Array(capacity * TUPLE_WORDS));
    this.protocols = grow(this.protocols, new Uint8Array(capacity));
    this.statuses = grow(this.statuses, new Uint16Array(capacity));
    this.deadlines = grow(this.deadlines, new Float64Array(capacity));
    this.marks = grow(this.marks, new Uint32Array(capacity));
    this.ids = grow(this.ids, new Uint32Array(capacity));
    this.uses = grow(this.uses, new Uint8Array(capacity));
    this.ecache = grow(this.ecache, new Uint8Array(capacity));
    const buffer = new ArrayBuffer(capacity * PROTO_WORDS * 4);
    new Int32Array(buffer).set(this.proto32);
    this.proto32 = new Int32Array(buffer);
    this.proto16 = new Uint16Array(buffer);
    this.proto8 = new Uint8Array(buffer);
    this.protoF64 = new Float64Array(buffer);
    this.capacity = capacity;
  }
}

function grow<T extends Int32Array | Uint8Array | Uint16Array | Uint32Array | Float64Array>(
  from: T,
  to: T,
): T {
  to.set(from);
  return to;
}
