// kube-proxy's iptables mode as a Proxier: each sync is the `iptables-restore --noflush --counters` kube-proxy runs
// with the ruleset of ruleset.ts on its stdin; the first sync is preceded by what NewProxier and the first full sync
// ensure outside the restore — the KUBE-PROXY-CANARY chains (iptables.Monitor) and the chains and jump rules from the
// built-in chains (iptablesJumpChains, iptablesKubeletJumpChains). The `-C` check before each `-I` is the caller's:
// the commands assume a node where kube-proxy never ran. Does not write sysctls (route_localnet is the node's).

import type { Command } from '../../plan.ts';
import type { Proxier, ProxierView } from '../proxier.ts';
import { RenderCache } from './render-cache.ts';
import { type RulesetOptions, renderRuleset } from './ruleset.ts';

/** The wait flags pkg/util/iptables passes every call (iptables >= 1.6.2: `-w 5 -W 100000`). */
const WAIT = ['-w', '5', '-W', '100000'];

interface JumpChain {
  readonly table: 'filter' | 'nat';
  readonly dstChain: string;
  readonly srcChain: string;
  readonly comment: string;
  readonly extraArgs: readonly string[];
}

const NEW = ['-m', 'conntrack', '--ctstate', 'NEW'];

/** mirrors proxier.go: iptablesJumpChains, then iptablesKubeletJumpChains (KUBE-FIREWALL, no comment). */
const JUMP_CHAINS: readonly JumpChain[] = [
  {
    table: 'filter',
    dstChain: 'KUBE-EXTERNAL-SERVICES',
    srcChain: 'INPUT',
    comment: 'kubernetes externally-visible service portals',
    extraArgs: NEW,
  },
  {
    table: 'filter',
    dstChain: 'KUBE-EXTERNAL-SERVICES',
    srcChain: 'FORWARD',
    comment: 'kubernetes externally-visible service portals',
    extraArgs: NEW,
  },
  {
    table: 'filter',
    dstChain: 'KUBE-NODEPORTS',
    srcChain: 'INPUT',
    comment: 'kubernetes health check service ports',
    extraArgs: [],
  },
  {
    table: 'filter',
    dstChain: 'KUBE-SERVICES',
    srcChain: 'FORWARD',
    comment: 'kubernetes service portals',
    extraArgs: NEW,
  },
  {
    table: 'filter',
    dstChain: 'KUBE-SERVICES',
    srcChain: 'OUTPUT',
    comment: 'kubernetes service portals',
    extraArgs: NEW,
  },
  {
    table: 'filter',
    dstChain: 'KUBE-FORWARD',
    srcChain: 'FORWARD',
    comment: 'kubernetes forwarding rules',
    extraArgs: [],
  },
  {
    table: 'filter',
    dstChain: 'KUBE-PROXY-FIREWALL',
    srcChain: 'INPUT',
    comment: 'kubernetes load balancer firewall',
    extraArgs: NEW,
  },
  {
    table: 'filter',
    dstChain: 'KUBE-PROXY-FIREWALL',
    srcChain: 'OUTPUT',
    comment: 'kubernetes load balancer firewall',
    extraArgs: NEW,
  },
  {
    table: 'filter',
    dstChain: 'KUBE-PROXY-FIREWALL',
    srcChain: 'FORWARD',
    comment: 'kubernetes load balancer firewall',
    extraArgs: NEW,
  },
  {
    table: 'nat',
    dstChain: 'KUBE-SERVICES',
    srcChain: 'OUTPUT',
    comment: 'kubernetes service portals',
    extraArgs: [],
  },
  {
    table: 'nat',
    dstChain: 'KUBE-SERVICES',
    srcChain: 'PREROUTING',
    comment: 'kubernetes service portals',
    extraArgs: [],
  },
  {
    table: 'nat',
    dstChain: 'KUBE-POSTROUTING',
    srcChain: 'POSTROUTING',
    comment: 'kubernetes postrouting rules',
    extraArgs: [],
  },
  { table: 'filter', dstChain: 'KUBE-FIREWALL', srcChain: 'INPUT', comment: '', extraArgs: [] },
  { table: 'filter', dstChain: 'KUBE-FIREWALL', srcChain: 'OUTPUT', comment: '', extraArgs: [] },
];

/** The options of NewProxier as a kind node (kindest/node:v1.31.0, iptables 1.8.9) runs it. */
export const KIND_PROXIER_OPTIONS: RulesetOptions = {
  randomFully: true,
  localhostNodePorts: true,
  nfacct: false,
  conntrackTCPLiberal: false,
  masqueradeAll: false,
  masqueradeMark: undefined,
};

/** The commands of kube-proxy's start (canaries) and first full sync (chains and jumps), before the first restore. */
export function firstSyncCommands(ns: string): Command[] {
  const commands: Command[] = [];
  // iptables.Monitor: EnsureChain(table, KUBE-PROXY-CANARY) for mangle, nat, filter.
  for (const table of ['mangle', 'nat', 'filter'])
    commands.push({ ns, argv: ['iptables', ...WAIT, '-N', 'KUBE-PROXY-CANARY', '-t', table] });
  const created = new Set<string>();
  for (const jump of JUMP_CHAINS) {
    const key = `${jump.table} ${jump.dstChain}`;
    if (!created.has(key)) {
      created.add(key);
      commands.push({ ns, argv: ['iptables', ...WAIT, '-N', jump.dstChain, '-t', jump.table] });
    }
    const comment = jump.comment === '' ? [] : ['-m', 'comment', '--comment', jump.comment];
    commands.push({
      ns,
      argv: [
        'iptables',
        ...WAIT,
        '-I',
        jump.srcChain,
        '-t',
        jump.table,
        ...jump.extraArgs,
        ...comment,
        '-j',
        jump.dstChain,
      ],
    });
  }
  return commands;
}

/**
 * The iptables-mode Proxier; `options` defaults to a kind node's. It remembers, per namespace, the nat chains its last
 * sync kept — what kube-proxy reads back with iptables-save — so the next sync deletes the service chains that went.
 */
export class IptablesProxier implements Proxier {
  readonly mode = 'iptables' as const;
  readonly options: RulesetOptions;
  private readonly natChains = new Map<string, ReadonlySet<string>>();
  /** One rendering per distinct node view: most nodes of a cluster get the same text (render-cache.ts). */
  readonly renders = new RenderCache();

  constructor(options: Partial<RulesetOptions> = {}) {
    this.options = { ...KIND_PROXIER_OPTIONS, ...options };
  }

  /** The restore input one full sync of a fresh node writes (syncProxyRules' iptablesData). */
  render(view: ProxierView): string {
    const none = new Set<string>();
    return this.renders.get(view, none, () => renderRuleset(view, this.options, none)).text;
  }

  sync(ns: string, view: ProxierView, first: boolean): readonly Command[] {
    const existing = first ? new Set<string>() : (this.natChains.get(ns) ?? new Set<string>());
    const rendered = this.renders.get(view, existing, () => renderRuleset(view, this.options, existing));
    this.natChains.set(ns, rendered.activeNatChains);
    const restore: Command = {
      ns,
      argv: ['iptables-restore', ...WAIT, '--noflush', '--counters'],
      stdin: rendered.text,
    };
    return first ? [...firstSyncCommands(ns), restore] : [restore];
  }
}
