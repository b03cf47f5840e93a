// Set elements' stateful parts as nft writes and lists them: `counter packets N bytes M` on an element of a set with
// `counter` (parser_bison.y: counter_stmt in set_elem_expr_options; statement.c: counter_stmt_print), and the
// element options in nft's listing order. Not supported: other per-element expressions (quota, limit, last).

import { replaceElements, sameConstant } from '../expr/set-index.ts';
import type { Constant, DataType, ElementCounter, NamedSet, SetElement } from '../ir.ts';
import type { RawElement } from './ast.ts';
import type { ErrorRecord } from './location.ts';
import type { TokenStream } from './stream.ts';
import { fromDataType, type NftType } from './types.ts';
import { isErrorRecord, resolveValue } from './values.ts';

/** After `counter`: optional `packets N bytes M`; a bare counter starts at zero. */
export function parseElementCounter(s: TokenStream): { packets: number; bytes: number } {
  if (!s.isWord('packets')) return { packets: 0, bytes: 0 };
  s.next();
  const packets = s.number().value;
  s.expectWord('bytes', 'bytes');
  const bytes = s.number().value;
  return { packets, bytes };
}

/** The counter a new element of `set` carries: the one written, or zero for a set with `counter`. */
export function elementCounter(
  set: NamedSet,
  written: { readonly packets: number; readonly bytes: number } | undefined,
): ElementCounter | undefined {
  if (set.counter !== true) return undefined;
  return { packets: written?.packets ?? 0, bytes: written?.bytes ?? 0 };
}

/** ` counter packets N bytes M` (or ` counter` under `nft -s`), as nft prints it after the key. */
export function elementCounterText(element: SetElement, stateless: boolean): string {
  const counter = element.counter;
  if (counter === undefined) return '';
  return stateless ? ' counter' : ` counter packets ${counter.packets} bytes ${counter.bytes}`;
}

/** The interval a plain key covers; undefined for strings and concatenations. */
export function keyInterval(key: Constant): [number, number] | undefined {
  switch (key.kind) {
    case 'number':
      return [key.value, key.value];
    case 'prefix': {
      const host = key.len === 0 ? 0xffff_ffff : ~(0xffff_ffff << (32 - key.len)) >>> 0;
      return [key.addr >>> 0, (key.addr | host) >>> 0];
    }
    case 'range':
      return [key.low, key.high];
    default:
      return undefined;
  }
}

/** A merged interval as the key nft lists: a value, a prefix (addresses on a prefix boundary), or a range. */
export function intervalKey(low: number, high: number, type: DataType | NftType): Constant {
  if (low === high) return { kind: 'number', value: low };
  if (type === 'ipv4_addr') {
    const size = high - low + 1;
    const len = 32 - Math.log2(size);
    if (Number.isInteger(len) && low % size === 0) return { kind: 'prefix', addr: low, len };
  }
  return { kind: 'range', low, high };
}

/**
 * `auto-merge` (segtree.c: set_automerge): a named interval set's overlapping and adjacent elements join into one
 * (`10.0.0.0/8, 11.0.0.0/8` is `10.0.0.0/7`); the joined elements lose their own options. Maps and concatenations
 * are left alone.
 */
export function autoMerge(set: NamedSet): void {
  if (set.autoMerge !== true || !set.flags.includes('interval') || set.dataType !== undefined) return;
  if (set.keyType.length !== 1) return;
  const spans: [number, number, SetElement][] = [];
  for (const element of set.elements) {
    const bounds = keyInterval(element.key);
    if (bounds === undefined) return;
    spans.push([bounds[0], bounds[1], element]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number, SetElement | undefined][] = [];
  for (const [low, high, element] of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && low <= last[1] + 1) {
      if (high > last[1] || low !== last[0]) last[2] = undefined;
      last[1] = Math.max(last[1], high);
    } else merged.push([low, high, element]);
  }
  const type = set.keyType[0]!;
  const elements = merged.map(
    ([low, high, element]) => element ?? { key: intervalKey(low, high, type), data: undefined },
  );
  replaceElements(set.elements, elements);
}

/**
 * `nft get element`: for each key written, the element that holds it (for interval sets the interval it falls in,
 * nft_setelem_get with NFT_SET_ELEM_INTERVAL_END lookups); undefined when one is missing (the kernel's ENOENT).
 */
export function getElements(
  set: NamedSet,
  keys: readonly RawElement[],
): SetElement[] | ErrorRecord | undefined {
  const types = set.keyType.map(fromDataType);
  const found: SetElement[] = [];
  for (const raw of keys) {
    const key = resolveValue(types, raw.key);
    if (isErrorRecord(key)) return key;
    const wanted = keyInterval(key);
    const element = set.elements.find((candidate) => {
      if (wanted === undefined) return sameConstant(candidate.key, key);
      const held = keyInterval(candidate.key);
      return held !== undefined && held[0] <= wanted[0] && wanted[1] <= held[1];
    });
    if (element === undefined) return undefined;
    if (!found.includes(element)) found.push(element);
  }
  return found;
}
