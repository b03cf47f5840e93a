// The hash types of ipset (ip_set_hash_gen.h) over one IPv4 element shape: buckets keyed by jhash2 of the
// element with the set's initval, arrays of AHASH_INIT_SIZE slots grown by two up to bucketsize, then a resize that
// doubles the table; deletes and garbage collection shrink buckets the way the kernel does, so that a set lists its
// members in the kernel's order and reports the kernel's "Size in memory". No forceadd, no bucketsize tuning for
// the hash:net,net-style multi types.

import { jhash2 } from '../jhash.ts';
import {
  type HashElement,
  type HashTypeName,
  hashWords,
  prefixOf,
  SET_TYPE_INFO,
  sameElement,
  withPrefix,
} from './element.ts';
import {
  type AddExtensions,
  commentSize,
  deadlineOf,
  elementSize,
  isExpired,
  type SetEntry,
  type SetExtensions,
  storedComment,
} from './extensions.ts';

/** AHASH_INIT_SIZE: slots in a new bucket, and the step a bucket grows or shrinks by. */
const INIT_SLOTS = 2;
/** sizeof(struct hbucket) before its slots. */
const BUCKET_HEADER = 32;
/** sizeof(struct ip_set_region), one per 2^10 buckets beyond the first 2^10. */
const REGION_SIZE = 24;
/** HTABLE_REGION_BITS. */
const REGION_BITS = 10;
/** IPSET_GC_TIME: the longest garbage collection period, in seconds. */
const GC_TIME = 3 * 60;

export type SetError =
  /** IPSET_ERR_EXIST: add of a member already there, del or test of one that is not. */
  | 'EXIST'
  | 'HASH_FULL'
  /** IPSET_ERR_HASH_ELEM: a zero prefix where the type cannot store it. */
  | 'INVALID_CIDR'
  | 'BITMAP_RANGE'
  | 'TIMEOUT'
  | 'COUNTER'
  | 'COMMENT'
  | 'LIST_FULL'
  | 'NAME'
  | 'REF_EXIST'
  | 'LOOP';

export type SetResult = { readonly ok: true } | { readonly ok: false; readonly error: SetError };

export const OK: SetResult = { ok: true };

interface Bucket {
  /** Slots allocated (hbucket.size). */
  size: number;
  /** First never-used slot (hbucket.pos); slots below it may be free. */
  pos: number;
  /** What each slot holds; a freed slot keeps its old data, as the kernel's memory does, until reused. */
  readonly slots: SetEntry<HashElement>[];
  /** hbucket.used: which slots hold a member. */
  readonly used: boolean[];
}

function newBucket(): Bucket {
  return { size: INIT_SLOTS, pos: 0, slots: [], used: [] };
}

/** The member in slot `i`, or undefined when the slot is free. */
function memberAt(bucket: Bucket, i: number): SetEntry<HashElement> | undefined {
  return bucket.used[i] ? bucket.slots[i] : undefined;
}

/** htable_bits: the power of two at least `hashsize`. */
function tableBits(hashsize: number): number {
  let bits = 0;
  while (2 ** bits < hashsize) bits++;
  return bits;
}

export interface HashSetOptions {
  readonly type: HashTypeName;
  readonly hashsize: number;
  readonly maxelem: number;
  readonly bucketsize: number;
  readonly initval: number;
  /** hash:ip's netmask (32 when not given). */
  readonly netmask: number;
  readonly extensions: SetExtensions;
  /** When it was created (ns): the garbage collector's first run is a second later. */
  readonly createdAt: number;
}

export class HashSet {
  readonly type: HashTypeName;
  readonly maxelem: number;
  readonly bucketsize: number;
  readonly initval: number;
  readonly netmask: number;
  readonly extensions: SetExtensions;
  private bits: number;
  private buckets: (Bucket | undefined)[];
  private elements = 0;
  /** The regions' ext_size: bucket allocations as the kernel counts them. */
  private bucketBytes = 0;
  /** set->ext_size: the comments. */
  private commentBytes = 0;
  /** h->nets: the prefix lengths stored, longest first, with how many members use each. */
  private readonly prefixes: { cidr: number; count: number }[] = [];
  private readonly dsize: number;
  private nextGcAt: number;
  /** The element words of the lookup in progress: a packet's lookup allocates nothing for its key. */
  private readonly words = new Uint32Array(2);

  constructor(options: HashSetOptions) {
    this.type = options.type;
    this.maxelem = options.maxelem;
    this.bucketsize = options.bucketsize;
    this.initval = options.initval >>> 0;
    this.netmask = options.netmask;
    this.extensions = options.extensions;
    this.bits = tableBits(Math.max(options.hashsize, 64));
    this.buckets = new Array(2 ** this.bits);
    this.dsize = elementSize(SET_TYPE_INFO[this.type].elementLen, 4, this.extensions);
    this.nextGcAt = options.createdAt + 1e9;
  }

  /** The table size the header prints (jhash_size(htable_bits)). */
  get hashsize(): number {
    return 2 ** this.bits;
  }

  /** mtype_head's memsize: the structures, the buckets as counted, the comments. */
  memorySize(nowNs: number): number {
    this.collect(nowNs);
    const regions = this.bits < REGION_BITS ? 1 : 2 ** (this.bits - REGION_BITS);
    return (
      SET_TYPE_INFO[this.type].emptySize + (regions - 1) * REGION_SIZE + this.bucketBytes + this.commentBytes
    );
  }

  /** The members that have not expired, in bucket order (mtype_list). */
  members(nowNs: number): SetEntry<HashElement>[] {
    this.collect(nowNs);
    const out: SetEntry<HashElement>[] = [];
    for (const bucket of this.buckets) {
      if (bucket === undefined) continue;
      for (let i = 0; i < bucket.pos; i++) {
        const entry = memberAt(bucket, i);
        if (entry !== undefined && !isExpired(entry, nowNs)) out.push(entry);
      }
    }
    return out;
  }

  private key(element: HashElement, bits = this.bits): number {
    const length = hashWords(element, this.words);
    return (jhash2(this.words, length, this.initval) & (2 ** bits - 1)) >>> 0;
  }

  private extSize(slots: number): number {
    return BUCKET_HEADER + slots * this.dsize;
  }

  /** mirrors ip_set_hash_gen.h:mtype_add, resizing and retrying on -EAGAIN as ip_set_core.c:call_ad does. */
  add(
    element: HashElement,
    ext: AddExtensions,
    flags: { exist: boolean; nomatch: boolean },
    nowNs: number,
  ): SetResult {
    this.collect(nowNs);
    for (;;) {
      const result = this.addOnce(element, ext, flags, nowNs);
      if (result !== 'EAGAIN') return result;
      if (!this.resize(nowNs)) return { ok: false, error: 'HASH_FULL' };
    }
  }

  private addOnce(
    element: HashElement,
    ext: AddExtensions,
    flags: { exist: boolean; nomatch: boolean },
    nowNs: number,
  ): SetResult | 'EAGAIN' {
    const key = this.key(element);
    if (this.elements >= this.maxelem && this.extensions.timeout !== undefined) this.collectAll(nowNs);
    const full = this.elements >= this.maxelem;
    let bucket = this.buckets[key];
    let slot: number;
    if (bucket === undefined) {
      if (full) return { ok: false, error: 'HASH_FULL' };
      bucket = newBucket();
      this.buckets[key] = bucket;
      this.bucketBytes += this.extSize(INIT_SLOTS);
      slot = bucket.pos++;
    } else {
      let reuse = -1;
      let deleted = false;
      for (let i = 0; i < bucket.pos; i++) {
        const entry = memberAt(bucket, i);
        if (entry === undefined) {
          if (reuse === -1) {
            reuse = i;
            deleted = true;
          }
          continue;
        }
        if (sameElement(entry.element, element)) {
          if (flags.exist || isExpired(entry, nowNs)) {
            this.setExtensions(entry, ext, flags, nowNs);
            return { ok: true };
          }
          return { ok: false, error: 'EXIST' };
        }
        if (isExpired(entry, nowNs) && reuse === -1) reuse = i;
      }
      if (reuse !== -1) {
        if (!deleted) this.forget(bucket.slots[reuse]!);
        slot = reuse;
      } else {
        if (full) return { ok: false, error: 'HASH_FULL' };
        if (bucket.pos >= bucket.size) {
          if (bucket.size >= this.bucketsize) return 'EAGAIN';
          bucket.size += INIT_SLOTS;
          this.bucketBytes += this.extSize(INIT_SLOTS);
        }
        slot = bucket.pos++;
      }
    }
    // copy_data copies the element only: a reused slot keeps the counters of what it held before.
    const previous = bucket.slots[slot];
    const entry: SetEntry<HashElement> = {
      element,
      nomatch: false,
      deadline: Number.POSITIVE_INFINITY,
      packets: previous?.packets ?? 0,
      bytes: previous?.bytes ?? 0,
      comment: undefined,
    };
    this.elements++;
    this.addPrefix(prefixOf(element));
    this.setExtensions(entry, ext, flags, nowNs);
    bucket.slots[slot] = entry;
    bucket.used[slot] = true;
    return { ok: true };
  }

  /** The extension part of mtype_add (overwrite_extensions): flags, counters, comment, timeout last. */
  private setExtensions(
    entry: SetEntry<HashElement>,
    ext: AddExtensions,
    flags: { nomatch: boolean },
    nowNs: number,
  ): void {
    if (SET_TYPE_INFO[this.type].withNets) entry.nomatch = flags.nomatch;
    if (this.extensions.counters) {
      if (ext.bytes !== undefined) entry.bytes = ext.bytes;
      if (ext.packets !== undefined) entry.packets = ext.packets;
    }
    if (this.extensions.comment) {
      this.commentBytes -= commentSize(entry.comment);
      entry.comment = storedComment(ext.comment);
      this.commentBytes += commentSize(entry.comment);
    }
    if (this.extensions.timeout !== undefined)
      entry.deadline = deadlineOf(ext.timeout ?? this.extensions.timeout, nowNs);
  }

  /** A member leaves: its prefix count, the element count, its comment. */
  private forget(entry: SetEntry<HashElement>): void {
    this.elements--;
    this.removePrefix(prefixOf(entry.element));
    this.commentBytes -= commentSize(entry.comment);
  }

  /** mirrors ip_set_hash_gen.h:mtype_del. */
  del(element: HashElement, nowNs: number): SetResult {
    this.collect(nowNs);
    const key = this.key(element);
    const bucket = this.buckets[key];
    if (bucket === undefined) return { ok: false, error: 'EXIST' };
    for (let i = 0; i < bucket.pos; i++) {
      const entry = memberAt(bucket, i);
      if (entry === undefined || !sameElement(entry.element, element)) continue;
      if (isExpired(entry, nowNs)) return { ok: false, error: 'EXIST' };
      bucket.used[i] = false;
      if (i + 1 === bucket.pos) bucket.pos--;
      this.forget(entry);
      let free = 0;
      for (let j = 0; j < bucket.pos; j++) if (!bucket.used[j]) free++;
      if (bucket.pos === 0 && free === 0) {
        this.bucketBytes -= this.extSize(bucket.size);
        this.buckets[key] = undefined;
      } else if (free >= INIT_SLOTS) this.compact(key, bucket);
      return { ok: true };
    }
    return { ok: false, error: 'EXIST' };
  }

  /** A bucket with INIT_SLOTS or more free slots is copied into one INIT_SLOTS smaller, used slots first. */
  private compact(key: number, bucket: Bucket): void {
    const kept: SetEntry<HashElement>[] = [];
    for (let i = 0; i < bucket.pos; i++) if (bucket.used[i]) kept.push(bucket.slots[i]!);
    this.buckets[key] = {
      size: bucket.size - INIT_SLOTS,
      pos: kept.length,
      slots: kept,
      used: kept.map(() => true),
    };
    this.bucketBytes -= this.extSize(INIT_SLOTS);
  }

  /**
   * mtype_test: an element with a full-length prefix (32, or every net type tested with an address) tries each
   * stored prefix, longest first (mtype_test_cidrs); a nomatch member answers "no" and ends the search.
   */
  test(element: HashElement, nowNs: number): SetEntry<HashElement> | undefined {
    const found = this.probe(element, nowNs);
    return found === undefined || found.nomatch ? undefined : found;
  }

  /** What mtype_test finds, nomatch members included (the set match's --return-nomatch wants them). */
  probe(element: HashElement, nowNs: number): SetEntry<HashElement> | undefined {
    this.collect(nowNs);
    if (SET_TYPE_INFO[this.type].withNets && prefixOf(element) === 32) {
      for (const { cidr } of this.prefixes) {
        const found = this.lookup(withPrefix(element, cidr), nowNs);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    return this.lookup(element, nowNs);
  }

  private lookup(element: HashElement, nowNs: number): SetEntry<HashElement> | undefined {
    const bucket = this.buckets[this.key(element)];
    if (bucket === undefined) return undefined;
    for (let i = 0; i < bucket.pos; i++) {
      const entry = memberAt(bucket, i);
      if (entry !== undefined && sameElement(entry.element, element) && !isExpired(entry, nowNs))
        return entry;
    }
    return undefined;
  }

  /** The prefix the kernel-side add/del of a packet's address uses (mtype_kadt: the longest stored, or 32). */
  kernelPrefix(): number {
    return this.prefixes[0]?.cidr ?? 32;
  }

  flush(): void {
    this.buckets = new Array(2 ** this.bits);
    this.elements = 0;
    this.bucketBytes = 0;
    this.commentBytes = 0;
    this.prefixes.length = 0;
  }

  /** The number of members that have not expired. */
  count(nowNs: number): number {
    return this.members(nowNs).length;
  }

  /** mirrors mtype_resize: a table twice the size, members re-added in bucket order, expired ones dropped. */
  private resize(nowNs: number): boolean {
    let bits = this.bits;
    for (;;) {
      bits++;
      if (bits > 31) return false;
      const buckets: (Bucket | undefined)[] = new Array(2 ** bits);
      let bytes = 0;
      let overflow = false;
      for (const old of this.buckets) {
        if (old === undefined) continue;
        for (let i = 0; i < old.pos && !overflow; i++) {
          const entry = memberAt(old, i);
          if (entry === undefined || isExpired(entry, nowNs)) continue;
          const key = this.key(entry.element, bits);
          let bucket = buckets[key];
          if (bucket === undefined) {
            bucket = newBucket();
            buckets[key] = bucket;
            bytes += this.extSize(INIT_SLOTS);
          } else if (bucket.pos >= bucket.size) {
            if (bucket.size >= this.bucketsize) {
              overflow = true;
              break;
            }
            bucket.size += INIT_SLOTS;
            bytes += this.extSize(INIT_SLOTS);
          }
          bucket.used[bucket.pos] = true;
          bucket.slots[bucket.pos++] = entry;
        }
      }
      if (overflow) continue;
      // Expired members the resize left behind are gone for good (their comments and prefixes with them).
      for (const old of this.buckets) {
        if (old === undefined) continue;
        for (let i = 0; i < old.pos; i++) {
          const entry = memberAt(old, i);
          if (entry !== undefined && isExpired(entry, nowNs)) this.forget(entry);
        }
      }
      this.bits = bits;
      this.buckets = buckets;
      this.bucketBytes = bytes;
      return true;
    }
  }

  /**
   * The garbage collector (mtype_gc, mtype_gc_do) on virtual time: a second after creation, then every
   * IPSET_GC_PERIOD(timeout) / regions; each run drops expired members and shrinks a bucket by INIT_SLOTS when it
   * has that many free slots. Runs that fell due since the set was last touched run now, in order.
   */
  private collect(nowNs: number): void {
    if (this.extensions.timeout === undefined) return;
    const regions = this.bits < REGION_BITS ? 1 : 2 ** (this.bits - REGION_BITS);
    const seconds = Math.floor(this.extensions.timeout / 3);
    const period = Math.max(((seconds === 0 ? 1 : Math.min(seconds, GC_TIME)) * 1e9) / regions, 1e8);
    let runs = 0;
    while (this.nextGcAt <= nowNs && runs < 64) {
      this.collectAll(this.nextGcAt);
      this.nextGcAt += period;
      runs++;
    }
    if (this.nextGcAt <= nowNs) this.nextGcAt = nowNs + period;
  }

  /** One pass of mtype_gc_do over every region. */
  private collectAll(atNs: number): void {
    for (let key = 0; key < this.buckets.length; key++) {
      const bucket = this.buckets[key];
      if (bucket === undefined) continue;
      let free = 0;
      for (let i = 0; i < bucket.pos; i++) {
        const entry = memberAt(bucket, i);
        if (entry === undefined) {
          free++;
          continue;
        }
        if (!isExpired(entry, atNs)) continue;
        bucket.used[i] = false;
        this.forget(entry);
        free++;
      }
      if (free < INIT_SLOTS) continue;
      if (free >= bucket.size) {
        this.bucketBytes -= this.extSize(bucket.size);
        this.buckets[key] = undefined;
      } else this.compact(key, bucket);
    }
  }

  /** mtype_add_cidr: counts per prefix length, kept longest first. */
  private addPrefix(cidr: number): void {
    if (!SET_TYPE_INFO[this.type].withNets) return;
    const known = this.prefixes.find((prefix) => prefix.cidr === cidr);
    if (known !== undefined) {
      known.count++;
      return;
    }
    const at = this.prefixes.findIndex((prefix) => prefix.cidr < cidr);
    this.prefixes.splice(at === -1 ? this.prefixes.length : at, 0, { cidr, count: 1 });
  }

  private removePrefix(cidr: number): void {
    if (!SET_TYPE_INFO[this.type].withNets) return;
    const at = this.prefixes.findIndex((prefix) => prefix.cidr === cidr);
    if (at === -1) return;
    if (--this.prefixes[at]!.count === 0) this.prefixes.splice(at, 1);
  }
}
