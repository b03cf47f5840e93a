// `dnat to ip daddr map { 10.0.0.1 : 192.168.0.1 }` and `dnat to tcp dport map { 80 : 10.0.0.1 . 8080 }` on a
// packet: the key is looked up in the map (nft_lookup with a data register, then nft_nat_eval reading it) and the
// element's data becomes the NAT range of one address (and port). Not supported: address or port ranges as data.

import type { Expr, NatRange, Table } from '../ir.ts';
import type { PacketState } from '../packet-state.ts';
import { lookupElement } from './compare.ts';

type NatExpr = Extract<Expr, { kind: 'nat' }>;

/**
 * The nat statement with the range its map gives this packet, or undefined when the key is not in the map (or a
 * field is missing): nft_lookup_eval breaks the rule there.
 */
export function natFromMap(state: PacketState, expr: NatExpr, table: Table): NatExpr | undefined {
  const map = expr.map;
  if (map === undefined) return expr;
  const element = lookupElement(state, map.key, map.map, table);
  if (element === null || element === undefined) return undefined;
  const data = element.data;
  if (data === undefined) return undefined;
  let addr: number | undefined;
  let port: number | undefined;
  if (data.kind === 'number') addr = data.value;
  else if (data.kind === 'concat' && data.parts[0]?.kind === 'number' && data.parts[1]?.kind === 'number') {
    addr = data.parts[0].value;
    port = data.parts[1].value;
  }
  if (addr === undefined) return undefined;
  const range: NatRange = { addrLow: addr, addrHigh: addr, portLow: port, portHigh: port };
  return { kind: 'nat', type: expr.type, range, flags: expr.flags };
}
