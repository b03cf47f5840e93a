// What each nftables family allows a base chain, as nft 1.0.6 and Linux 6.18 check it: the hooks of the family
// (evaluate.c: chain_evaluate, "The %s family does not support this hook"), the chain types the kernel has for it,
// the priority names and the hooks they may name (rule.c: std_prios, bridge_std_prios, std_prio_family_hook_compat),
// and whether the chain binds to devices (netdev, inet ingress). Not modelled: the route type outside ip/ip6, nat in
// the bridge family (nft_chain_nat has no bridge type on this kernel: ENOENT).

import type { ChainType, Family, HookName } from '../ir.ts';

/** The hooks each family's chains may use (nf_tables_api.c and the family's nft_chain_filter_* type). */
const FAMILY_HOOKS: Readonly<Record<Family, readonly HookName[]>> = {
  ip: ['prerouting', 'input', 'forward', 'output', 'postrouting'],
  ip6: ['prerouting', 'input', 'forward', 'output', 'postrouting'],
  inet: ['prerouting', 'input', 'forward', 'output', 'postrouting', 'ingress'],
  bridge: ['prerouting', 'input', 'forward', 'output', 'postrouting'],
  // nft accepts `forward` for arp (NF_ARP_FORWARD exists) and the kernel refuses it: EOPNOTSUPP.
  arp: ['input', 'forward', 'output'],
  netdev: ['ingress', 'egress'],
};

/** Hooks nft parses for the family but the kernel's chain type refuses (nft_chain_filter_arp: input, output). */
const KERNEL_REFUSED_HOOKS: Readonly<Partial<Record<Family, readonly HookName[]>>> = { arp: ['forward'] };

/** The chain types the kernel registers per family (nft_chain_filter.c, nft_chain_nat.c, nft_chain_route.c). */
const FAMILY_TYPES: Readonly<Record<Family, readonly ChainType[]>> = {
  ip: ['filter', 'nat', 'route'],
  ip6: ['filter', 'nat', 'route'],
  inet: ['filter', 'nat', 'route'],
  bridge: ['filter'],
  arp: ['filter'],
  netdev: ['filter'],
};

interface StandardPriority {
  readonly name: string;
  readonly value: number;
  /** The only hook the name is valid at; undefined for any hook of the family. */
  readonly hook: HookName | undefined;
}

/** rule.c: std_prios (NF_IP_PRI_*), with the nat names limited to their hooks. */
const IP_PRIORITIES: readonly StandardPriority[] = [
  { name: 'raw', value: -300, hook: undefined },
  { name: 'mangle', value: -150, hook: undefined },
  { name: 'dstnat', value: -100, hook: 'prerouting' },
  { name: 'filter', value: 0, hook: undefined },
  { name: 'security', value: 50, hook: undefined },
  { name: 'srcnat', value: 100, hook: 'postrouting' },
];

/** rule.c: bridge_std_prios (NF_BR_PRI_*: NAT_DST_BRIDGED, FILTER_BRIDGED, NAT_DST_OTHER, NAT_SRC). */
const BRIDGE_PRIORITIES: readonly StandardPriority[] = [
  { name: 'dstnat', value: -300, hook: 'prerouting' },
  { name: 'filter', value: -200, hook: undefined },
  { name: 'out', value: 100, hook: 'output' },
  { name: 'srcnat', value: 300, hook: 'postrouting' },
];

/** arp and netdev know only `filter` (0). */
const FILTER_ONLY: readonly StandardPriority[] = [{ name: 'filter', value: 0, hook: undefined }];

/** The priority names a chain of `family` at `hook` may use (checked on nft 1.0.6 for every pair). */
function standardPriorities(family: Family, hook: HookName): readonly StandardPriority[] {
  switch (family) {
    case 'bridge':
      return BRIDGE_PRIORITIES;
    case 'arp':
    case 'netdev':
      return FILTER_ONLY;
    case 'ip':
    case 'ip6':
    case 'inet':
      // inet ingress is a netdev-like hook: no nat names there.
      return hook === 'ingress' ? IP_PRIORITIES.filter((p) => p.hook === undefined) : IP_PRIORITIES;
  }
}

/** The value of a named priority for the family and hook, or undefined when nft refuses the name there. */
export function namedPriority(family: Family, hook: HookName, name: string): number | undefined {
  for (const standard of standardPriorities(family, hook))
    if (standard.name === name && (standard.hook === undefined || standard.hook === hook))
      return standard.value;
  return undefined;
}

/** rule.c: prio2str — a standard name within 10 of the value when valid for the family and hook, else the number. */
export function formatFamilyPriority(family: Family, hook: HookName, priority: number): string {
  for (const standard of standardPriorities(family, hook)) {
    const offset = priority - standard.value;
    if (Math.abs(offset) > 10) continue;
    if (standard.hook !== undefined && standard.hook !== hook) continue;
    if (offset === 0) return standard.name;
    return `${standard.name} ${offset > 0 ? '+' : '-'} ${Math.abs(offset)}`;
  }
  return String(priority);
}

export function familyHasHook(family: Family, hook: HookName): boolean {
  return FAMILY_HOOKS[family].includes(hook);
}

export function kernelRefusesHook(family: Family, hook: HookName): boolean {
  return KERNEL_REFUSED_HOOKS[family]?.includes(hook) ?? false;
}

export function familyHasType(family: Family, type: ChainType): boolean {
  return FAMILY_TYPES[family].includes(type);
}

/** Whether a chain of the family at the hook is bound to devices (and needs `device`/`devices`). */
export function hookNeedsDevice(family: Family, hook: HookName): boolean {
  return (family === 'netdev' || family === 'inet') && (hook === 'ingress' || hook === 'egress');
}

/** The chain's device binding as nft lists it: `device "eth0"` for one, `devices = { a, b }` for several. */
export function formatDevices(devices: readonly string[]): string {
  if (devices.length === 1) return ` device "${devices[0]}"`;
  return ` devices = { ${devices.join(', ')} }`;
}
