// Interface indexes in nft rules (datatype.c ifindex_type_parse / ifindex_type_print): a name written against
// `meta iif`/`oif`/`sdif` or `fib ... oif` becomes the device's ifindex when the rule is added, and an index lists
// as the device's current name (a number when no device has it). Not modelled: wildcards against an index type.

import type { Constant } from '../ir.ts';
import { type ErrorRecord, errorAt, type Location } from './location.ts';
import type { NftType } from './types.ts';

/** The namespace's devices, as nft asks the kernel for them (if_nametoindex, if_indextoname). */
export interface InterfaceNames {
  ifindex(name: string): number | undefined;
  ifname(ifindex: number): string | undefined;
}

/** Replaces the names at the `iface` parts of `constant` by their indexes; a name no device has is refused. */
export function resolveInterfaces(
  types: readonly NftType[],
  constant: Constant | ErrorRecord,
  interfaces: InterfaceNames | undefined,
  loc: Location,
): Constant | ErrorRecord {
  if (interfaces === undefined || 'message' in constant || !types.includes('iface')) return constant;
  if (constant.kind === 'concat' && types.length > 1) {
    const parts: Constant[] = [];
    for (let i = 0; i < constant.parts.length; i++) {
      const part = resolveInterfaces([types[i]!], constant.parts[i]!, interfaces, loc);
      if ('message' in part) return part;
      parts.push(part);
    }
    return { kind: 'concat', parts };
  }
  if (constant.kind !== 'string') return constant;
  const ifindex = interfaces.ifindex(constant.value);
  if (ifindex === undefined) return errorAt(loc, 'Interface does not exist');
  return { kind: 'number', value: ifindex };
}

/** The constant as nft lists it: each `iface` index a device has becomes that device's name. */
export function namedInterfaces(
  types: readonly NftType[],
  constant: Constant,
  ifname: ((ifindex: number) => string | undefined) | undefined,
): Constant {
  if (ifname === undefined || !types.includes('iface')) return constant;
  if (constant.kind === 'concat' && types.length > 1)
    return {
      kind: 'concat',
      parts: constant.parts.map((part, i) => namedInterfaces([types[i]!], part, ifname)),
    };
  if (constant.kind !== 'number' || types[0] !== 'iface') return constant;
  const name = ifname(constant.value);
  return name === undefined ? constant : { kind: 'string', value: name, wildcard: false };
}
