// One namespace's Netfilter: its ruleset, the hook entries that ruleset registers in the IPv4 path (base chains,
// conntrack, NAT, confirm) sorted by priority as nf_register_net_hook keeps them, and the trace listeners.
//
// Per hook, entries run in ascending priority (raw -300, conntrack -200, mangle -150, NAT
// -100/100, filter 0, ..., confirm last). All `type nat` chains of a hook run inside one NAT
// entry, in their own priority order, and only for a connection's first packet: that is
// nf_nat_inet_fn. Conntrack is active in the namespace once a rule needs it (a nat chain or
// a ct expression), as nf_ct_netns_get does.

import type { DropReason } from '../core/drop-reason.ts';
import type { Packet } from '../core/packet.ts';
import type { Scheduler } from '../core/scheduler.ts';
import type { NetDevice } from '../link/device.ts';
import { runBaseChain, type TraceSink } from './chain.ts';
import { Conntrack, IP_CT_NEW } from './conntrack/conntrack.ts';
import { FamilyHooks } from './family-hooks.ts';
import { FlowOffloads } from './flowtable.ts';
import type { NetfilterHost } from './host.ts';
import { IpSets } from './ipset/sets.ts';
import {
  type Chain,
  CONNTRACK_CONFIRM_PRIORITY,
  CONNTRACK_PRIORITY,
  type HookName,
  PRIORITY,
  type Rule,
  type Ruleset,
  type Source,
  type Table,
} from './ir.ts';
import type { NatEngine } from './nat-engine.ts';
import { PacketState } from './packet-state.ts';
import { RulesetStore } from './ruleset.ts';
import { Statements } from './statements.ts';
import type { TraceListener } from './trace.ts';

/** The IPv4 path's hook names (net/ipv4.ts) and nft's. */
const HOOK_OF = {
  PREROUTING: 'prerouting',
  INPUT: 'input',
  FORWARD: 'forward',
  OUTPUT: 'output',
  POSTROUTING: 'postrouting',
} as const satisfies Record<string, HookName>;

/**
 * One hook function. `order` is its registration rank (base chains in creation order); conntrack's and NAT's own
 * functions carry -1 and so stay after the chains that share their priority.
 */
type Entry = {
  readonly priority: number;
  readonly order: number;
  readonly run: (state: PacketState) => DropReason | undefined;
};

export class Netfilter {
  readonly store = new RulesetStore();
  /** `nft monitor trace` and `xtables-monitor --trace` subscribers; empty costs nothing. */
  readonly traceListeners = new Set<TraceListener>();
  readonly conntrack: Conntrack;
  /** Set by the namespace (nat/nat.ts); without it nat chains run but bind nothing. */
  nat: NatEngine | undefined;
  readonly statements: Statements;
  /** The namespace's ipsets (`ipset`, `-m set`, `-j SET`). */
  readonly ipsets: IpSets;
  /** The bridge, netdev and arp families' chains (family-hooks.ts). */
  readonly families: FamilyHooks;
  /** Offloaded connections of the namespace's flowtables (flowtable.ts). */
  readonly flows: FlowOffloads;
  private readonly state: PacketState;
  private conntrackActive = false;
  private entries: Record<HookName, Entry[]> = {
    prerouting: [],
    input: [],
    forward: [],
    output: [],
    postrouting: [],
    ingress: [],
    egress: [],
  };
  private readonly emitTrace: TraceSink = (event) => {
    for (const listener of this.traceListeners) listener(event);
  };

  constructor(
    readonly host: NetfilterHost,
    scheduler: Scheduler,
  ) {
    this.conntrack = new Conntrack();
    this.conntrack.attachScheduler(scheduler);
    if (host.softirq !== undefined) this.conntrack.softirq = host.softirq;
    this.ipsets = new IpSets(host.rng.fork('ipset'), () => host.now());
    this.statements = new Statements(host, this.conntrack, () => this.nat, this.ipsets);
    this.state = new PacketState(host, this.conntrack);
    this.flows = new FlowOffloads(host, this.conntrack);
    this.state.flows = this.flows;
    this.families = new FamilyHooks(host, this.conntrack, this.statements, this.flows, () =>
      this.traceListeners.size > 0 ? this.emitTrace : undefined,
    );
    this.store.onCommit = (ruleset) => {
      this.register(ruleset);
      this.families.register(ruleset);
      this.countSetReferences(ruleset);
    };
    this.store.setExists = (name) => this.ipsets.get(name) !== undefined;
  }

  /** Whether conntrack runs in this namespace (some rule needs it). */
  get tracking(): boolean {
    return this.conntrackActive;
  }

  /** Turns conntrack on even without rules (as loading nf_conntrack and running `conntrack -L` would not, but a test may want). */
  enableConntrack(): void {
    this.conntrackActive = true;
    this.register(this.store.ruleset);
  }

  /** The NetfilterHooks the IPv4 path calls: undefined to go on, or why the packet was dropped. */
  run(
    hook: keyof typeof HOOK_OF,
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): DropReason | undefined {
    const name = HOOK_OF[hook];
    const entries = this.entries[name];
    if (entries.length === 0) return undefined;
    const state = this.state;
    for (const entry of entries) {
      state.reset(pkt, name, inDev, outDev);
      const reason = entry.run(state);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }

  /** The arp family's chains (family-hooks.ts). */
  arp(
    hook: 'input' | 'output',
    pkt: Packet,
    inDev: NetDevice | undefined,
    outDev: NetDevice | undefined,
  ): boolean {
    return this.families.arp(hook, pkt, inDev, outDev);
  }

  /** A packet is dropped: an entry conntrack created for it and never confirmed goes with it. */
  release(pkt: Packet): void {
    this.conntrack.abandon(pkt);
  }

  /** Rebuilds the per-hook entries after a ruleset change (nf_register_net_hook for each base chain). */
  /** The references rules hold on ipsets (xt_set's checkentry takes one per set named), recounted per commit. */
  private countSetReferences(ruleset: Ruleset): void {
    const counts = this.ipsets.ruleReferences;
    counts.clear();
    const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const table of ruleset.tables)
      for (const chain of table.chains.values())
        for (const rule of chain.rules)
          for (const expr of rule.exprs) {
            if (expr.kind === 'match' && expr.options.name === 'set') count(expr.options.setName);
            if (expr.kind === 'ipset-update') {
              if (expr.add !== undefined) count(expr.add.setName);
              if (expr.del !== undefined) count(expr.del.setName);
            }
          }
  }

  private register(ruleset: Ruleset): void {
    const entries: Record<HookName, Entry[]> = {
      prerouting: [],
      input: [],
      forward: [],
      output: [],
      postrouting: [],
      ingress: [],
      egress: [],
    };
    const natChains: Record<HookName, [Table, Chain, number][]> = {
      prerouting: [],
      input: [],
      forward: [],
      output: [],
      postrouting: [],
      ingress: [],
      egress: [],
    };
    let needsConntrack = this.conntrackActive;
    let order = 0;
    for (const table of ruleset.tables) {
      // The IPv4 hooks run ip and inet tables; the other families' chains hook elsewhere (family-hooks.ts).
      if (table.family !== 'ip' && table.family !== 'inet') continue;
      for (const chain of table.chains.values()) {
        if (usesConntrack(chain.rules)) needsConntrack = true;
        const base = chain.base;
        if (base === undefined || base.hook === 'ingress' || base.hook === 'egress') continue;
        order++;
        if (base.type === 'nat') {
          natChains[base.hook].push([table, chain, order]);
          needsConntrack = true;
          continue;
        }
        entries[base.hook].push({
          priority: base.priority,
          order,
          run: (state) => this.runChain(state, table, chain),
        });
      }
    }
    this.conntrackActive = needsConntrack;
    if (needsConntrack) {
      for (const hook of ['prerouting', 'output'] as const)
        entries[hook].push({ priority: CONNTRACK_PRIORITY, order: -1, run: (state) => this.track(state) });
      for (const hook of ['input', 'postrouting'] as const)
        entries[hook].push({
          priority: CONNTRACK_CONFIRM_PRIORITY,
          order: -1,
          run: (state) => this.confirm(state),
        });
      for (const hook of ['prerouting', 'output', 'input', 'postrouting'] as const) {
        const chains: [Table, Chain][] = natChains[hook]
          .sort(([, a, aOrder], [, b, bOrder]) => a.base!.priority - b.base!.priority || bOrder - aOrder)
          .map(([table, chain]) => [table, chain]);
        const priority = hook === 'prerouting' || hook === 'output' ? PRIORITY.dstnat : PRIORITY.srcnat;
        entries[hook].push({ priority, order: -1, run: (state) => this.natHook(state, chains) });
      }
    }
    // Equal priorities run the newest registration first: mirrors core.c:nf_hook_entries_grow, which inserts a new
    // hook before the first one whose priority is not lower (nf_nat_register_fn orders the nat chains the same way).
    for (const hook of Object.keys(entries) as HookName[])
      entries[hook].sort((a, b) => a.priority - b.priority || b.order - a.order);
    this.entries = entries;
  }

  private runChain(state: PacketState, table: Table, chain: Chain): DropReason | undefined {
    const trace = this.traceListeners.size > 0 ? this.emitTrace : undefined;
    return runBaseChain(state, table, chain, this.statements, trace) === 'drop'
      ? 'NETFILTER_DROP'
      : undefined;
  }

  /** nf_conntrack_in at PREROUTING/OUTPUT. */
  private track(state: PacketState): DropReason | undefined {
    const verdict = this.conntrack.process(
      state.pkt,
      state.hook === 'output' ? 'OUTPUT' : 'PREROUTING',
      this.host.now(),
    );
    if (verdict === 'accept') return undefined;
    // __nf_conntrack_alloc (6.17+): a namespace other than init_net is named by its inode number; pr_fmt adds the prefix;
    // net_warn_ratelimited: at most 10 lines per 5 s, then `net_ratelimit: N callbacks suppressed`.
    if (this.host.netRatelimit?.() ?? true)
      this.host.log(
        `nf_conntrack: nf_conntrack: table full in netns ${this.host.netnsInum}, dropping packet`,
      );
    return 'CONNTRACK_TABLE_FULL';
  }

  /** nf_conntrack_confirm at INPUT/POSTROUTING (priority INT_MAX). */
  private confirm(state: PacketState): DropReason | undefined {
    return this.conntrack.confirm(state.pkt, this.host.now()) === 'accept'
      ? undefined
      : 'CONNTRACK_INSERT_FAILED';
  }

  /** nf_nat_inet_fn: nat chains for a new connection (then a null binding if none bound), then nf_nat_packet. */
  private natHook(state: PacketState, chains: [Table, Chain][]): DropReason | undefined {
    const pkt = state.pkt;
    const nat = this.nat;
    if (pkt.ctIndex < 0 || nat === undefined) return undefined;
    const hook = state.hook;
    if (hook === 'forward' || hook === 'ingress' || hook === 'egress') return undefined;
    const manip = hook === 'prerouting' || hook === 'output' ? 'dst' : 'src';
    const now = this.host.now();
    // nf_nat_inet_fn: only a new connection's first packet runs the nat chains; a RELATED ICMP
    // error is translated from its connection's bindings by apply (nf_nat_icmp_reply_translation).
    if (pkt.ctInfo === IP_CT_NEW && !nat.isInitialized(pkt, manip)) {
      const trace = this.traceListeners.size > 0 ? this.emitTrace : undefined;
      for (const [table, chain] of chains) {
        state.reset(pkt, hook, state.inDev, state.outDev);
        if (runBaseChain(state, table, chain, this.statements, trace) === 'drop') return 'NETFILTER_DROP';
        if (nat.isInitialized(pkt, manip)) break;
      }
      if (!nat.isInitialized(pkt, manip)) nat.nullBinding(pkt, manip, now);
    }
    return nat.apply(pkt, hook, now) === 'accept' ? undefined : 'NETFILTER_DROP';
  }
}

/**
 * Rules that need conntrack: ct selectors and statements, notrack (it marks for conntrack), nat statements, and
 * a mark set from the ct mark (`meta mark set ct mark`, CONNMARK --restore-mark): nft_ct_get_init and
 * connmark_tg_check both call nf_ct_netns_get, so loading the rule turns conntrack on.
 */
function usesConntrack(rules: readonly Rule[]): boolean {
  for (const rule of rules)
    for (const expr of rule.exprs) {
      if (expr.kind === 'ct-set' || expr.kind === 'notrack' || expr.kind === 'nat') return true;
      // issue 12, ipt-b: xt_connlimit and xt_helper take conntrack (nf_ct_netns_get) when a rule loads them.
      if (expr.kind === 'match' && (expr.options.name === 'connlimit' || expr.options.name === 'helper'))
        return true;
      // nft_flow_offload_init takes conntrack (nf_ct_netns_get).
      if (expr.kind === 'flow-offload') return true;
      if (expr.kind === 'meta-set' && sourceReadsCt(expr.source)) return true;
      if (
        (expr.kind === 'cmp' || expr.kind === 'lookup' || expr.kind === 'vmap') &&
        expr.left.some((v) => v.selector.kind === 'ct')
      )
        return true;
    }
  return false;
}

function sourceReadsCt(source: Source): boolean {
  if (source.kind === 'constant') return false;
  if (source.value.selector.kind === 'ct') return true;
  return source.kind === 'xor' && source.other.selector.kind === 'ct';
}
