// A rule's reference to a named stateful object (nft_objref.c: nft_objref_eval): the table's counter, quota or limit
// of that name acts on the packet as its anonymous statement would, its state shared by every rule naming it.
// Not modelled: maps from a key to an object (`counter name ip saddr map { ... }`, nft_objref_map_eval).

import type { NamedObject, NamedObjectType, Table } from '../ir.ts';
import { limitMatches, quotaMatches } from './limit.ts';

/** The table's object of that type and name (nft_obj_lookup; the kernel binds it when the rule is added). */
export function findObject(table: Table, type: NamedObjectType, name: string): NamedObject | undefined {
  const objects = table.objects;
  if (objects === undefined) return undefined;
  for (let i = 0; i < objects.length; i++) {
    const object = objects[i]!;
    if (object.type === type && object.name === name) return object;
  }
  return undefined;
}

/** Whether the rule goes on: a counter always counts and continues; a quota or limit matches as its statement. */
export function objrefMatches(
  table: Table,
  type: NamedObjectType,
  name: string,
  now: number,
  length: number,
): boolean {
  const object = findObject(table, type, name);
  if (object === undefined) return false;
  switch (object.type) {
    case 'counter':
      object.counter.packets++;
      object.counter.bytes += length;
      return true;
    case 'quota':
      return quotaMatches(object.quota, length);
    case 'limit':
      return limitMatches(object.limit, now, length);
  }
}
