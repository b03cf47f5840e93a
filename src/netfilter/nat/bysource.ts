// The by-source index of source-NATed connections (the kernel's nf_nat_bysource hash), so that a source already mapped keeps its mapping; chains hold conntrack entry numbers, no zones.
//
// Mirrors nf_nat_core.c: hash_by_src (original source address, port and protocol, with a
// secret drawn once, as get_random_once does) and the nat_bysource hlist that
// nf_nat_setup_info adds to (at the head) for every SRC manip, null bindings included.
//
// Layout: bucket heads in one Int32Array (allocated with the first entry), doubly-linked
// chains through per-entry `next`/`prev` arrays indexed by conntrack entry number (8 bytes per
// entry; `prev` also says whether the entry is linked). An entry leaves its chain when the
// table frees its number (the kernel's nf_nat_cleanup_conntrack when the nf_conn is
// destroyed), when the walk meets it DYING, or when its number is linked again; its bucket is
// rehashed from its original tuple, which lasts until the number is reused. Until then the
// table did not report frees: stale entries stayed linked and each carried its bucket and
// conntrack id (16 bytes per entry) to be recognised on a walk.

import type { Conntrack } from '../conntrack/conntrack.ts';
import { DIR_ORIGINAL, IPS_DYING } from '../conntrack/table.ts';
import { createTuple, type Tuple } from '../conntrack/tuple.ts';

const NONE = -1;
/** `prev` of an entry that is in no chain. */
const UNLINKED = -2;
const MIN_BUCKETS = 1024;

// MurmurHash3 rounds: the kernel uses siphash; any keyed mix will do (the bucket only groups
// candidates; same_src decides).
function mix(h: number, k: number): number {
  let x = Math.imul(k, 0xcc9e2d51);
  x = (x << 15) | (x >>> 17);
  x = Math.imul(x, 0x1b873593);
  let y = h ^ x;
  y = (y << 13) | (y >>> 19);
  return (Math.imul(y, 5) + 0xe6546b64) | 0;
}

function finish(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class BySourceIndex {
  private heads: Int32Array;
  private mask: number;
  private next = new Int32Array(0);
  /** The previous entry in the chain, NONE at the head, UNLINKED when in no chain. */
  private prev = new Int32Array(0);
  private linked = 0;
  private secret: number | undefined;
  private readonly scratch = createTuple();

  constructor(
    private readonly conntrack: Conntrack,
    /** Draws the hash secret on first use (get_random_once). */
    private readonly drawSecret: () => number,
  ) {
    // Buckets come with the first source-NATed entry: a namespace that never NATs holds none.
    this.heads = new Int32Array(0);
    this.mask = MIN_BUCKETS - 1;
    conntrack.table.freeListener = (index) => this.forget(index);
  }

  /** Entries currently linked, DYING ones not yet freed included (for tests). */
  get size(): number {
    return this.linked;
  }

  private hash(src: number, srcPort: number, protocol: number): number {
    if (this.secret === undefined) this.secret = this.drawSecret() | 0;
    let h = mix(this.secret, src | 0);
    h = mix(h, (srcPort << 8) | protocol);
    return finish(h ^ 8);
  }

  /** Adds `index` under its original source (nf_nat_setup_info for NF_NAT_MANIP_SRC): at the chain's head. */
  add(index: number): void {
    this.ensureCapacity(index + 1);
    if (this.prev[index] !== UNLINKED) this.unlink(index);
    if (this.heads.length === 0) this.heads = new Int32Array(MIN_BUCKETS).fill(NONE);
    else if (this.linked + 1 > this.heads.length) this.grow();
    const orig = this.conntrack.tuple(index, DIR_ORIGINAL, this.scratch);
    const bucket = this.hash(orig.src, orig.srcPort, orig.protocol) & this.mask;
    this.linkAt(index, bucket);
  }

  /** The table frees `index`: out of its chain (nf_nat_cleanup_conntrack). */
  private forget(index: number): void {
    if (index < this.prev.length && this.prev[index] !== UNLINKED) this.unlink(index);
  }

  /**
   * find_appropriate_src's walk: calls `visit` with each live entry whose original source
   * (protocol, address, port) equals `tuple`'s, most recently added first, until it returns
   * true; returns that entry or -1. Dead entries met on the way are unlinked.
   */
  find(tuple: Tuple, visit: (index: number) => boolean): number {
    if (this.linked === 0) return -1;
    const bucket = this.hash(tuple.src, tuple.srcPort, tuple.protocol) & this.mask;
    const conntrack = this.conntrack;
    const orig = this.scratch;
    let index = this.heads[bucket]!;
    while (index !== NONE) {
      const following = this.next[index]!;
      if ((conntrack.status(index) & IPS_DYING) !== 0) {
        this.unlink(index);
      } else {
        conntrack.tuple(index, DIR_ORIGINAL, orig);
        // same_src
        if (
          orig.protocol === tuple.protocol &&
          orig.src === tuple.src >>> 0 &&
          orig.srcPort === tuple.srcPort &&
          visit(index)
        ) {
          return index;
        }
      }
      index = following;
    }
    return -1;
  }

  private linkAt(index: number, bucket: number): void {
    const head = this.heads[bucket]!;
    this.next[index] = head;
    this.prev[index] = NONE;
    if (head !== NONE) this.prev[head] = index;
    this.heads[bucket] = index;
    this.linked++;
  }

  private unlink(index: number): void {
    const before = this.prev[index]!;
    const after = this.next[index]!;
    if (before === NONE) {
      const orig = this.conntrack.tuple(index, DIR_ORIGINAL, this.scratch);
      this.heads[this.hash(orig.src, orig.srcPort, orig.protocol) & this.mask] = after;
    } else this.next[before] = after;
    if (after !== NONE) this.prev[after] = before;
    this.prev[index] = UNLINKED;
    this.linked--;
  }

  private ensureCapacity(entries: number): void {
    if (entries <= this.next.length) return;
    let capacity = Math.max(1024, this.next.length);
    while (capacity < entries) capacity *= 2;
    this.next = copyInto(this.next, new Int32Array(capacity));
    this.prev = copyInto(this.prev, new Int32Array(capacity).fill(UNLINKED));
  }

  /** Doubles the buckets and relinks every entry, keeping each chain's order. */
  private grow(): void {
    const count = this.heads.length * 2;
    const oldHeads = this.heads;
    this.heads = new Int32Array(count).fill(NONE);
    this.mask = count - 1;
    this.linked = 0;
    const chain: number[] = [];
    for (let bucket = 0; bucket < oldHeads.length; bucket++) {
      chain.length = 0;
      for (let index = oldHeads[bucket]!; index !== NONE; index = this.next[index]!) chain.push(index);
      // Relink tail first so that each new chain keeps most-recent-first order.
      for (let k = chain.length - 1; k >= 0; k--) {
        const index = chain[k]!;
        const orig = this.conntrack.tuple(index, DIR_ORIGINAL, this.scratch);
        this.linkAt(index, this.hash(orig.src, orig.srcPort, orig.protocol) & this.mask);
      }
    }
  }
}

function copyInto<T extends Int32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
