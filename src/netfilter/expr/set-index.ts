// One persistent index per set's element list (nft_set_hash's role): every key packed into one number (a hash of its
// concatenated parts, each part a 32-bit word or a name) in an open-addressing table, updated per element as the list
// changes, so `add element` and a packet's lookup cost the same at 10 or 100k elements. Keys with a prefix, range or wildcard part stay in a
// list scanned in order (no interval tree: nft_set_rbtree and pipapo are not modelled).
//
// The index belongs to the array, not to the set: a transaction's copy of a set (ruleset.ts: copyRuleset) gets its
// own index the first time it is changed, so a failed transaction leaves the live set's index as it was. Every change
// to an element list must go through the functions here (pushElement, removeElement, replaceElement,
// clearElements, replaceElements); readers ask `setIndexOf`.

import type { Constant, SetElement } from '../ir.ts';

/** A key part the packet path reads: a number (address, port, mark...) or a name (interface). */
export type KeyRead = number | string | undefined;

/** A slot no element ever took (a probe stops there) and one whose element was removed (a probe goes on). */
const EMPTY = -1;
const REMOVED = -2;
/** Int32 words per slot: a tag, then up to three key parts (one quarter of a cache line). */
const STRIDE = 4;
const PACKED_PARTS = STRIDE - 1;
const HASH_BITS = 0x0fff_ffff;
/** The tag of a slot whose key is not packed (a name, a part above 32 bits, more than three parts, an interval). */
const LOOSE = 0x4000_0000;

/** A packed key's tag: its number's low 28 bits and its part count. */
function packedTag(hash: number, parts: number): number {
  return (hash & HASH_BITS) | (parts << 28);
}

/** The parts of a key kept in its slot: an exact key of at most three parts, each a 32-bit number; else none. */
function packedParts(key: Constant): number[] | undefined {
  const parts = key.kind === 'concat' ? key.parts : [key];
  if (parts.length > PACKED_PARTS) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    if (part.kind !== 'number' || part.value !== part.value >>> 0) return undefined;
    values.push(part.value);
  }
  return values;
}

/**
 * Open addressing (linear probing, at most half full) over one Int32Array of slots, each a tag (the key's number
 * and part count) and the key's parts themselves, beside the elements: a packet's probe compares numbers in one
 * cache line and touches the element only on a hit. Keys that do not pack are verified against the element.
 */
export class SetIndex {
  private table: Int32Array;
  private entries: (SetElement | undefined)[];
  private mask: number;
  /** Slots holding an element, and those holding an element or a removal mark. */
  private used = 0;
  private filled = 0;
  /** Elements whose key has a prefix, range or wildcard part, in list order: a packet scans them after a miss. */
  readonly scanned: SetElement[] = [];

  constructor(elements: readonly SetElement[]) {
    const capacity = capacityFor(elements.length);
    this.table = new Int32Array(capacity * STRIDE).fill(EMPTY);
    this.entries = new Array<SetElement | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    for (const element of elements) this.add(element);
  }

  /** Elements indexed. */
  get size(): number {
    return this.used;
  }

  add(element: SetElement): void {
    if (!isExact(element.key)) this.scanned.push(element);
    if ((this.filled + 1) * 2 > this.entries.length) this.rehash();
    this.insert(element);
  }

  remove(element: SetElement): void {
    if (!isExact(element.key)) {
      const at = this.scanned.indexOf(element);
      if (at >= 0) this.scanned.splice(at, 1);
    }
    const slot = this.slotOf(element);
    if (slot < 0) return;
    this.table[slot * STRIDE] = REMOVED;
    this.entries[slot] = undefined;
    this.used--;
  }

  /** `next` takes the place of `previous` (an element updated in place: its timeout or counter). */
  replace(previous: SetElement, next: SetElement): void {
    if (!sameConstant(previous.key, next.key)) {
      this.remove(previous);
      this.add(next);
      return;
    }
    if (!isExact(next.key)) {
      const at = this.scanned.indexOf(previous);
      if (at >= 0) this.scanned[at] = next;
    }
    const slot = this.slotOf(previous);
    if (slot >= 0) this.entries[slot] = next;
  }

  /** The element whose key is `key` itself (the same kind and fields, as nft compares keys on add and delete). */
  find(key: Constant): SetElement | undefined {
    const hash = hashConstant(key);
    const parts = packedParts(key);
    const tag = parts === undefined ? (hash & HASH_BITS) | LOOSE : packedTag(hash, parts.length);
    const table = this.table;
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = table[slot * STRIDE]!;
      if (held === EMPTY) return undefined;
      if (held === tag) {
        const element = this.entries[slot]!;
        if (sameConstant(element.key, key)) return element;
      }
    }
  }

  /** The first element with an exact key equal to the first `count` reads; no allocation, no string built. */
  findReads(reads: readonly KeyRead[], count: number): SetElement | undefined {
    const hash = hashReads(reads, count);
    const tag = count <= PACKED_PARTS ? packedTag(hash, count) : EMPTY - 2;
    const loose = (hash & HASH_BITS) | LOOSE;
    const table = this.table;
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = slot * STRIDE;
      const held = table[at]!;
      if (held === EMPTY) return undefined;
      if (held === tag) {
        if (packedEqual(table, at + 1, reads, count)) return this.entries[slot];
      } else if (held === loose) {
        const element = this.entries[slot]!;
        if (readsEqual(reads, count, element.key)) return element;
      }
    }
  }

  private insert(element: SetElement): void {
    const key = element.key;
    const hash = hashConstant(key);
    const parts = packedParts(key);
    const mask = this.mask;
    let slot = hash & mask;
    // Never into a removal mark: elements of one key number stay in the order they came.
    while (this.table[slot * STRIDE] !== EMPTY) slot = (slot + 1) & mask;
    const at = slot * STRIDE;
    if (parts === undefined) this.table[at] = (hash & HASH_BITS) | LOOSE;
    else {
      this.table[at] = packedTag(hash, parts.length);
      for (let i = 0; i < parts.length; i++) this.table[at + 1 + i] = parts[i]! | 0;
    }
    this.entries[slot] = element;
    this.used++;
    this.filled++;
  }

  private slotOf(element: SetElement): number {
    const hash = hashConstant(element.key);
    const mask = this.mask;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.table[slot * STRIDE]!;
      if (held === EMPTY) return -1;
      if (held >= 0 && this.entries[slot] === element) return slot;
    }
  }

  /** A table sized for the elements held plus one, without removal marks. */
  private rehash(): void {
    const table = this.table;
    const entries = this.entries;
    const capacity = capacityFor(this.used + 1);
    this.table = new Int32Array(capacity * STRIDE).fill(EMPTY);
    this.entries = new Array<SetElement | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    this.used = 0;
    this.filled = 0;
    for (let slot = 0; slot < entries.length; slot++)
      if (table[slot * STRIDE]! >= 0) this.insert(entries[slot]!);
  }
}

/** Whether the reads are the packed parts at `at`: numbers of 32 bits equal to them. */
function packedEqual(table: Int32Array, at: number, reads: readonly KeyRead[], count: number): boolean {
  for (let i = 0; i < count; i++) {
    const read = reads[i];
    if (typeof read !== 'number' || read !== read >>> 0 || table[at + i] !== (read | 0)) return false;
  }
  return true;
}

/** A power of two at least twice `count` (plus room for one more). */
function capacityFor(count: number): number {
  let capacity = 8;
  while (capacity < count * 2 + 2) capacity *= 2;
  return capacity;
}

const indexes = new WeakMap<readonly SetElement[], SetIndex>();

/** The list's index, built on first use (an anonymous set's list, or a set's list a transaction copied). */
export function setIndexOf(elements: readonly SetElement[]): SetIndex {
  let index = indexes.get(elements);
  if (index === undefined) {
    index = new SetIndex(elements);
    indexes.set(elements, index);
  }
  return index;
}

/** Whether the list has an index already (a transaction's copy that nothing changed has none). */
export function hasSetIndex(elements: readonly SetElement[]): boolean {
  return indexes.has(elements);
}

/**
 * Gives `copy` the index of `original`, whose elements it holds in the same order (a committed transaction's copy
 * of a set it did not change); `original` must not change afterwards.
 */
export function shareSetIndex(original: readonly SetElement[], copy: readonly SetElement[]): void {
  const index = indexes.get(original);
  if (index !== undefined && !indexes.has(copy)) indexes.set(copy, index);
}

export function pushElement(elements: SetElement[], element: SetElement): void {
  setIndexOf(elements).add(element);
  elements.push(element);
}

/** Takes the element at `at` out of the list; returns it. */
export function removeElementAt(elements: SetElement[], at: number): SetElement {
  const element = elements[at]!;
  setIndexOf(elements).remove(element);
  elements.splice(at, 1);
  return element;
}

/** Puts `next` where `previous` is in the list. */
export function replaceElement(elements: SetElement[], previous: SetElement, next: SetElement): void {
  setIndexOf(elements).replace(previous, next);
  elements[elements.indexOf(previous)] = next;
}

export function clearElements(elements: SetElement[]): void {
  elements.length = 0;
  indexes.set(elements, new SetIndex(elements));
}

/** The list becomes `next` (auto-merge's rewrite). */
export function replaceElements(elements: SetElement[], next: readonly SetElement[]): void {
  elements.splice(0, elements.length, ...next);
  indexes.set(elements, new SetIndex(elements));
}

// ---- keys as numbers ------------------------------------------------------------------------------------------

/** A key every part of which a packet's value equals exactly (numbers and plain names), not a prefix or range. */
function isExact(key: Constant): boolean {
  switch (key.kind) {
    case 'number':
      return true;
    case 'string':
      return !key.wildcard;
    case 'concat':
      for (const part of key.parts) if (!isExact(part)) return false;
      return true;
    default:
      return false;
  }
}

const SEED = 0x811c9dc5;
const PREFIX_TAG = 0x5bd1e995;
const RANGE_TAG = 0x1b873593;
const WILDCARD_TAG = 0x27d4eb2d;

/** murmur3's 32-bit mixing step over one word. */
function mixWord(hash: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  const h = hash ^ k;
  return (Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64) | 0;
}

/** A number part: its low 32 bits, and its high bits when it has them (Ethernet addresses). */
function mixNumber(hash: number, value: number): number {
  const mixed = mixWord(hash, value | 0);
  return value > 0xffff_ffff ? mixWord(mixed, (value / 0x1_0000_0000) | 0) : mixed;
}

function mixName(hash: number, name: string): number {
  let h = mixWord(hash, name.length);
  for (let i = 0; i < name.length; i++) h = mixWord(h, name.charCodeAt(i));
  return h;
}

/** A small integer, so the Map keys it without boxing. */
function finish(hash: number): number {
  let h = hash ^ (hash >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h & 0x3fff_ffff;
}

function mixPart(hash: number, part: Constant): number {
  switch (part.kind) {
    case 'number':
      return mixNumber(hash, part.value);
    case 'string':
      return part.wildcard ? mixName(mixWord(hash, WILDCARD_TAG), part.value) : mixName(hash, part.value);
    case 'prefix':
      return mixWord(mixNumber(mixWord(hash, PREFIX_TAG), part.addr), part.len);
    case 'range':
      return mixNumber(mixNumber(mixWord(hash, RANGE_TAG), part.low), part.high);
    case 'concat': {
      let h = hash;
      for (const inner of part.parts) h = mixPart(h, inner);
      return h;
    }
  }
}

/** A key's number: an exact key's equals that of the reads it matches (a one-part concatenation is its part). */
export function hashConstant(key: Constant): number {
  return finish(mixPart(SEED, key));
}

function hashReads(reads: readonly KeyRead[], count: number): number {
  let h = SEED;
  for (let i = 0; i < count; i++) {
    const read = reads[i];
    h = typeof read === 'number' ? mixNumber(h, read) : mixName(h, read ?? '');
  }
  return finish(h);
}

function readEquals(read: KeyRead, part: Constant): boolean {
  if (typeof read === 'number') return part.kind === 'number' && part.value === read;
  return part.kind === 'string' && !part.wildcard && part.value === read;
}

function readsEqual(reads: readonly KeyRead[], count: number, key: Constant): boolean {
  if (key.kind !== 'concat') return count === 1 && readEquals(reads[0], key);
  const parts = key.parts;
  if (parts.length !== count) return false;
  for (let i = 0; i < count; i++) if (!readEquals(reads[i], parts[i]!)) return false;
  return true;
}

/** Two keys are one when they have the same kind and fields (what comparing their JSON texts told before). */
export function sameConstant(a: Constant, b: Constant): boolean {
  switch (a.kind) {
    case 'number':
      return b.kind === 'number' && a.value === b.value;
    case 'string':
      return b.kind === 'string' && a.value === b.value && a.wildcard === b.wildcard;
    case 'prefix':
      return b.kind === 'prefix' && a.addr === b.addr && a.len === b.len;
    case 'range':
      return b.kind === 'range' && a.low === b.low && a.high === b.high;
    case 'concat': {
      if (b.kind !== 'concat' || a.parts.length !== b.parts.length) return false;
      for (let i = 0; i < a.parts.length; i++) if (!sameConstant(a.parts[i]!, b.parts[i]!)) return false;
      return true;
    }
  }
}
