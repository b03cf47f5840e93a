// A namespace's ipsets (ip_set_core.c): sets by index (a new set takes the first free index, which is the order
// `ipset list` prints), create with -exist, destroy, flush, rename, swap, and the references rules and list:set
// members hold, which keep a set from being destroyed or renamed.

import type { Rng } from '../../core/rng.ts';
import { BitmapPortSet } from './bitmap-port.ts';
import type { HashTypeName, SetTypeName } from './element.ts';
import type { SetExtensions } from './extensions.ts';
import { HashSet } from './hash-set.ts';
import { ListSet } from './list-set.ts';

export type AnySet = HashSet | BitmapPortSet | ListSet;

export interface NamedSet {
  name: string;
  set: AnySet;
}

/** IPSET_MAXNAMELEN - 1: the longest set name. */
export const MAX_SET_NAME = 31;

/** The options of `ipset create`, for the types that take them. */
export interface CreateOptions {
  readonly type: SetTypeName;
  readonly extensions: SetExtensions;
  readonly hashsize?: number;
  readonly maxelem?: number;
  readonly bucketsize?: number;
  readonly initval?: number;
  readonly netmask?: number;
  readonly range?: readonly [number, number];
  readonly size?: number;
}

export type SetsError =
  /** IPSET_ERR_EXIST on create: a set of that name exists (and differs, with -exist). */
  | 'SET_EXISTS'
  /** ENOENT: no set of that name. */
  | 'NO_SET'
  | 'REFERENCED'
  | 'TYPE_MISMATCH'
  | 'RENAME_EXISTS';

export type SetsResult = { readonly ok: true } | { readonly ok: false; readonly error: SetsError };

const OK: SetsResult = { ok: true };

/** IPSET_DEFAULT_HASHSIZE, IPSET_DEFAULT_MAXELEM, AHASH_MAX_SIZE, the default list:set size. */
export const DEFAULT_HASHSIZE = 1024;
export const DEFAULT_MAXELEM = 65536;
export const DEFAULT_BUCKETSIZE = 12;
export const DEFAULT_LIST_SIZE = 8;

export class IpSets {
  private readonly slots: (NamedSet | undefined)[] = [];
  /** How many rules name each set (`-m set`, `-j SET`); the rule layer keeps it current. */
  readonly ruleReferences = new Map<string, number>();

  constructor(
    private readonly rng: Rng,
    private readonly now: () => number,
  ) {}

  /** The sets in index order. */
  all(): NamedSet[] {
    return this.slots.filter((slot): slot is NamedSet => slot !== undefined);
  }

  get(name: string): NamedSet | undefined {
    return this.slots.find((slot) => slot?.name === name);
  }

  /** References on a set: rules naming it and list:set sets holding it (set->ref). */
  references(name: string): number {
    let count = this.ruleReferences.get(name) ?? 0;
    for (const slot of this.slots) if (slot?.set instanceof ListSet && slot.set.holds(name)) count++;
    return count;
  }

  /** ip_set_create: a set of an existing name is refused, unless -exist and the same type and options. */
  create(name: string, options: CreateOptions, exist: boolean): SetsResult {
    const set = this.build(options);
    const existing = this.get(name);
    if (existing !== undefined) {
      if (exist && sameSet(existing.set, set)) return OK;
      return { ok: false, error: 'SET_EXISTS' };
    }
    const free = this.slots.indexOf(undefined);
    const named = { name, set };
    if (free === -1) this.slots.push(named);
    else this.slots[free] = named;
    return OK;
  }

  private build(options: CreateOptions): AnySet {
    switch (options.type) {
      case 'bitmap:port':
        return new BitmapPortSet(options.range![0], options.range![1], options.extensions);
      case 'list:set':
        return new ListSet(options.size ?? DEFAULT_LIST_SIZE, options.extensions);
      default:
        return new HashSet({
          type: options.type as HashTypeName,
          hashsize: options.hashsize ?? DEFAULT_HASHSIZE,
          maxelem: options.maxelem ?? DEFAULT_MAXELEM,
          bucketsize: options.bucketsize ?? DEFAULT_BUCKETSIZE,
          // get_random_u32 in the kernel; the namespace's seeded generator here.
          initval: options.initval ?? this.rng.u32(),
          netmask: options.netmask ?? 32,
          extensions: options.extensions,
          createdAt: this.now(),
        });
    }
  }

  /** ip_set_destroy: one set, or every set when `name` is undefined (refused if any is referenced). */
  destroy(name: string | undefined): SetsResult {
    if (name === undefined) {
      if (this.all().some((slot) => this.references(slot.name) > 0))
        return { ok: false, error: 'REFERENCED' };
      this.slots.length = 0;
      return OK;
    }
    const at = this.slots.findIndex((slot) => slot?.name === name);
    if (at === -1) return { ok: false, error: 'NO_SET' };
    if (this.references(name) > 0) return { ok: false, error: 'REFERENCED' };
    this.slots[at] = undefined;
    while (this.slots.length > 0 && this.slots.at(-1) === undefined) this.slots.pop();
    return OK;
  }

  /** ip_set_rename: refused while referenced or when the new name is taken. */
  rename(from: string, to: string): SetsResult {
    const named = this.get(from);
    if (named === undefined) return { ok: false, error: 'NO_SET' };
    if (this.references(from) > 0) return { ok: false, error: 'REFERENCED' };
    if (this.get(to) !== undefined) return { ok: false, error: 'RENAME_EXISTS' };
    named.name = to;
    return OK;
  }

  /** ip_set_swap: the contents trade places, the names and indexes stay; the types (and families) must match. */
  swap(first: string, second: string): SetsResult {
    const a = this.get(first);
    const b = this.get(second);
    if (a === undefined || b === undefined) return { ok: false, error: 'NO_SET' };
    if (a.set.type !== b.set.type) return { ok: false, error: 'TYPE_MISMATCH' };
    const set = a.set;
    a.set = b.set;
    b.set = set;
    return OK;
  }
}

/** mtype_same_set and the create check around it: same type, and the options that matter (not hashsize). */
function sameSet(a: AnySet, b: AnySet): boolean {
  if (a.type !== b.type) return false;
  const sameExtensions =
    a.extensions.timeout === b.extensions.timeout &&
    a.extensions.counters === b.extensions.counters &&
    a.extensions.comment === b.extensions.comment;
  if (a instanceof HashSet && b instanceof HashSet)
    return sameExtensions && a.maxelem === b.maxelem && a.netmask === b.netmask;
  if (a instanceof BitmapPortSet && b instanceof BitmapPortSet)
    return sameExtensions && a.firstPort === b.firstPort && a.lastPort === b.lastPort;
  if (a instanceof ListSet && b instanceof ListSet) return sameExtensions && a.size === b.size;
  return false;
}
