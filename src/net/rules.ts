// Policy routing rules of one namespace (net/core/fib_rules.c with net/ipv4/fib_rules.c); no goto, uidrange, ipproto/sport/dport, l3mdev, suppress_*, realms or tun_id.
//
// Rules are kept in priority order; a new rule goes after the existing rules of the same
// priority (fib_nl_newrule). A rule naming a device that does not exist is kept
// "detached" (ifindex -1) and never matches until a device of that name appears
// (attach_rules/detach_rules on NETDEV_REGISTER/UNREGISTER).

import { type Ipv4Addr, prefixMask } from '../wire/address.ts';
import type { FlowKey } from './fib.ts';
import {
  type KernelError,
  kernelError,
  RT_TABLE_DEFAULT,
  RT_TABLE_LOCAL,
  RT_TABLE_MAIN,
  RTPROT_KERNEL,
  RTPROT_UNSPEC,
} from './route.ts';

/** FR_ACT_TO_TBL, FR_ACT_NOP, FR_ACT_BLACKHOLE, FR_ACT_UNREACHABLE, FR_ACT_PROHIBIT. */
export type RuleAction = 'table' | 'nop' | 'blackhole' | 'unreachable' | 'prohibit';

export interface Rule {
  readonly priority: number;
  /** `not`: FIB_RULE_INVERT, the selector's result is negated. */
  readonly invert: boolean;
  /** `from`: stored as given (host bits may be set; only `srcLen` bits are compared). */
  readonly srcAddr: Ipv4Addr;
  readonly srcLen: number;
  readonly dstAddr: Ipv4Addr;
  readonly dstLen: number;
  /** Legacy TOS selector (0 = any). */
  readonly tos: number;
  readonly fwmark: number;
  /** 0 = mark not compared; a non-zero mark given without mask compares all 32 bits. */
  readonly fwmask: number;
  readonly iifName: string | undefined;
  readonly oifName: string | undefined;
  /** The device the name resolved to: 0 when no name, -1 while no such device exists. */
  readonly iifIndex: number;
  readonly oifIndex: number;
  readonly action: RuleAction;
  /** The table of a `table` action (0 otherwise). */
  readonly table: number;
  /** Who added it: RTPROT_KERNEL for the three default rules, 0 (unspec) for `ip rule add`. */
  readonly protocol: number;
}

type MutableRule = { -readonly [K in keyof Rule]: Rule[K] };

/** What `ip rule add` sends (fib_nl2rule input). */
export interface RuleSpec {
  /** Omitted: fib_default_rule_pref picks one. */
  readonly priority?: number;
  readonly invert?: boolean;
  readonly srcAddr?: Ipv4Addr;
  readonly srcLen?: number;
  readonly dstAddr?: Ipv4Addr;
  readonly dstLen?: number;
  readonly tos?: number;
  readonly fwmark?: number;
  /** Omitted with a non-zero fwmark: all bits compared. */
  readonly fwmask?: number;
  readonly iifName?: string;
  readonly oifName?: string;
  readonly action: RuleAction;
  /** 0 with a `table` action: the kernel allocates an unused table (fib_empty_table). */
  readonly table?: number;
  readonly protocol?: number;
}

/** What `ip rule del` sends: given fields must match (rule_find); absent or zero ones match anything. */
export type RuleSelector = Omit<RuleSpec, 'action'> & { readonly action?: RuleAction };

export type RuleChange = { readonly ok: true; readonly rule: Rule } | KernelError;

/** fib_rule_match + fib4_rule_match for one flow. */
export function ruleMatches(rule: Rule, flow: FlowKey): boolean {
  const matched =
    (rule.iifIndex === 0 || rule.iifIndex === flow.iif) &&
    (rule.oifIndex === 0 || rule.oifIndex === flow.oif) &&
    ((rule.fwmark ^ flow.mark) & rule.fwmask) === 0 &&
    ((flow.srcAddr ^ rule.srcAddr) & prefixMask(rule.srcLen)) === 0 &&
    ((flow.dstAddr ^ rule.dstAddr) & prefixMask(rule.dstLen)) === 0 &&
    (rule.tos === 0 || rule.tos === (flow.tos & 0x1c));
  return rule.invert ? !matched : matched;
}

export class RuleList {
  private readonly list: MutableRule[] = [];

  /** fib_default_rules_init: `0: lookup local`, `32766: lookup main`, `32767: lookup default`. */
  constructor() {
    for (const [priority, table] of [
      [0, RT_TABLE_LOCAL],
      [0x7ffe, RT_TABLE_MAIN],
      [0x7fff, RT_TABLE_DEFAULT],
    ] as const) {
      this.list.push(
        completeRule({ priority, action: 'table', table, protocol: RTPROT_KERNEL }, priority, () => 0),
      );
    }
  }

  /** The rules in evaluation order. The array is live; do not modify it. */
  get all(): readonly Rule[] {
    return this.list;
  }

  /**
   * fib_default_rule_pref: one below the priority of the second rule in the list, or 0
   * when there is no second rule or its priority is 0.
   */
  defaultPriority(): number {
    const second = this.list[1];
    return second !== undefined && second.priority !== 0 ? second.priority - 1 : 0;
  }

  /**
   * fib_nl_newrule with NLM_F_EXCL, as `ip rule add` sends it. `indexOf` resolves device
   * names; `emptyTable` allocates a table for `table 0` (fib_empty_table).
   */
  add(spec: RuleSpec, indexOf: (name: string) => number | undefined, emptyTable: () => number): RuleChange {
    const priority = spec.priority ?? this.defaultPriority();
    const candidate = completeRule(spec, priority, indexOf);
    if (this.list.some((rule) => ruleExists(rule, candidate, spec))) return kernelError('EEXIST');
    // fib4_rule_configure's checks.
    if ((candidate.tos & 0x03) !== 0)
      return kernelError('EINVAL', 'Invalid dsfield (tos): ECN bits must be 0');
    if ((candidate.tos & ~0x1e) !== 0) return kernelError('EINVAL', 'Invalid tos');
    if (candidate.action === 'table' && candidate.table === 0) candidate.table = emptyTable();
    let at = 0;
    while (at < this.list.length && this.list[at]!.priority <= priority) at++;
    this.list.splice(at, 0, candidate);
    return { ok: true, rule: candidate };
  }

  /** fib_nl_delrule: removes the first rule the selector matches (rule_find), else ENOENT. */
  delete(selector: RuleSelector): RuleChange {
    const at = this.list.findIndex((rule) => ruleFound(rule, selector));
    if (at < 0) return kernelError('ENOENT');
    const [rule] = this.list.splice(at, 1);
    return { ok: true, rule: rule! };
  }

  /** attach_rules: a device named `name` now exists with `ifindex`. */
  attachDevice(name: string, ifindex: number): void {
    for (const rule of this.list) {
      if (rule.iifIndex === -1 && rule.iifName === name) rule.iifIndex = ifindex;
      if (rule.oifIndex === -1 && rule.oifName === name) rule.oifIndex = ifindex;
    }
  }

  /** detach_rules: the device `ifindex` is gone. */
  detachDevice(ifindex: number): void {
    for (const rule of this.list) {
      if (rule.iifIndex === ifindex) rule.iifIndex = -1;
      if (rule.oifIndex === ifindex) rule.oifIndex = -1;
    }
  }
}

function completeRule(
  spec: RuleSelector & { readonly action: RuleAction },
  priority: number,
  indexOf: (name: string) => number | undefined,
): MutableRule {
  const fwmark = spec.fwmark ?? 0;
  return {
    priority,
    invert: spec.invert ?? false,
    srcAddr: spec.srcAddr ?? 0,
    srcLen: spec.srcLen ?? 0,
    dstAddr: spec.dstAddr ?? 0,
    dstLen: spec.dstLen ?? 0,
    tos: spec.tos ?? 0,
    fwmark,
    fwmask: spec.fwmask ?? (fwmark !== 0 ? 0xffff_ffff : 0),
    iifName: spec.iifName,
    oifName: spec.oifName,
    iifIndex: spec.iifName === undefined ? 0 : (indexOf(spec.iifName) ?? -1),
    oifIndex: spec.oifName === undefined ? 0 : (indexOf(spec.oifName) ?? -1),
    action: spec.action,
    table: spec.action === 'table' ? (spec.table ?? 0) : 0,
    protocol: spec.protocol ?? RTPROT_UNSPEC,
  };
}

/**
 * rule_exists: every field equal, except that the addresses and TOS are compared only
 * when the new rule has them (fib4_rule_compare) and `not` is not compared at all.
 */
function ruleExists(existing: Rule, candidate: Rule, spec: RuleSpec): boolean {
  return (
    existing.action === candidate.action &&
    existing.table === candidate.table &&
    existing.priority === candidate.priority &&
    existing.iifName === candidate.iifName &&
    existing.oifName === candidate.oifName &&
    existing.fwmark >>> 0 === candidate.fwmark >>> 0 &&
    existing.fwmask >>> 0 === candidate.fwmask >>> 0 &&
    existing.protocol === candidate.protocol &&
    sameAddresses(existing, spec)
  );
}

/** fib4_rule_compare. */
function sameAddresses(rule: Rule, spec: RuleSelector): boolean {
  const srcLen = spec.srcLen ?? 0;
  const dstLen = spec.dstLen ?? 0;
  const tos = spec.tos ?? 0;
  return (
    (srcLen === 0 || (rule.srcLen === srcLen && rule.srcAddr === spec.srcAddr)) &&
    (dstLen === 0 || (rule.dstLen === dstLen && rule.dstAddr === spec.dstAddr)) &&
    (tos === 0 || rule.tos === tos)
  );
}

/** rule_find: a field of the selector takes part only when it is set (non-zero). */
function ruleFound(rule: Rule, sel: RuleSelector): boolean {
  const fwmark = sel.fwmark ?? 0;
  const fwmask = sel.fwmask ?? (fwmark !== 0 ? 0xffff_ffff : 0);
  return (
    (sel.action === undefined || rule.action === sel.action) &&
    (!sel.table || rule.table === sel.table) &&
    (sel.priority === undefined || rule.priority === sel.priority) &&
    (sel.iifName === undefined || rule.iifName === sel.iifName) &&
    (sel.oifName === undefined || rule.oifName === sel.oifName) &&
    (fwmark === 0 || rule.fwmark >>> 0 === fwmark >>> 0) &&
    (fwmask === 0 || rule.fwmask >>> 0 === fwmask >>> 0) &&
    (!sel.protocol || rule.protocol === sel.protocol) &&
    sameAddresses(rule, sel)
  );
}
