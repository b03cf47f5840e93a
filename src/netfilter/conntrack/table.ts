// The connection table: per-entry state in typed arrays, tracker state in per-protocol pools, and one open-addressing index over both directions' tuples, with lazy expiry, an incremental sweep, nf_conntrack_max and early drop; no zones, no expectations, no per-netns sharing.
//
// Chosen by bench/suites/conntrack.ts (see its header for the history and the figures). Layout:
//
// Index: one Int32Array of one-word slots, linear probing, power-of-two size, grown when more
// than maxLoad (0.5) of the slots are used, deletion by backward shift (no tombstones):
//   slot = (entry + 1) << 9 | direction << 8 | tag        (0: empty; tag: the hash's top 8 bits)
// A probe compares the tag and, on a match, the entry's tuple of that direction (one more cache
// line, read once per hit; a foreign slot's tag matches 1 time in 256). A confirmed entry owns
// two slots (ORIGINAL and REPLY), as each nf_conn sits in the kernel's hash twice
// (tuplehash[2]). Moving a slot (backward shift, growth) rehashes the entry's tuple. 23 bits of
// entry number cap the table at MAX_ENTRIES (8,388,606) entries. Until then 16-byte slots held
// the whole key (bench history: 64 of the 177 bytes per flow at 1M flows).
//
// Entries (struct of arrays, indexed by entry number, grown as needed, capped by nf_conntrack_max):
//   tuples    6 x i32: original src, dst, ports; reply src, dst, ports (kept also for
//             unconfirmed entries, which are not in the index)
//   protocol  u8;  status u16 (IPS_* bits, the kernel's bit numbers);  mark u32;  id u32
//             (a free entry's id links the free list);  use u8;  ecache u8 (events cached for
//             delivery at confirm, nf_conntrack_ecache);
//   timeout   f64: absolute deadline in virtual ns once CONFIRMED; before that, the relative
//             timeout the trackers asked for (the kernel keeps ct->timeout relative until
//             __nf_conntrack_confirm adds nfct_time_stamp);
//   protoRef  i32: the entry's slot in its protocol's pool, or -1 (the kernel's union
//             nf_conntrack_proto, sized per protocol instead of to the largest member):
//             TCP 14 words (56 bytes, views as u8/u16 over the same memory), UDP one f64
//             (stream_ts), ICMP and the others nothing.
// Nothing is allocated before the first entry: a namespace that never tracks a packet holds
// only the object (the index's first size is the one it always had, so early drop sees the
// same slots).
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
/** 32-bit words of a TCP entry's tracker state (56 bytes, ip_ct_tcp: two ip_ct_tcp_state and the last packet's fields). */
export const TCP_WORDS = 14;

const ENTRY_SHIFT = 9;
const DIR_SHIFT = 8;
const TAG_MASK = 0xff;
const TUPLE_WORDS = 6;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const NONE = -1;
/** Index load that triggers growth; chosen by bench/suites/conntrack.ts. */
const DEFAULT_MAX_LOAD = 0.5;
const MIN_INDEX_SLOTS = 64;
const DEFAULT_INITIAL_ENTRIES = 1024;
/** Entries of the first allocation (the arrays then grow); the index keeps the size initialEntries asks for. */
const FIRST_ENTRIES = 64;
/** Growth factor of the entry arrays once they are this large (doubling below). */
const LARGE_ENTRIES = 1 << 16;

// Shared empty arrays of a table that holds nothing yet (never written: the first entry or link allocates).
const EMPTY_I32 = new Int32Array(0);
const EMPTY_U32 = new Uint32Array(0);
const EMPTY_U16 = new Uint16Array(0);
const EMPTY_U8 = new Uint8Array(0);
const EMPTY_F64 = new Float64Array(0);
/** The index of an empty table: one empty slot, so that a probe ends at once. */
const EMPTY_INDEX = new Int32Array(1);
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

  // Index (EMPTY_INDEX until the first link).
  private slots: Int32Array = EMPTY_INDEX;
  private slotMask = 0;
  private slotsUsed = 0;
  private growAt = 0;
  /** Slots of the first index, from initialEntries. */
  private readonly firstSlots: number;
  private readonly seed: number;
  private readonly maxLoad: number;

  // Entries (empty until the first alloc).
  private capacity = 0;
  private readonly firstEntries: number;
  private highWater = 0;
  /** Head of the free list, linked through `ids` (entry + 1, 0 ends it); NONE when empty. */
  private freeHead = NONE;
  private dying: number[] = [];
  private dyingStamp = 0;
  private tuples: Int32Array = EMPTY_I32;
  private protocols: Uint8Array = EMPTY_U8;
  private statuses: Uint16Array = EMPTY_U16;
  private deadlines: Float64Array = EMPTY_F64;
  private marks: Uint32Array = EMPTY_U32;
  private ids: Uint32Array = EMPTY_U32;
  private uses: Uint8Array = EMPTY_U8;
  private ecache: Uint8Array = EMPTY_U8;
  private protoRefs: Int32Array = EMPTY_I32;

  // Tracker pools; replaced on growth, so read them from the table each time.
  /** TCP state, TCP_WORDS per slot (see tcpBase); free slots link through their first word. */
  tcp32: Int32Array = EMPTY_I32;
  tcp16: Uint16Array = EMPTY_U16;
  tcp8: Uint8Array = EMPTY_U8;
  private tcpCapacity = 0;
  private tcpHigh = 0;
  private tcpFree = NONE;
  /** UDP stream_ts, one per slot (see udpSlot); free slots hold the next free slot. */
  udpF64: Float64Array = EMPTY_F64;
  private udpHigh = 0;
  private udpFree = NONE;

  private idCounter = 0;
  private sweepCursor = 0;
  /** Set by a failed early drop: the sweep then also evicts as gc_worker does near the limit. */
  gcEarlyDrop = false;
  /** Non-null when someone listens for events; caching then costs one byte write. */
  destroyListener: DestroyListener | null = null;
  eventsEnabled = false;
  /** Told each number the table frees, its tuples still readable (NAT's by-source index leaves it then). */
  freeListener: ((index: number) => void) | null = null;
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
    this.firstEntries = options.initialEntries === undefined ? FIRST_ENTRIES : initial;
    let slotCount = MIN_INDEX_SLOTS;
    while (slotCount * this.maxLoad < initial * 2) slotCount *= 2;
    this.firstSlots = slotCount;
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

  /** The raw probe: `index << 1 | direction` of the slot whose entry's tuple equals the words, or -1. */
  private probe(src: number, dst: number, ports: number, protocol: number): number {
    const slots = this.slots;
    const mask = this.slotMask;
    const hash = hashKey(this.seed, src, dst, ports, protocol);
    const tag = hash >>> 24;
    let slot = hash & mask;
    for (;;) {
      const meta = slots[slot]!;
      if (meta === 0) return -1;
      if ((meta & TAG_MASK) === tag) {
        const index = (meta >>> ENTRY_SHIFT) - 1;
        const dir = (meta >>> DIR_SHIFT) & 1;
        const t = index * TUPLE_WORDS + dir * 3;
        const tuples = this.tuples;
        if (
          tuples[t + 2] === ports &&
          tuples[t] === src &&
          tuples[t + 1] === dst &&
          this.protocols[index] === protocol
        ) {
          return ((index << 1) | dir) >>> 0;
        }
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
    const protocol = orig.protocol;
    this.protocols[index] = protocol;
    this.statuses[index] = 0;
    this.deadlines[index] = 0;
    this.marks[index] = 0;
    this.ids[index] = fmix32(this.seed ^ ++this.idCounter) >>> 0;
    this.uses[index] = 1;
    this.ecache[index] = 0;
    this.protoRefs[index] =
      protocol === IPPROTO_TCP ? this.takeTcp() : protocol === IPPROTO_UDP ? this.takeUdp() : NONE;
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
    this.freeEntry(index);
  }

  /**
   * Puts an entry into the index under the directions in `dirMask` (bit 0 ORIGINAL, bit 1
   * REPLY) and marks it CONFIRMED. The caller has checked for clashes and turned the relative
   * timeout into a deadline (__nf_conntrack_confirm).
   */
  link(index: number, dirMask: number): void {
    if (this.slotsUsed + 2 > this.growAt) this.growIndex();
    if ((dirMask & 1) !== 0) this.insertSlot(index, DIR_ORIGINAL);
    if ((dirMask & 2) !== 0) this.insertSlot(index, DIR_REPLY);
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
    for (const index of this.dying) this.freeEntry(index);
    this.dying.length = 0;
  }

  /** Puts the number on the free list (last in, first out) and gives back its tracker slot. */
  private freeEntry(index: number): void {
    if (this.freeListener !== null) this.freeListener(index);
    this.uses[index] = 0;
    this.ids[index] = this.freeHead + 1;
    this.freeHead = index;
    const ref = this.protoRefs[index]!;
    if (ref === NONE) return;
    this.protoRefs[index] = NONE;
    if (this.protocols[index] === IPPROTO_TCP) {
      this.tcp32[ref * TCP_WORDS] = this.tcpFree;
      this.tcpFree = ref;
    } else {
      this.udpF64[ref] = this.udpFree;
      this.udpFree = ref;
    }
  }

  /** A free entry number, or -1 when MAX_ENTRIES are in use. */
  private takeEntry(now: number): number {
    this.reclaim(now);
    const head = this.freeHead;
    if (head !== NONE) {
      this.freeHead = this.ids[head]! - 1;
      return head;
    }
    if (this.highWater === this.capacity) {
      if (this.capacity >= MAX_ENTRIES) return -1;
      this.growEntries();
    }
    return this.highWater++;
  }

  /** A zeroed TCP slot. */
  private takeTcp(): number {
    let ref = this.tcpFree;
    if (ref !== NONE) this.tcpFree = this.tcp32[ref * TCP_WORDS]!;
    else {
      if (this.tcpHigh === this.tcpCapacity) this.growTcp();
      ref = this.tcpHigh++;
    }
    const tcp32 = this.tcp32;
    // A loop: TypedArray.prototype.fill over a range costs ~400 ns in V8.
    for (let w = ref * TCP_WORDS, end = w + TCP_WORDS; w < end; w++) tcp32[w] = 0;
    return ref;
  }

  /** A zeroed UDP slot. */
  private takeUdp(): number {
    let ref = this.udpFree;
    if (ref !== NONE) this.udpFree = this.udpF64[ref]!;
    else {
      if (this.udpHigh === this.udpF64.length)
        this.udpF64 = grow(this.udpF64, new Float64Array(this.grownSize(this.udpF64.length)));
      ref = this.udpHigh++;
    }
    this.udpF64[ref] = 0;
    return ref;
  }

  /**
   * early_drop: from the home slot of `t`, evicts the first confirmed, live, non-ASSURED entry
   * among the next EARLY_DROP_SLOTS slots, reaping expired ones on the way as early_drop_list
   * does (those do not count as a drop). Deviation: the kernel evicts every non-assured entry of
   * the first bucket that has one; we evict one.
   */
  private earlyDrop(t: Tuple, now: number): boolean {
    if (this.slotsUsed === 0) return false;
    const mask = this.slotMask;
    let slot = hashKey(this.seed, t.src | 0, t.dst | 0, portsOf(t), t.protocol) & mask;
    for (let n = 0; n < EARLY_DROP_SLOTS; n++, slot = (slot + 1) & mask) {
      const meta = this.slots[slot]!;
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

  /** First word of a TCP entry's state in tcp32 (bytes: times 4 in tcp8; halves: times 2 in tcp16), or -1 for another protocol. */
  tcpBase(index: number): number {
    const ref = this.protoRefs[index]!;
    return ref === NONE || this.protocols[index] !== IPPROTO_TCP ? NONE : ref * TCP_WORDS;
  }

  /** A UDP entry's slot in udpF64, or -1 for another protocol. */
  udpSlot(index: number): number {
    return this.protocols[index] === IPPROTO_UDP ? this.protoRefs[index]! : NONE;
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

  /** Bytes held by the typed arrays (index, entries and tracker pools); 0 before the first entry. */
  memoryBytes(): number {
    return (
      (this.slots === EMPTY_INDEX ? 0 : this.slots.byteLength) +
      this.tuples.byteLength +
      this.protocols.byteLength +
      this.statuses.byteLength +
      this.deadlines.byteLength +
      this.marks.byteLength +
      this.ids.byteLength +
      this.uses.byteLength +
      this.ecache.byteLength +
      this.protoRefs.byteLength +
      this.tcp32.byteLength +
      this.udpF64.byteLength
    );
  }

  /** Index slots in use and allocated (for tests and the bench); bytes: slots times 4. */
  indexLoad(): { readonly used: number; readonly slots: number } {
    return { used: this.slotsUsed, slots: this.slots === EMPTY_INDEX ? 0 : this.slotMask + 1 };
  }

  // ---- index internals ------------------------------------------------------------------

  /** Hash of the tuple of (index, dir) as the entry holds it. */
  private entryHash(index: number, dir: number): number {
    const t = index * TUPLE_WORDS + dir * 3;
    const tuples = this.tuples;
    return hashKey(this.seed, tuples[t]!, tuples[t + 1]!, tuples[t + 2]!, this.protocols[index]!);
  }

  private insertSlot(index: number, dir: number): void {
    const slots = this.slots;
    const mask = this.slotMask;
    const hash = this.entryHash(index, dir);
    let slot = hash & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = ((index + 1) << ENTRY_SHIFT) | (dir << DIR_SHIFT) | (hash >>> 24);
    this.slotsUsed++;
  }

  /** Removes the slot of (index, dir) if present, closing the gap by backward shift. */
  private unlinkDirection(index: number, dir: number): void {
    const hash = this.entryHash(index, dir);
    const wanted = ((index + 1) << ENTRY_SHIFT) | (dir << DIR_SHIFT) | (hash >>> 24);
    const slots = this.slots;
    const mask = this.slotMask;
    let slot = hash & mask;
    for (;;) {
      const meta = slots[slot]!;
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
      const meta = slots[next]!;
      if (meta === 0) break;
      const home = this.entryHash((meta >>> ENTRY_SHIFT) - 1, (meta >>> DIR_SHIFT) & 1) & mask;
      // The element at `next` may fill the gap unless its home lies cyclically in (gap, next].
      const movable = gap <= next ? home <= gap || home > next : home <= gap && home > next;
      if (movable) {
        slots[gap] = meta;
        gap = next;
      }
      next = (next + 1) & mask;
    }
    slots[gap] = 0;
    this.slotsUsed--;
  }

  private growIndex(): void {
    const old = this.slots;
    const count = old === EMPTY_INDEX ? this.firstSlots : (this.slotMask + 1) * 2;
    const slots = new Int32Array(count);
    const mask = count - 1;
    this.slots = slots;
    this.slotMask = mask;
    this.growAt = Math.floor(count * this.maxLoad);
    if (old === EMPTY_INDEX) return;
    for (let at = 0; at < old.length; at++) {
      const meta = old[at]!;
      if (meta === 0) continue;
      let slot = this.entryHash((meta >>> ENTRY_SHIFT) - 1, (meta >>> DIR_SHIFT) & 1) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = meta;
    }
  }

  /**
   * The next size of an array of `current` entries: the first allocation, then doubling while
   * small and half again once large, never past nf_conntrack_max in one step when that is
   * set (entries killed this instant may still take a few numbers more) nor past MAX_ENTRIES.
   */
  private grownSize(current: number): number {
    if (current === 0) return Math.min(this.firstEntries, MAX_ENTRIES);
    let next = current < LARGE_ENTRIES ? current * 2 : Math.ceil(current * 1.5);
    if (this.max !== 0 && current < this.max && next > this.max) next = this.max;
    return Math.min(next, MAX_ENTRIES);
  }

  private growEntries(): void {
    const capacity = this.grownSize(this.capacity);
    this.tuples = grow(this.tuples, new Int32Array(capacity * TUPLE_WORDS));
    this.protocols = grow(this.protocols, new Uint8Array(capacity));
    this.statuses = grow(this.statuses, new Uint16Array(capacity));
    this.deadlines = grow(this.deadlines, new Float64Array(capacity));
    this.marks = grow(this.marks, new Uint32Array(capacity));
    this.ids = grow(this.ids, new Uint32Array(capacity));
    this.uses = grow(this.uses, new Uint8Array(capacity));
    this.ecache = grow(this.ecache, new Uint8Array(capacity));
    this.protoRefs = grow(this.protoRefs, new Int32Array(capacity));
    this.capacity = capacity;
  }

  private growTcp(): void {
    const capacity = this.grownSize(this.tcpCapacity);
    const buffer = new ArrayBuffer(capacity * TCP_WORDS * 4);
    new Int32Array(buffer).set(this.tcp32);
    this.tcp32 = new Int32Array(buffer);
    this.tcp16 = new Uint16Array(buffer);
    this.tcp8 = new Uint8Array(buffer);
    this.tcpCapacity = capacity;
  }
}

function grow<T extends Int32Array | Uint8Array | Uint16Array | Uint32Array | Float64Array>(
  from: T,
  to: T,
): T {
  to.set(from);
  return to;
}
