// The bitmap:port type (ip_set_bitmap_port.c over ip_set_bitmap_gen.h): one bit per port of a range fixed at
// creation, the extension data of every port allocated up front (a port added again after a delete finds the
// counters it had), members listed in port order.

import { SET_TYPE_INFO } from './element.ts';
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
import type { SetResult } from './hash-set.ts';

export type PortElement = { readonly kind: 'bitmap:port'; readonly port: number };

export class BitmapPortSet {
  readonly type = 'bitmap:port';
  private readonly used = new Set<number>();
  /** Each port's extension data, kept across deletes as the kernel's array keeps it. */
  private readonly data = new Map<number, SetEntry<PortElement>>();
  private commentBytes = 0;

  constructor(
    readonly firstPort: number,
    readonly lastPort: number,
    readonly extensions: SetExtensions,
  ) {}

  private get size(): number {
    return this.lastPort - this.firstPort + 1;
  }

  /** mtype_head's memsize: struct bitmap_port, the bitmap in longs, every element's extensions, the comments. */
  memorySize(): number {
    const bitmap = Math.ceil(this.size / 64) * 8;
    return (
      SET_TYPE_INFO['bitmap:port'].emptySize +
      bitmap +
      this.size * elementSize(0, 1, this.extensions) +
      this.commentBytes
    );
  }

  inRange(port: number): boolean {
    return port >= this.firstPort && port <= this.lastPort;
  }

  /** mirrors ip_set_bitmap_gen.h:mtype_add. */
  add(port: number, ext: AddExtensions, exist: boolean, nowNs: number): SetResult {
    if (!this.inRange(port)) return { ok: false, error: 'BITMAP_RANGE' };
    let entry = this.data.get(port);
    if (this.used.has(port) && entry !== undefined) {
      if (!exist && !isExpired(entry, nowNs)) return { ok: false, error: 'EXIST' };
    }
    if (entry === undefined) {
      entry = {
        element: { kind: 'bitmap:port', port },
        nomatch: false,
        deadline: Number.POSITIVE_INFINITY,
        packets: 0,
        bytes: 0,
        comment: undefined,
      };
      this.data.set(port, entry);
    }
    if (this.extensions.timeout !== undefined)
      entry.deadline = deadlineOf(ext.timeout ?? this.extensions.timeout, nowNs);
    if (this.extensions.counters) {
      if (ext.bytes !== undefined) entry.bytes = ext.bytes;
      if (ext.packets !== undefined) entry.packets = ext.packets;
    }
    if (this.extensions.comment) {
      this.commentBytes -= commentSize(entry.comment);
      entry.comment = storedComment(ext.comment);
      this.commentBytes += commentSize(entry.comment);
    }
    this.used.add(port);
    return { ok: true };
  }

  /** mirrors mtype_del: an expired member counts as absent. */
  del(port: number, nowNs: number): SetResult {
    if (!this.inRange(port)) return { ok: false, error: 'BITMAP_RANGE' };
    const entry = this.data.get(port);
    if (!this.used.has(port) || entry === undefined || isExpired(entry, nowNs))
      return { ok: false, error: 'EXIST' };
    this.used.delete(port);
    this.commentBytes -= commentSize(entry.comment);
    entry.comment = undefined;
    return { ok: true };
  }

  test(port: number, nowNs: number): SetEntry<PortElement> | undefined {
    if (!this.inRange(port) || !this.used.has(port)) return undefined;
    const entry = this.data.get(port);
    return entry === undefined || isExpired(entry, nowNs) ? undefined : entry;
  }

  members(nowNs: number): SetEntry<PortElement>[] {
    return [...this.used]
      .sort((a, b) => a - b)
      .map((port) => this.data.get(port)!)
      .filter((entry) => !isExpired(entry, nowNs));
  }

  count(nowNs: number): number {
    return this.members(nowNs).length;
  }

  flush(): void {
    this.used.clear();
    for (const entry of this.data.values()) entry.comment = undefined;
    this.commentBytes = 0;
  }
}
