// The list:set type (ip_set_list_set.c): an ordered list of other sets, at most `size` of them, added at the end or
// before/after a member; a packet matches when one member set matches, tried in order. Members hold a reference
// on their set.

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

export type ListElement = { readonly kind: 'list:set'; readonly name: string };

/** Where `add NAME before|after OTHER` puts a member. */
export interface ListPosition {
  readonly where: 'before' | 'after';
  readonly ref: string;
}

export class ListSet {
  readonly type = 'list:set';
  private readonly entries: SetEntry<ListElement>[] = [];

  constructor(
    readonly size: number,
    readonly extensions: SetExtensions,
  ) {}

  memorySize(nowNs: number): number {
    const dsize = elementSize(SET_TYPE_INFO['list:set'].elementLen, 8, this.extensions);
    const comments = this.entries.reduce((total, entry) => total + commentSize(entry.comment), 0);
    return SET_TYPE_INFO['list:set'].emptySize + this.members(nowNs).length * dsize + comments;
  }

  /** mirrors list_set_uadd: a member already there is refused (or updated with -exist). */
  add(
    name: string,
    position: ListPosition | undefined,
    ext: AddExtensions,
    exist: boolean,
    nowNs: number,
  ): SetResult {
    this.expire(nowNs);
    const at = this.entries.findIndex((entry) => entry.element.name === name);
    const refAt =
      position === undefined ? -1 : this.entries.findIndex((entry) => entry.element.name === position.ref);
    if (position !== undefined && refAt === -1) return { ok: false, error: 'REF_EXIST' };
    if (at !== -1) {
      if (!exist) return { ok: false, error: 'EXIST' };
      this.setExtensions(this.entries[at]!, ext, nowNs);
      return { ok: true };
    }
    if (this.entries.length >= this.size) return { ok: false, error: 'LIST_FULL' };
    const entry: SetEntry<ListElement> = {
      element: { kind: 'list:set', name },
      nomatch: false,
      deadline: Number.POSITIVE_INFINITY,
      packets: 0,
      bytes: 0,
      comment: undefined,
    };
    this.setExtensions(entry, ext, nowNs);
    const index =
      position === undefined ? this.entries.length : position.where === 'before' ? refAt : refAt + 1;
    this.entries.splice(index, 0, entry);
    return { ok: true };
  }

  private setExtensions(entry: SetEntry<ListElement>, ext: AddExtensions, nowNs: number): void {
    if (this.extensions.timeout !== undefined)
      entry.deadline = deadlineOf(ext.timeout ?? this.extensions.timeout, nowNs);
    if (this.extensions.counters) {
      if (ext.bytes !== undefined) entry.bytes = ext.bytes;
      if (ext.packets !== undefined) entry.packets = ext.packets;
    }
    if (this.extensions.comment) entry.comment = storedComment(ext.comment);
  }

  /** mirrors list_set_udel: with a position, only when the member sits there. */
  del(name: string, position: ListPosition | undefined, nowNs: number): SetResult {
    this.expire(nowNs);
    const at = this.entries.findIndex((entry) => entry.element.name === name);
    if (at === -1) return { ok: false, error: 'EXIST' };
    if (position !== undefined && !this.isAt(at, position)) return { ok: false, error: 'REF_EXIST' };
    this.entries.splice(at, 1);
    return { ok: true };
  }

  /** list_set_utest: the member, and with a position whether it sits there. */
  test(name: string, position: ListPosition | undefined, nowNs: number): boolean {
    this.expire(nowNs);
    const at = this.entries.findIndex((entry) => entry.element.name === name);
    if (at === -1) return false;
    return position === undefined || this.isAt(at, position);
  }

  private isAt(at: number, position: ListPosition): boolean {
    const neighbour = this.entries[position.where === 'before' ? at + 1 : at - 1];
    return neighbour?.element.name === position.ref;
  }

  members(nowNs: number): SetEntry<ListElement>[] {
    return this.entries.filter((entry) => !isExpired(entry, nowNs));
  }

  count(nowNs: number): number {
    return this.members(nowNs).length;
  }

  /** Whether `name` is a member (it then holds a reference on that set). */
  holds(name: string): boolean {
    return this.entries.some((entry) => entry.element.name === name);
  }

  flush(): void {
    this.entries.length = 0;
  }

  /** list_set_gc / list_set_expire: expired members leave and give back their reference. */
  private expire(nowNs: number): void {
    for (let i = this.entries.length - 1; i >= 0; i--)
      if (isExpired(this.entries[i]!, nowNs)) this.entries.splice(i, 1);
  }
}
