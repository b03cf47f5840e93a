// A VXLAN device's remote VTEPs by MAC (the vxlan_fdb entries `bridge fdb append MAC dev flannel.1 dst IP` makes): a Map-like table in typed arrays, iterated in insertion order as a Map is; no per-entry objects, nothing allocated by a lookup.
//
// Entries sit in insertion order in two columns (MAC as a float64, remote IPv4 as a uint32); a deleted entry
// leaves a hole (NaN) that a compaction removes once holes are half the entries. An open-addressing index of
// Int32 slots (entry + 1, 0 empty, backward-shift deletion) finds a MAC. A Map<MacAddr, Ipv4Addr> cost about
// 60 bytes an entry (both numbers boxed above 2^31); this costs about 20.

import type { Ipv4Addr, MacAddr } from '../wire/address.ts';

const MAX_LOAD = 0.6;

function hashMac(mac: MacAddr): number {
  const lo = (mac % 4294967296) | 0;
  const hi = (mac / 4294967296) | 0;
  const h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  return (h ^ (h >>> 15)) >>> 0;
}

function home(hash: number, capacity: number): number {
  return Math.floor((hash * capacity) / 4294967296);
}

export class VxlanFdb implements Iterable<[MacAddr, Ipv4Addr]> {
  private macs = new Float64Array(4);
  private remotes = new Uint32Array(4);
  /** Entries used (live and holes). */
  private used = 0;
  private live = 0;
  private slots = new Int32Array(8);

  get size(): number {
    return this.live;
  }

  /** The remote VTEP of `mac`, undefined when none. */
  get(mac: MacAddr): Ipv4Addr | undefined {
    const at = this.find(mac);
    return at < 0 ? undefined : this.remotes[at];
  }

  has(mac: MacAddr): boolean {
    return this.find(mac) >= 0;
  }

  /** Sets the remote of `mac`; an existing entry keeps its place in the order, as Map.set does. */
  set(mac: MacAddr, remote: Ipv4Addr): this {
    const at = this.find(mac);
    if (at >= 0) {
      this.remotes[at] = remote;
      return this;
    }
    if (this.used === this.macs.length) this.growEntries();
    const entry = this.used++;
    this.macs[entry] = mac;
    this.remotes[entry] = remote;
    this.live++;
    if (this.live > this.slots.length * MAX_LOAD) this.rebuildIndex(Math.ceil(this.slots.length * 1.5) + 1);
    else this.place(entry);
    return this;
  }

  delete(mac: MacAddr): boolean {
    const slot = this.findSlot(mac);
    if (slot < 0) return false;
    const entry = this.slots[slot]! - 1;
    this.unplace(slot);
    this.macs[entry] = Number.NaN;
    this.live--;
    if (this.used > 8 && this.live * 2 < this.used) this.compact();
    return true;
  }

  clear(): void {
    this.used = 0;
    this.live = 0;
    this.slots.fill(0);
  }

  /** [mac, remote] pairs in insertion order (allocates: for dumps, not the packet path). */
  *entries(): IterableIterator<[MacAddr, Ipv4Addr]> {
    for (let i = 0; i < this.used; i++) {
      const mac = this.macs[i]!;
      if (!Number.isNaN(mac)) yield [mac, this.remotes[i]!];
    }
  }

  [Symbol.iterator](): IterableIterator<[MacAddr, Ipv4Addr]> {
    return this.entries();
  }

  private find(mac: MacAddr): number {
    const slot = this.findSlot(mac);
    return slot < 0 ? -1 : this.slots[slot]! - 1;
  }

  private findSlot(mac: MacAddr): number {
    const slots = this.slots;
    const capacity = slots.length;
    let slot = home(hashMac(mac), capacity);
    for (;;) {
      const entry = slots[slot]!;
      if (entry === 0) return -1;
      if (this.macs[entry - 1] === mac) return slot;
      if (++slot === capacity) slot = 0;
    }
  }

  private place(entry: number): void {
    const slots = this.slots;
    const capacity = slots.length;
    let slot = home(hashMac(this.macs[entry]!), capacity);
    while (slots[slot] !== 0) if (++slot === capacity) slot = 0;
    slots[slot] = entry + 1;
  }

  /** Backward-shift deletion, as in the route table's index. */
  private unplace(slot: number): void {
    const slots = this.slots;
    const capacity = slots.length;
    let hole = slot;
    let next = slot + 1 === capacity ? 0 : slot + 1;
    while (slots[next] !== 0) {
      const at = home(hashMac(this.macs[slots[next]! - 1]!), capacity);
      const stays = hole <= next ? at > hole && at <= next : at > hole || at <= next;
      if (!stays) {
        slots[hole] = slots[next]!;
        hole = next;
      }
      next = next + 1 === capacity ? 0 : next + 1;
    }
    slots[hole] = 0;
  }

  private growEntries(): void {
    const capacity = Math.ceil(this.macs.length * 1.25) + 1;
    const macs = new Float64Array(capacity);
    const remotes = new Uint32Array(capacity);
    macs.set(this.macs);
    remotes.set(this.remotes);
    this.macs = macs;
    this.remotes = remotes;
  }

  /** Closes the holes deleted entries left, keeping the order, and re-indexes. */
  private compact(): void {
    let kept = 0;
    for (let i = 0; i < this.used; i++) {
      if (Number.isNaN(this.macs[i]!)) continue;
      this.macs[kept] = this.macs[i]!;
      this.remotes[kept] = this.remotes[i]!;
      kept++;
    }
    this.used = kept;
    this.rebuildIndex(this.slots.length);
  }

  private rebuildIndex(capacity: number): void {
    this.slots = new Int32Array(capacity);
    for (let i = 0; i < this.used; i++) if (!Number.isNaN(this.macs[i]!)) this.place(i);
  }
}
