// `nft monitor` (no type: every ruleset event) as nftables 1.0.6 prints it (monitor.c, netlink_events_*): one line
// per object a committed batch added or deleted, in the kernel's notification order, then `# new generation N by
// process PID (NAME)`; `monitor new|destroy` and object types filter. Not supported: `monitor ruleset`, `--json`,
// flowtables and stateful objects, the warnings nft prints for an element of a set it has not
// cached, the events of other namespaces.

import type { RulesetCommit, RulesetEvent, RulesetStore } from '../ruleset.ts';
import { formatFamilyPriority } from './families.ts';
import { formatElement, formatRule, formatSetDeclaration } from './printer.ts';

/** The line nft prints for one event (monitor.c: netlink_events_{table,chain,set,setelem,rule}_cb). */
export function formatRulesetEvent(event: RulesetEvent): string {
  const { table } = event;
  const where = `${table.family} ${table.name}`;
  switch (event.kind) {
    case 'table':
      return `${event.op} table ${where}\n`;
    case 'chain': {
      const base = event.chain.base;
      if (event.op === 'delete' || base === undefined)
        return `${event.op} chain ${where} ${event.chain.name}\n`;
      return `add chain ${where} ${event.chain.name} { type ${base.type} hook ${base.hook} priority ${formatFamilyPriority(event.table.family, base.hook, base.priority)}; policy ${base.policy}; }\n`;
    }
    case 'set':
      return event.op === 'delete'
        ? `delete set ${where} ${event.set.name}\n`
        : `add ${event.set.dataType === undefined ? 'set' : 'map'} ${where} ${event.set.name} { ${formatSetDeclaration(event.set)} } \n`;
    case 'element':
      return `${event.op} element ${where} ${event.set.name} { ${formatElement(event.set, event.element)} }\n`;
    case 'rule':
      return event.op === 'delete'
        ? `delete rule ${where} ${event.chain.name} handle ${event.rule.handle}\n`
        : `add rule ${where} ${event.chain.name} ${formatRule(event.rule, table)}\n`;
  }
}

export function formatRulesetCommit(commit: RulesetCommit): string {
  let out = '';
  for (const event of commit.events) out += formatRulesetEvent(event);
  return `${out}# new generation ${commit.generation} by process ${commit.pid} (${commit.process})\n`;
}

/**
 * `nft monitor [new|destroy] [tables|chains|sets|rules|elements]` (monitor.c: monitor_flags): only the events of
 * that operation and object; a filtered monitor prints no `# new generation` lines.
 */
export interface MonitorFilter {
  readonly op?: RulesetEvent['op'] | undefined;
  readonly kind?: RulesetEvent['kind'] | undefined;
}

function filtered(commit: RulesetCommit, filter: MonitorFilter): string {
  let out = '';
  for (const event of commit.events)
    if (
      (filter.op === undefined || event.op === filter.op) &&
      (filter.kind === undefined || event.kind === filter.kind)
    )
      out += formatRulesetEvent(event);
  return out;
}

/** A running `nft monitor`: collects the lines of every commit until stop(), like a background process. */
export class RulesetMonitor {
  private out = '';
  private stopped = false;
  private readonly watcher = (commit: RulesetCommit): void => {
    const all = this.filter.op === undefined && this.filter.kind === undefined;
    this.out += all ? formatRulesetCommit(commit) : filtered(commit, this.filter);
  };

  constructor(
    private readonly store: RulesetStore,
    private readonly filter: MonitorFilter = {},
  ) {
    store.watchers.add(this.watcher);
  }

  get done(): boolean {
    return this.stopped;
  }

  get stdout(): string {
    return this.out;
  }

  stop(): { stdout: string; stderr: string; exitCode: number } {
    if (!this.stopped) {
      this.stopped = true;
      this.store.watchers.delete(this.watcher);
    }
    return { stdout: this.out, stderr: '', exitCode: 0 };
  }
}
