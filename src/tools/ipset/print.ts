// What `ipset list` and `ipset save` print (lib/session.c's list/save output with lib/print.c's values): a block
// per set (Name, Type, Revision, Header, Size in memory, References, Number of entries, Members) or `create` and
// `add` lines, members in the set's own order, each with its timeout, nomatch flag, counters and comment.

import { BitmapPortSet } from '../../netfilter/ipset/bitmap-port.ts';
import { SET_TYPE_INFO, type SetElement } from '../../netfilter/ipset/element.ts';
import { type SetEntry, secondsLeft } from '../../netfilter/ipset/extensions.ts';
import { HashSet } from '../../netfilter/ipset/hash-set.ts';
import type { AnySet, NamedSet } from '../../netfilter/ipset/sets.ts';
import { formatElement } from './element-text.ts';

function hex8(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, '0')}`;
}

/** The header words (`family inet hashsize 1024 maxelem 65536 ... bucketsize 12 initval 0x...`). */
function header(set: AnySet): string {
  const words: string[] = [];
  if (set instanceof HashSet) {
    words.push('family inet', `hashsize ${set.hashsize}`, `maxelem ${set.maxelem}`);
    if (set.netmask !== 32) words.push(`netmask ${set.netmask}`);
  } else if (set instanceof BitmapPortSet) words.push(`range ${set.firstPort}-${set.lastPort}`);
  else words.push(`size ${set.size}`);
  const ext = set.extensions;
  if (ext.timeout !== undefined) words.push(`timeout ${ext.timeout}`);
  if (ext.counters) words.push('counters');
  if (ext.comment) words.push('comment');
  if (set instanceof HashSet) words.push(`bucketsize ${set.bucketsize}`, `initval ${hex8(set.initval)}`);
  return words.join(' ');
}

function memorySize(set: AnySet, now: number): number {
  return set instanceof BitmapPortSet ? set.memorySize() : set.memorySize(now);
}

function members(set: AnySet, now: number): SetEntry<SetElement>[] {
  return set.members(now);
}

/** A member with its extensions, in print order: timeout, nomatch, packets and bytes, comment. */
function memberLine(set: AnySet, entry: SetEntry<SetElement>, now: number): string {
  let line = formatElement(entry.element);
  if (set.extensions.timeout !== undefined) line += ` timeout ${secondsLeft(entry.deadline, now)}`;
  if (entry.nomatch) line += ' nomatch';
  if (set.extensions.counters) line += ` packets ${entry.packets} bytes ${entry.bytes}`;
  if (set.extensions.comment && entry.comment !== undefined) line += ` comment "${entry.comment}"`;
  return line;
}

export interface ListOptions {
  /** -t: the headers only. */
  readonly terse: boolean;
  readonly references: (name: string) => number;
}

export function listSets(sets: readonly NamedSet[], now: number, options: ListOptions): string {
  return sets
    .map(({ name, set }) => {
      const entries = members(set, now);
      const lines = [
        `Name: ${name}`,
        `Type: ${set.type}`,
        `Revision: ${SET_TYPE_INFO[set.type].revision}`,
        `Header: ${header(set)}`,
        `Size in memory: ${memorySize(set, now)}`,
        `References: ${options.references(name)}`,
        `Number of entries: ${entries.length}`,
      ];
      if (!options.terse) lines.push('Members:', ...entries.map((entry) => memberLine(set, entry, now)));
      return `${lines.join('\n')}\n`;
    })
    .join('\n');
}

export function saveSets(sets: readonly NamedSet[], now: number): string {
  let out = '';
  for (const { name, set } of sets) {
    out += `create ${name} ${set.type} ${header(set)}\n`;
    for (const entry of members(set, now)) out += `add ${name} ${memberLine(set, entry, now)}\n`;
  }
  return out;
}
