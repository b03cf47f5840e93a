// One IPv4 routing table: insert, replace and delete with the kernel's semantics, and longest-prefix match; no TOS-keyed routes, no multipath.
//
// Mirrors net/ipv4/fib_trie.c (fib_table_insert, fib_table_delete, fib_table_lookup). The
// kernel keeps a level-compressed trie; we keep what bench/suites/route-lookup.ts measured
// fastest in JavaScript, in typed-array columns rather than one object per route:
//   - a route is a row of four Int32 columns (network, gateway, a packed word with the prefix
//     length, type, flags and attribute-set number, and the next route of the same prefix);
//     the other attributes (device, source, scope, protocol, metric, mtu, congctl) form an
//     attribute set shared by every route that has the same ones, as the kernel shares one
//     fib_info between aliases (fib_semantics.c: fib_find_info);
//   - a "leaf" per (network, prefix length) is a chain of rows in kernel order (metric
//     ascending; among equal metrics, insertion order as prepend/append dictate);
//   - one open-addressing hash over an Int32Array holding each leaf's first row;
//   - presence bitmaps saying which prefix lengths have a leaf under an address's first
//     octet (and, for tables above WIDE_MIN prefixes, under its first two octets), so a
//     lookup probes the hash only for lengths that can match, longest first. A delete leaves
//     its bit set (a superset only costs a probe); the bitmaps are rebuilt once stale bits
//     could outnumber live leaves.
// Measured (Node 20, noisy 2-core machine): ~10-25 ns up to 256 routes, ~30-45 ns at 1k,
// ~150 ns at 100k, where a linear scan takes 25 ns, 1.2-2 us and 110-190 us. A linear scan
// was no faster even at 4 routes, so there is no linear mode.
// The answer is the trie's, backtracking included: when no route of the longest matching
// prefix is usable (scope too narrow, wrong output device) the next shorter prefix is
// tried (fib_table_lookup's `goto backtrace`).
// A lookup returns the table's one reused Route record, filled from the columns (copy what
// you keep past the next lookup in the same table); dumps and changes return fresh objects.

import { type Ipv4Addr, prefixMask } from '../wire/address.ts';
import {
  type CongestionAlgorithm,
  type KernelError,
  kernelError,
  type Route,
  type RouteType,
} from './route.ts';
import { RouteAttributes } from './route-attributes.ts';

/** Above this many prefixes a table adds the /16-indexed presence bitmap. Chosen by bench/route-lookup.ts. */
export const WIDE_MIN = 256;

/** Netlink flags of a route change (NLM_F_*), as iproute2 sets them per command. */
export interface InsertFlags {
  /** NLM_F_CREATE: a new route may be created. */
  readonly create: boolean;
  /** NLM_F_EXCL: fail with EEXIST when a route with the same prefix and metric exists. */
  readonly exclusive: boolean;
  /** NLM_F_REPLACE: replace the first route with the same prefix and metric. */
  readonly replace: boolean;
  /** NLM_F_APPEND: insert after the routes with the same prefix and metric, not before. */
  readonly append: boolean;
}

/** `ip route add`, `replace`, `change`, `prepend`, `append`, `test` (ip/iproute.c: do_iproute). */
export const INSERT_FLAGS = {
  add: { create: true, exclusive: true, replace: false, append: false },
  replace: { create: true, exclusive: false, replace: true, append: false },
  change: { create: false, exclusive: false, replace: true, append: false },
  prepend: { create: true, exclusive: false, replace: false, append: false },
  append: { create: true, exclusive: false, replace: false, append: true },
  test: { create: false, exclusive: true, replace: false, append: false },
} as const satisfies Record<string, InsertFlags>;

/**
 * Which route a delete removes (fib_table_delete): the prefix is exact; every other field,
 * when given, must match. `metric: 0` and an absent metric both mean "any metric", as in
 * the kernel (fib_nh_match compares the priority only when it is non-zero).
 */
export interface RouteSelector {
  readonly dstAddr: Ipv4Addr;
  readonly prefixLen: number;
  readonly type?: RouteType;
  readonly scope?: number;
  readonly prefSrc?: Ipv4Addr;
  readonly protocol?: number;
  readonly metric?: number;
  readonly oif?: number;
  readonly gateway?: Ipv4Addr;
  readonly mtu?: number;
  readonly congctl?: CongestionAlgorithm;
}

export type InsertResult = { readonly ok: true; readonly replaced: Route | undefined } | KernelError;
export type DeleteResult = { readonly ok: true; readonly deleted: Route } | KernelError;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const MASKS = Int32Array.from({ length: 33 }, (_, len) => prefixMask(len) | 0);

/** Route types by their number in a row's word (bits 6-8). */
const TYPES: readonly RouteType[] = [
  'unicast',
  'local',
  'broadcast',
  'blackhole',
  'unreachable',
  'prohibit',
  'throw',
];
const TYPE_NUMBER: Readonly<Record<RouteType, number>> = {
  unicast: 0,
  local: 1,
  broadcast: 2,
  blackhole: 3,
  unreachable: 4,
  prohibit: 5,
  throw: 6,
};
/** Type numbers of blackhole, unreachable, prohibit and throw (isRejectType). */
const FIRST_REJECT = 3;

// A row's word: prefix length (bits 0-5), type (6-8), onlink (9), has a gateway (10), attribute set (11-31).
const LEN_MASK = 63;
const TYPE_SHIFT = 6;
const ONLINK = 1 << 9;
const HAS_GATEWAY = 1 << 10;
const ATTR_SHIFT = 11;
/** Attribute sets one table can hold (21 bits of the word). */
export const MAX_ATTRIBUTE_SETS = 2 ** (32 - ATTR_SHIFT);

/** Load factor above which the index grows (by half). */
const MAX_LOAD = 0.7;

function hashKey(net: number, len: number): number {
  const h = Math.imul(net ^ Math.imul(len, 0x9e3779b1), 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

// An index slot: the first row of a leaf + 1 (bits 0-23) and 7 bits of the leaf's hash (24-30), so a probe
// reads a row only when the tags agree; 0 is an empty slot.
const ROW_MASK = 0xff_ffff;
const TAG_MASK = 0x7f00_0000;

function tagOf(hash: number): number {
  return (hash >>> 1) & TAG_MASK;
}

function headOf(entry: number): number {
  return (entry & ROW_MASK) - 1;
}

/** A slot in [0, capacity) from a 32-bit hash, without a power-of-two capacity (Lemire's fastrange). */
function home(hash: number, capacity: number): number {
  return Math.floor((hash * capacity) / 4294967296);
}

/** A Route record with every field, the one shape lookups fill and dumps create. */
function blankRoute(): Mutable<Route> {
  return {
    table: 0,
    dstAddr: 0,
    prefixLen: 0,
    type: 'unicast',
    oif: undefined,
    gateway: undefined,
    onlink: false,
    prefSrc: undefined,
    scope: 0,
    protocol: 0,
    metric: 0,
    mtu: undefined,
    mtuLock: false,
    congctl: undefined,
    congctlLock: false,
  };
}

export class RouteTable {
  private leafCount = 0;
  private routeCount = 0;
  // Route rows.
  private nets: Int32Array;
  private gateways: Int32Array;
  private words: Int32Array;
  /** The next row of the same leaf (-1: last); for a free row, the next free row. */
  private nexts: Int32Array;
  private rowsUsed = 0;
  private freeRow = -1;
  private readonly attrs = new RouteAttributes();
  /** Open addressing, linear probing: a leaf's first row and hash tag per slot (see ROW_MASK), 0 for empty. */
  private slots = new Int32Array(16);
  /**
   * Presence bits: a lookup probes the hash only for prefix lengths that may have a leaf
   * under the address. Bit (len - 8) of top8[first octet] for lengths 8-32; bit len of
   * lowBits for lengths 0-7; above WIDE_MIN leaves also bit (len - 16) of
   * top16[first octet][second octet] for lengths 16-32 (a 1 KiB chunk per first octet that has such a leaf, so
   * a big table inside 10/8 pays 1 KiB, a full BGP table 256 KiB).
   */
  private readonly top8 = new Uint32Array(256);
  private top16: (Uint32Array | undefined)[] | undefined;
  private lowBits = 0;
  /** Leaves deleted since the bitmaps were last rebuilt: bits that may be stale. */
  private staleBits = 0;
  /** What `lookup` returns, refilled by each lookup. */
  private readonly found = blankRoute();
  /** The row `found` holds, -1 after any change to the table. */
  private foundRow = -1;

  constructor(
    readonly id: number,
    initialRows = 8,
  ) {
    this.nets = new Int32Array(initialRows);
    this.gateways = new Int32Array(initialRows);
    this.words = new Int32Array(initialRows);
    this.nexts = new Int32Array(initialRows);
  }

  /** Number of routes. */
  get size(): number {
    return this.routeCount;
  }

  /**
   * Longest-prefix match (fib_table_lookup). Skips routes whose scope is narrower than
   * `minScope` (flowi4_scope) and, when `oif` is non-zero, unicast/local/broadcast routes
   * through another device; a reject route (blackhole, unreachable, prohibit, throw) is
   * returned as soon as its scope passes. Undefined when nothing matches (-EAGAIN). The
   * record is the table's own, refilled by the next lookup.
   */
  lookup(dstAddr: Ipv4Addr, oif: number, minScope: number): Route | undefined {
    const row = this.find(dstAddr, oif, minScope);
    if (row < 0) return undefined;
    // A hot flow finds the same row again: the record already holds it unless the table changed.
    if (row !== this.foundRow) {
      this.fill(this.found, row);
      this.foundRow = row;
    }
    return this.found;
  }

  /** `lookup`'s row without filling the record, -1 for none: read it with typeOf/oifOf. */
  find(dstAddr: Ipv4Addr, oif: number, minScope: number): number {
    const addr = dstAddr | 0;
    let bits: number;
    let mask8 = 0x1ff_ffff;
    const chunk = this.top16?.[addr >>> 24];
    // No chunk for the first octet: no leaf of /16 or longer under it, so top8 alone is exact.
    if (chunk !== undefined) {
      bits = chunk[(addr >>> 16) & 255]!;
      while (bits !== 0) {
        const bit = 31 - Math.clz32(bits);
        bits ^= 1 << bit;
        const hit = this.probe(addr, 16 + bit, oif, minScope);
        if (hit >= 0) return hit;
      }
      mask8 = 0xff;
    }
    bits = this.top8[addr >>> 24]! & mask8;
    while (bits !== 0) {
      const bit = 31 - Math.clz32(bits);
      bits ^= 1 << bit;
      const hit = this.probe(addr, 8 + bit, oif, minScope);
      if (hit >= 0) return hit;
    }
    bits = this.lowBits;
    while (bits !== 0) {
      const bit = 31 - Math.clz32(bits);
      bits ^= 1 << bit;
      const hit = this.probe(addr, bit, oif, minScope);
      if (hit >= 0) return hit;
    }
    return -1;
  }

  /** The type of a row `find` returned. */
  typeOf(row: number): RouteType {
    return TYPES[(this.words[row]! >>> TYPE_SHIFT) & 7]!;
  }

  /** The output device of a row `find` returned (undefined for reject routes). */
  oifOf(row: number): number | undefined {
    return this.attrs.oif((this.words[row]! >>> ATTR_SHIFT) | 0);
  }

  /** The routes of one prefix in kernel order (empty when none), as fresh records. */
  routesOf(dstAddr: Ipv4Addr, prefixLen: number): readonly Route[] {
    const slot = this.findSlot(dstAddr | 0, prefixLen);
    return slot < 0 ? [] : this.chain(headOf(this.slots[slot]!)).map((row) => this.routeAt(row));
  }

  /**
   * Every route in the order `ip route show` dumps them: network ascending, then longer
   * prefixes first, then kernel order within a prefix.
   */
  routes(): Route[] {
    const heads: number[] = [];
    for (let slot = 0; slot < this.slots.length; slot++)
      if (this.slots[slot] !== 0) heads.push(headOf(this.slots[slot]!));
    const nets = this.nets;
    const words = this.words;
    heads.sort(
      (a, b) => (nets[a]! >>> 0) - (nets[b]! >>> 0) || (words[b]! & LEN_MASK) - (words[a]! & LEN_MASK),
    );
    const out: Route[] = [];
    for (const head of heads)
      for (let row = head; row >= 0; row = this.nexts[row]!) out.push(this.routeAt(row));
    return out;
  }

  /** Mirrors fib_table_insert: the route must already be validated (fib_create_info). */
  insert(route: Route, flags: InsertFlags): InsertResult {
    const prefixError = checkPrefix(route.dstAddr, route.prefixLen);
    if (prefixError !== undefined) return prefixError;
    const net = route.dstAddr | 0;
    const slot = this.findSlot(net, route.prefixLen);
    const rows = slot < 0 ? [] : this.chain(headOf(this.slots[slot]!));
    const metricOf = (row: number): number => this.attrs.metric((this.words[row]! >>> ATTR_SHIFT) | 0);
    // fib_find_alias: the first route whose metric is at least ours.
    let at = rows.findIndex((row) => metricOf(row) >= route.metric);
    if (at < 0) at = rows.length;
    if (at < rows.length && metricOf(rows[at]!) === route.metric) {
      if (flags.exclusive) return kernelError('EEXIST');
      const first = at;
      let end = first;
      let match = -1;
      for (; end < rows.length && metricOf(rows[end]!) === route.metric; end++) {
        if (match < 0 && sameInfo(this.routeAt(rows[end]!), route)) match = end;
      }
      if (flags.replace) {
        if (match >= 0) return match === first ? { ok: true, replaced: undefined } : kernelError('EEXIST');
        const replaced = this.routeAt(rows[first]!);
        this.attrs.release((this.words[rows[first]!]! >>> ATTR_SHIFT) | 0);
        this.writeRow(rows[first]!, route);
        return { ok: true, replaced };
      }
      if (match >= 0) return kernelError('EEXIST');
      at = flags.append ? end : first;
    }
    if (!flags.create) return kernelError('ENOENT');
    const row = this.allocateRow();
    this.writeRow(row, route);
    rows.splice(at, 0, row);
    this.routeCount++;
    if (slot < 0) this.addLeaf(row);
    else this.relink(slot, rows);
    return { ok: true, replaced: undefined };
  }

  /** Mirrors fib_table_delete: removes the first route of the prefix that the selector matches. */
  delete(selector: RouteSelector): DeleteResult {
    const prefixError = checkPrefix(selector.dstAddr, selector.prefixLen);
    if (prefixError !== undefined) return prefixError;
    const slot = this.findSlot(selector.dstAddr | 0, selector.prefixLen);
    if (slot < 0) return kernelError('ESRCH');
    const rows = this.chain(headOf(this.slots[slot]!));
    for (let index = 0; index < rows.length; index++) {
      const deleted = this.routeAt(rows[index]!);
      if (!selectorMatches(selector, deleted)) continue;
      this.freeRows(rows.splice(index, 1));
      this.routeCount--;
      if (rows.length === 0) this.removeLeaf(slot);
      else this.relink(slot, rows);
      return { ok: true, deleted };
    }
    return kernelError('ESRCH');
  }

  /**
   * Removes every route `predicate` accepts (the kernel's flush of routes through a vanished
   * device). The predicate sees a reused record; the routes returned are fresh.
   */
  deleteWhere(predicate: (route: Route) => boolean): Route[] {
    const removed: Route[] = [];
    const view = blankRoute();
    for (let slot = 0; slot < this.slots.length; ) {
      if (this.slots[slot] === 0) {
        slot++;
        continue;
      }
      const rows = this.chain(headOf(this.slots[slot]!));
      const gone: number[] = [];
      for (let i = rows.length - 1; i >= 0; i--) {
        this.fill(view, rows[i]!);
        if (!predicate(view)) continue;
        removed.unshift(this.routeAt(rows[i]!));
        gone.push(...rows.splice(i, 1));
      }
      if (gone.length === 0) {
        slot++;
        continue;
      }
      this.freeRows(gone);
      this.routeCount -= gone.length;
      if (rows.length > 0) {
        this.relink(slot, rows);
        slot++;
        // A backward shift may move a not-yet-visited leaf into this slot: visit it again.
      } else if (!this.removeLeaf(slot)) slot++;
    }
    return removed;
  }

  // ---- rows ---------------------------------------------------------------------------------

  /** The rows of a leaf in order. */
  private chain(head: number): number[] {
    const rows: number[] = [];
    for (let row = head; row >= 0; row = this.nexts[row]!) rows.push(row);
    return rows;
  }

  /** Links a leaf's rows in order and points its slot at the first. */
  private relink(slot: number, rows: readonly number[]): void {
    for (let i = 0; i < rows.length; i++) this.nexts[rows[i]!] = i + 1 < rows.length ? rows[i + 1]! : -1;
    this.slots[slot] = (this.slots[slot]! & TAG_MASK) | (rows[0]! + 1);
  }

  private writeRow(row: number, route: Route): void {
    this.foundRow = -1;
    const attr = this.attrs.intern(route);
    if (attr >= MAX_ATTRIBUTE_SETS)
      throw new RangeError(`route table ${this.id}: more than ${MAX_ATTRIBUTE_SETS} attribute sets`);
    this.nets[row] = route.dstAddr | 0;
    this.gateways[row] = route.gateway === undefined ? 0 : route.gateway | 0;
    this.words[row] =
      route.prefixLen |
      (TYPE_NUMBER[route.type] << TYPE_SHIFT) |
      (route.onlink ? ONLINK : 0) |
      (route.gateway !== undefined ? HAS_GATEWAY : 0) |
      (attr << ATTR_SHIFT);
  }

  /** Copies a row into a Route record. */
  private fill(out: Mutable<Route>, row: number): void {
    const word = this.words[row]!;
    out.table = this.id;
    out.dstAddr = this.nets[row]! >>> 0;
    out.prefixLen = word & LEN_MASK;
    out.type = TYPES[(word >>> TYPE_SHIFT) & 7]!;
    out.gateway = (word & HAS_GATEWAY) !== 0 ? this.gateways[row]! >>> 0 : undefined;
    out.onlink = (word & ONLINK) !== 0;
    this.attrs.fill(out, (word >>> ATTR_SHIFT) | 0);
  }

  /** A fresh Route record of a row. */
  private routeAt(row: number): Route {
    const route = blankRoute();
    this.fill(route, row);
    return route;
  }

  private allocateRow(): number {
    if (this.freeRow >= 0) {
      const row = this.freeRow;
      this.freeRow = this.nexts[row]!;
      this.nexts[row] = -1;
      return row;
    }
    if (this.rowsUsed === this.nets.length) this.growRows();
    this.nexts[this.rowsUsed] = -1;
    return this.rowsUsed++;
  }

  private freeRows(rows: readonly number[]): void {
    this.foundRow = -1;
    for (const row of rows) {
      this.attrs.release((this.words[row]! >>> ATTR_SHIFT) | 0);
      this.words[row] = 0;
      this.nexts[row] = this.freeRow;
      this.freeRow = row;
    }
  }

  /** Grows the row columns by a quarter (rows are most of a table's bytes). */
  private growRows(): void {
    const capacity = Math.max(8, Math.ceil(this.nets.length * 1.25));
    const grow = (old: Int32Array): Int32Array<ArrayBuffer> => {
      const next = new Int32Array(capacity);
      next.set(old);
      return next;
    };
    this.nets = grow(this.nets);
    this.gateways = grow(this.gateways);
    this.words = grow(this.words);
    this.nexts = grow(this.nexts);
  }

  // ---- index maintenance ------------------------------------------------------------------

  /** One hash probe for the leaf of (addr/len), then its routes. */
  private probe(addr: number, len: number, oif: number, minScope: number): number {
    const net = addr & MASKS[len]!;
    const slots = this.slots;
    const capacity = slots.length;
    const nets = this.nets;
    const words = this.words;
    const hash = hashKey(net, len);
    const tag = tagOf(hash);
    let slot = home(hash, capacity);
    for (;;) {
      const entry = slots[slot]!;
      if (entry === 0) return -1;
      const row = (entry & ROW_MASK) - 1;
      if ((entry & TAG_MASK) === tag && nets[row] === net && (words[row]! & LEN_MASK) === len) {
        if (oif === 0 && minScope === 0) return row;
        return this.checkLeaf(row, oif, minScope);
      }
      if (++slot === capacity) slot = 0;
    }
  }

  /** The routes of one leaf in order, as fib_table_lookup walks a leaf's aliases. */
  private checkLeaf(head: number, oif: number, minScope: number): number {
    const attrs = this.attrs;
    for (let row = head; row >= 0; row = this.nexts[row]!) {
      const word = this.words[row]!;
      const attr = (word >>> ATTR_SHIFT) | 0;
      if (attrs.scope(attr) < minScope) continue;
      if (((word >>> TYPE_SHIFT) & 7) >= FIRST_REJECT) return row;
      if (oif !== 0 && attrs.oif(attr) !== oif) continue;
      return row;
    }
    return -1;
  }

  private findSlot(net: number, len: number): number {
    const slots = this.slots;
    const capacity = slots.length;
    const hash = hashKey(net, len);
    const tag = tagOf(hash);
    let slot = home(hash, capacity);
    for (;;) {
      const entry = slots[slot]!;
      if (entry === 0) return -1;
      const row = (entry & ROW_MASK) - 1;
      if ((entry & TAG_MASK) === tag && this.nets[row] === net && (this.words[row]! & LEN_MASK) === len)
        return slot;
      if (++slot === capacity) slot = 0;
    }
  }

  private addLeaf(head: number): void {
    this.leafCount++;
    if (this.leafCount > this.slots.length * MAX_LOAD) this.grow();
    this.place(head);
    this.setBits(head);
    if (this.top16 === undefined && this.leafCount > WIDE_MIN) this.rebuildBits();
  }

  /** Removes the leaf in `slot`; true when the backward shift moved another leaf into it. */
  private removeLeaf(slot: number): boolean {
    this.leafCount--;
    const refilled = this.unplace(slot);
    this.staleBits++;
    if ((this.top16 !== undefined && this.leafCount <= WIDE_MIN / 2) || this.staleBits > this.leafCount + 64)
      this.rebuildBits();
    return refilled;
  }

  private place(head: number): void {
    const slots = this.slots;
    const capacity = slots.length;
    if (head >= ROW_MASK) throw new RangeError(`route table ${this.id}: more than ${ROW_MASK - 1} routes`);
    const hash = hashKey(this.nets[head]!, this.words[head]! & LEN_MASK);
    let slot = home(hash, capacity);
    while (slots[slot] !== 0) if (++slot === capacity) slot = 0;
    slots[slot] = tagOf(hash) | (head + 1);
  }

  /** Backward-shift deletion: keeps every probe chain unbroken without tombstones. */
  private unplace(slot: number): boolean {
    const slots = this.slots;
    const capacity = slots.length;
    let hole = slot;
    let next = slot + 1 === capacity ? 0 : slot + 1;
    while (slots[next] !== 0) {
      const row = headOf(slots[next]!);
      const at = home(hashKey(this.nets[row]!, this.words[row]! & LEN_MASK), capacity);
      // Move `next` into the hole unless its home lies cyclically in (hole, next].
      const stays = hole <= next ? at > hole && at <= next : at > hole || at <= next;
      if (!stays) {
        slots[hole] = slots[next]!;
        hole = next;
      }
      next = next + 1 === capacity ? 0 : next + 1;
    }
    slots[hole] = 0;
    return hole !== slot;
  }

  /** Grows the index by half and re-places every leaf. */
  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(Math.ceil(old.length * 1.5) + 1);
    for (let slot = 0; slot < old.length; slot++) if (old[slot] !== 0) this.place(headOf(old[slot]!));
  }

  private setBits(head: number): void {
    const net = this.nets[head]!;
    const len = this.words[head]! & LEN_MASK;
    if (len < 8) {
      this.lowBits |= 1 << len;
      return;
    }
    this.top8[net >>> 24] = this.top8[net >>> 24]! | (1 << (len - 8));
    if (len >= 16 && this.top16 !== undefined) {
      let chunk = this.top16[net >>> 24];
      if (chunk === undefined) {
        chunk = new Uint32Array(256);
        this.top16[net >>> 24] = chunk;
      }
      chunk[(net >>> 16) & 255] = chunk[(net >>> 16) & 255]! | (1 << (len - 16));
    }
  }

  /** Recomputes the presence bits from the leaves (after deletes, or when crossing WIDE_MIN). */
  private rebuildBits(): void {
    this.top8.fill(0);
    this.lowBits = 0;
    this.top16 = this.leafCount > WIDE_MIN ? Array.from({ length: 256 }, () => undefined) : undefined;
    for (let slot = 0; slot < this.slots.length; slot++)
      if (this.slots[slot] !== 0) this.setBits(headOf(this.slots[slot]!));
    this.staleBits = 0;
  }
}

/** Same fib_info (fib_semantics.c: fib_find_info + nh_comp) and type: everything but prefix and table. */
function sameInfo(a: Route, b: Route): boolean {
  return (
    a.type === b.type &&
    a.oif === b.oif &&
    a.gateway === b.gateway &&
    a.onlink === b.onlink &&
    a.prefSrc === b.prefSrc &&
    a.scope === b.scope &&
    a.protocol === b.protocol &&
    a.metric === b.metric &&
    a.mtu === b.mtu &&
    a.mtuLock === b.mtuLock &&
    a.congctl === b.congctl &&
    a.congctlLock === b.congctlLock
  );
}

/** fib_table_insert/delete's prefix checks: a length of 0-32 and no host bits set. */
export function checkPrefix(dstAddr: Ipv4Addr, prefixLen: number): KernelError | undefined {
  if (!Number.isInteger(prefixLen) || prefixLen < 0 || prefixLen > 32) {
    return kernelError('EINVAL', 'Invalid prefix length');
  }
  if (((dstAddr & ~prefixMask(prefixLen)) | 0) !== 0) {
    return kernelError('EINVAL', 'Invalid prefix for given prefix length');
  }
  return undefined;
}

function selectorMatches(sel: RouteSelector, route: Route): boolean {
  return (
    (sel.type === undefined || sel.type === route.type) &&
    (sel.scope === undefined || sel.scope === route.scope) &&
    (sel.prefSrc === undefined || sel.prefSrc === route.prefSrc) &&
    (sel.protocol === undefined || sel.protocol === 0 || sel.protocol === route.protocol) &&
    (sel.metric === undefined || sel.metric === 0 || sel.metric === route.metric) &&
    (sel.oif === undefined || sel.oif === route.oif) &&
    (sel.gateway === undefined || sel.gateway === route.gateway) &&
    (sel.mtu === undefined || sel.mtu === route.mtu) &&
    (sel.congctl === undefined || sel.congctl === route.congctl)
  );
}
