// The attribute sets of one route table's routes (device, preferred source, scope, protocol, metric, mtu, congctl), each stored once and shared by every route that has it, as the kernel shares a fib_info between aliases; no nexthop objects, no multipath.
//
// Mirrors fib_semantics.c: fib_create_info looks an identical fib_info up (fib_find_info) and takes a reference
// (fib_treeref) instead of making a new one; fib_release_info drops it with the last route. A table of 100k routes
// through a handful of devices holds a handful of sets. Sets live in typed-array columns; the intern index is keyed
// by a string made once per insert (control path only, never per packet).

import type { Ipv4Addr } from '../wire/address.ts';
import type { CongestionAlgorithm, Route } from './route.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The fields of a Route an attribute set holds. */
export type RouteAttributeFields = Pick<
  Route,
  'oif' | 'prefSrc' | 'scope' | 'protocol' | 'metric' | 'mtu' | 'mtuLock' | 'congctl' | 'congctlLock'
>;

// flags: scope (bits 0-7), protocol (8-15), has oif (16), has prefsrc (17), has mtu (18), mtu lock (19),
// congctl (20-21: 0 none, 1 reno, 2 cubic), congctl lock (22).
const HAS_OIF = 1 << 16;
const HAS_SRC = 1 << 17;
const HAS_MTU = 1 << 18;
const MTU_LOCK = 1 << 19;
const CONGCTL_SHIFT = 20;
const CONGCTL_LOCK = 1 << 22;
const CONGCTLS: readonly (CongestionAlgorithm | undefined)[] = [undefined, 'reno', 'cubic'];

export class RouteAttributes {
  private flags = new Int32Array(4);
  private oifs = new Int32Array(4);
  private srcs = new Int32Array(4);
  private metrics = new Float64Array(4);
  private mtus = new Float64Array(4);
  /** Routes using the set; 0 for a free set. */
  private refs = new Int32Array(4);
  private keys: (string | undefined)[] = [];
  private readonly index = new Map<string, number>();
  private readonly free: number[] = [];
  private used = 0;

  /** Sets in use. */
  get size(): number {
    return this.index.size;
  }

  /** The set of `route`'s attributes, created or shared; takes one reference. */
  intern(route: RouteAttributeFields): number {
    const flags =
      (route.scope & 255) |
      ((route.protocol & 255) << 8) |
      (route.oif !== undefined ? HAS_OIF : 0) |
      (route.prefSrc !== undefined ? HAS_SRC : 0) |
      (route.mtu !== undefined ? HAS_MTU : 0) |
      (route.mtuLock ? MTU_LOCK : 0) |
      ((route.congctl === undefined ? 0 : route.congctl === 'reno' ? 1 : 2) << CONGCTL_SHIFT) |
      (route.congctlLock ? CONGCTL_LOCK : 0);
    const oif = route.oif ?? 0;
    const src = route.prefSrc === undefined ? 0 : route.prefSrc | 0;
    const mtu = route.mtu ?? 0;
    const key = `${flags} ${oif} ${src} ${route.metric} ${mtu}`;
    const existing = this.index.get(key);
    if (existing !== undefined) {
      this.refs[existing]!++;
      return existing;
    }
    const set = this.free.pop() ?? this.used++;
    if (set >= this.flags.length) this.grow();
    this.flags[set] = flags;
    this.oifs[set] = oif;
    this.srcs[set] = src;
    this.metrics[set] = route.metric;
    this.mtus[set] = mtu;
    this.refs[set] = 1;
    this.keys[set] = key;
    this.index.set(key, set);
    return set;
  }

  /** Drops one reference (fib_release_info); the set is freed with its last route. */
  release(set: number): void {
    if (--this.refs[set]! > 0) return;
    this.index.delete(this.keys[set]!);
    this.keys[set] = undefined;
    this.free.push(set);
  }

  scope(set: number): number {
    return this.flags[set]! & 255;
  }

  oif(set: number): number | undefined {
    return (this.flags[set]! & HAS_OIF) !== 0 ? this.oifs[set]! : undefined;
  }

  metric(set: number): number {
    return this.metrics[set]!;
  }

  /** Writes the set's fields into a Route record. */
  fill(out: Mutable<RouteAttributeFields>, set: number): void {
    const flags = this.flags[set]!;
    out.oif = (flags & HAS_OIF) !== 0 ? this.oifs[set]! : undefined;
    out.prefSrc = (flags & HAS_SRC) !== 0 ? ((this.srcs[set]! >>> 0) as Ipv4Addr) : undefined;
    out.scope = flags & 255;
    out.protocol = (flags >>> 8) & 255;
    out.metric = this.metrics[set]!;
    out.mtu = (flags & HAS_MTU) !== 0 ? this.mtus[set]! : undefined;
    out.mtuLock = (flags & MTU_LOCK) !== 0;
    out.congctl = CONGCTLS[(flags >>> CONGCTL_SHIFT) & 3];
    out.congctlLock = (flags & CONGCTL_LOCK) !== 0;
  }

  private grow(): void {
    const capacity = this.flags.length * 2;
    const int32 = (old: Int32Array): Int32Array<ArrayBuffer> => {
      const next = new Int32Array(capacity);
      next.set(old);
      return next;
    };
    const float64 = (old: Float64Array): Float64Array<ArrayBuffer> => {
      const next = new Float64Array(capacity);
      next.set(old);
      return next;
    };
    this.flags = int32(this.flags);
    this.oifs = int32(this.oifs);
    this.srcs = int32(this.srcs);
    this.refs = int32(this.refs);
    this.metrics = float64(this.metrics);
    this.mtus = float64(this.mtus);
  }
}
