// Comparisons and set lookups (nft_cmp, nft_range, nft_lookup, nft_bitwise's results): constants, prefixes, ranges,
// interface-name wildcards and concatenations; sets are looked up through their persistent index (set-index.ts).

import type { CmpOp, Constant, Expr, NamedSet, SetElement, SetRef, Table, Value } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';
import { readValue } from './selectors.ts';
import { pushElement, removeElementAt, replaceElement, setIndexOf } from './set-index.ts';

type Read = number | string | undefined;

/** True when the value read equals, or lies inside, one constant. */
export function matchesConstant(value: Read, constant: Constant): boolean {
  if (value === undefined) return false;
  switch (constant.kind) {
    case 'number':
      return value === constant.value;
    case 'string':
      if (typeof value !== 'string') return false;
      return constant.wildcard ? value.startsWith(constant.value) : value === constant.value;
    case 'prefix': {
      if (typeof value !== 'number') return false;
      const mask = constant.len === 0 ? 0 : (0xffff_ffff << (32 - constant.len)) >>> 0;
      return (value & mask) >>> 0 === constant.addr >>> 0;
    }
    case 'range':
      return typeof value === 'number' && value >= constant.low && value <= constant.high;
    case 'concat':
      return false;
  }
}

function readAll(state: PacketState, values: readonly Value[], out: Read[]): boolean {
  for (let i = 0; i < values.length; i++) {
    const read = readValue(state, values[i]!);
    if (read === undefined) return false;
    out[i] = read;
  }
  out.length = values.length;
  return true;
}

function matchesKey(reads: readonly Read[], key: Constant): boolean {
  if (key.kind === 'concat') {
    if (key.parts.length !== reads.length) return false;
    for (let i = 0; i < reads.length; i++) if (!matchesConstant(reads[i], key.parts[i]!)) return false;
    return true;
  }
  return reads.length === 1 && matchesConstant(reads[0], key);
}

const scratch: Read[] = [];

/** nft_cmp: `left op right`; a value missing from the packet fails the rule whatever the operator. */
export function evalCmp(state: PacketState, left: readonly Value[], op: CmpOp, right: Constant): boolean {
  if (!readAll(state, left, scratch)) return false;
  if (op === 'eq') return matchesKey(scratch, right);
  if (op === 'ne') return !matchesKey(scratch, right);
  const value = scratch[0];
  if (typeof value !== 'number' || right.kind !== 'number') return false;
  switch (op) {
    case 'lt':
      return value < right.value;
    case 'gt':
      return value > right.value;
    case 'le':
      return value <= right.value;
    case 'ge':
      return value >= right.value;
  }
}

const NO_ELEMENTS: readonly SetElement[] = [];

/** The elements a set reference names, in the rule's table. */
export function elementsOf(set: SetRef, table: Table): readonly SetElement[] {
  if (set.kind === 'anonymous') return set.elements;
  const named: NamedSet | undefined = table.sets.get(set.name);
  return named?.elements ?? NO_ELEMENTS;
}

/** An element whose timeout ran out is no longer in the set (nft_set_elem_expired). */
function live(element: SetElement, now: number): boolean {
  return element.expires === undefined || element.expires > now;
}

/** nft_lookup: the element the packet's key falls in, or undefined. */
export function lookupElement(
  state: PacketState,
  left: readonly Value[],
  set: SetRef,
  table: Table,
): SetElement | undefined | null {
  if (!readAll(state, left, scratch)) return null;
  const index = setIndexOf(elementsOf(set, table));
  const hit = index.findReads(scratch, scratch.length);
  if (hit !== undefined) return live(hit, state.host.now()) ? hit : undefined;
  const scanned = index.scanned;
  for (let i = 0; i < scanned.length; i++) {
    const element = scanned[i]!;
    if (matchesKey(scratch, element.key) && live(element, state.host.now())) return element;
  }
  return undefined;
}

function constantOf(read: Read): Constant {
  return typeof read === 'string'
    ? { kind: 'string', value: read, wildcard: false }
    : { kind: 'number', value: read ?? 0 };
}

/**
 * nft_dynset_eval: `add` puts the packet's key in the set unless it is there, `update` also restarts its timeout
 * (the statement's, else the set's), and either counts the packet on the element's counter
 * (nft_set_elem_update_expr); `delete` takes the key out and always continues. False (the rule stops) when the
 * key cannot be read or the set is full. Runs on new connections only in kube-proxy's use (its nat chains), so the
 * element it makes is the one allocation.
 */
export function updateSet(
  state: PacketState,
  update: Extract<Expr, { kind: 'set-update' }>,
  set: NamedSet,
): boolean {
  if (!readAll(state, update.key, scratch)) return false;
  const now = state.host.now();
  const elements = set.elements;
  const existing = setIndexOf(elements).findReads(scratch, scratch.length);
  if (update.op === 'delete') {
    if (existing !== undefined) removeElementAt(elements, elements.indexOf(existing));
    return true;
  }
  const timeout =
    set.flags.includes('timeout') || set.timeout !== undefined ? (update.timeout ?? set.timeout) : undefined;
  const expires = timeout === undefined ? undefined : now + timeout * 1e6;
  if (existing !== undefined && live(existing, now)) {
    if (existing.counter !== undefined) {
      existing.counter.packets++;
      existing.counter.bytes += state.length;
    }
    if (update.op === 'add' || expires === undefined) return true;
    replaceElement(elements, existing, { ...existing, expires });
    return true;
  }
  if (existing === undefined && set.size !== undefined && elements.length >= set.size) return false;
  const counted = update.counter === true || set.counter === true;
  const element: SetElement = {
    key: scratch.length === 1 ? constantOf(scratch[0]) : { kind: 'concat', parts: scratch.map(constantOf) },
    data: undefined,
    ...(timeout === undefined || timeout === set.timeout ? {} : { timeout }),
    ...(expires === undefined ? {} : { expires }),
    ...(counted ? { counter: { packets: 1, bytes: state.length } } : {}),
  };
  if (existing !== undefined) replaceElement(elements, existing, element);
  else pushElement(elements, element);
  return true;
}
