// What an ipset keeps beside each member (ip_set_core.c's extensions): a timeout, packet and byte counters, a
// comment; their per-element size, and the shapes an add or a match passes in. No skbinfo (skbmark, skbprio,
// skbqueue) extension.

/** The extensions a set was created with (`timeout N`, `counters`, `comment`). */
export interface SetExtensions {
  /** The default element timeout in seconds (0: permanent by default), or undefined without timeout support. */
  readonly timeout: number | undefined;
  readonly counters: boolean;
  readonly comment: boolean;
}

/** What one add brings besides the element; undefined fields keep (counters) or take the set's default. */
export interface AddExtensions {
  readonly timeout?: number;
  readonly packets?: number;
  readonly bytes?: number;
  readonly comment?: string;
}

/** One member and its extension data. */
export interface SetEntry<E> {
  element: E;
  nomatch: boolean;
  /** Virtual time (ns) it expires at; Infinity when permanent or without timeout support. */
  deadline: number;
  packets: number;
  bytes: number;
  comment: string | undefined;
}

/** IPSET_MAX_COMMENT_SIZE: longer comments are cut. */
export const MAX_COMMENT_SIZE = 255;
/** The largest timeout userspace accepts: UINT_MAX / MSEC_PER_SEC... as ipset 7.17 bounds it. */
export const MAX_TIMEOUT = 2_147_483;
/** sizeof(struct ip_set_comment_rcu) before the string. */
const COMMENT_HEADER = 16;

function align(length: number, to: number): number {
  return Math.ceil(length / to) * to;
}

/**
 * mirrors ip_set_core.c:ip_set_elem_len: the element struct, then each extension at its alignment (timeout: an
 * unsigned long; counters: two atomic64; comment: a pointer), the whole rounded to the largest alignment.
 */
export function elementSize(elementLen: number, elementAlign: number, ext: SetExtensions): number {
  let length = elementLen;
  let largest = elementAlign;
  const add = (size: number) => {
    largest = Math.max(largest, 8);
    length = align(length, 8) + size;
  };
  if (ext.timeout !== undefined) add(8);
  if (ext.counters) add(16);
  if (ext.comment) add(8);
  return align(length, largest);
}

/** What a comment costs in "Size in memory" (ip_set_init_comment's set->ext_size). */
export function commentSize(comment: string | undefined): number {
  return comment === undefined || comment === '' ? 0 : COMMENT_HEADER + comment.length + 1;
}

/** The comment as stored: cut at IPSET_MAX_COMMENT_SIZE, none when empty. */
export function storedComment(comment: string | undefined): string | undefined {
  if (comment === undefined || comment === '') return undefined;
  return comment.length > MAX_COMMENT_SIZE ? comment.slice(0, MAX_COMMENT_SIZE) : comment;
}

/** ip_set_timeout_set: the deadline of `seconds` from `nowNs`, 0 meaning permanent. */
export function deadlineOf(seconds: number, nowNs: number): number {
  return seconds === 0 ? Number.POSITIVE_INFINITY : nowNs + seconds * 1e9;
}

/** ip_set_timeout_get: whole seconds left (0 for a permanent element). */
export function secondsLeft(deadline: number, nowNs: number): number {
  if (deadline === Number.POSITIVE_INFINITY) return 0;
  return Math.max(0, Math.floor((deadline - nowNs) / 1e9));
}

export function isExpired(entry: SetEntry<unknown>, nowNs: number): boolean {
  return entry.deadline !== Number.POSITIVE_INFINITY && nowNs > entry.deadline;
}
