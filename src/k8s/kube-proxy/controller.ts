// kube-proxy's loop on one node: it watches Services and EndpointSlices and, through a BoundedFrequencyRunner-like
// timer on the simulation's scheduler, calls its Proxier for a full sync and runs the commands it returns in the
// node's namespace. The first sync runs at start; later changes are coalesced so two syncs are at least
// minSyncPeriod apart (v1.31's default 1 s). After a sync whose commands all succeeded it runs the UDP conntrack
// cleanup (kube-proxy/conntrack-cleanup.ts) unless `conntrackCleanup` is false; `onSynced` feeds the health servers
// (kube-proxy/health.ts). Not modelled: the periodic syncPeriod resync (it would keep the scheduler busy forever),
// partial syncs.

import type { Scheduler, TimerId } from '../../core/scheduler.ts';
import { NS_PER_MS } from '../../core/scheduler.ts';
import type { Command } from '../plan.ts';
import type { Store } from '../store.ts';
import { nothingToDelete, staleConntrackCommands } from './conntrack-cleanup.ts';
import type { Proxier, ProxierView } from './proxier.ts';

/** The node-level part of a ProxierView (what does not come from the store). */
export type NodeView = Omit<ProxierView, 'services' | 'endpointSlices'>;

export interface KubeProxyOptions {
  readonly store: Store;
  readonly scheduler: Scheduler;
  readonly proxier: Proxier;
  /** The node's namespace name, where the commands run. */
  readonly ns: string;
  readonly node: NodeView;
  /** Runs a command in the node (the cluster's plan runner); returns the exit code and standard error. */
  readonly run: (command: Command) => { readonly exitCode: number; readonly stderr: string };
  /** --iptables-min-sync-period / --nftables-min-sync-period (default 1000 ms). */
  readonly minSyncPeriodMs?: number;
  /**
   * Whether a sync is followed by kube-proxy's `conntrack -D` for stale UDP entries (default true). Off, a client that
   * keeps sending to a UDP Service keeps reaching a deleted endpoint's address (kubernetes#125467's symptom).
   */
  readonly conntrackCleanup?: boolean;
  /** Told after every sync, with its record (the health server's Updated when no command failed). */
  readonly onSynced?: (record: SyncRecord) => void;
}

export interface SyncRecord {
  /** Virtual ns when it ran. */
  readonly at: number;
  readonly first: boolean;
  readonly commands: number;
  /** The failed commands' standard error (kube-proxy logs "Failed to execute iptables-restore" and retries). */
  readonly errors: readonly string[];
  /** The `conntrack -D` commands the cleanup ran after it (none when off or when the sync failed). */
  readonly conntrackDeletes: readonly Command[];
}

export class KubeProxyController {
  private readonly minSyncNs: number;
  private lastSync: number | undefined;
  private timer: TimerId | undefined;
  private unwatch: (() => void)[] = [];
  /** The view of the last successful sync: the cleanup compares against it (kube-proxy's previous maps). */
  private synced: ProxierView | undefined;
  /** Every sync that ran, in order (what kube-proxy's sync metrics would count). */
  readonly syncs: SyncRecord[] = [];

  constructor(private readonly options: KubeProxyOptions) {
    this.minSyncNs = (options.minSyncPeriodMs ?? 1000) * NS_PER_MS;
  }

  /** Watches, and runs the first sync now (kube-proxy syncs once its informers have synced). */
  start(): void {
    const { store } = this.options;
    this.unwatch = [
      store.watch('Service', () => this.request()),
      store.watch('EndpointSlice', () => this.request()),
    ];
    this.sync();
  }

  stop(): void {
    for (const unwatch of this.unwatch) unwatch();
    this.unwatch = [];
    if (this.timer !== undefined) this.options.scheduler.cancel(this.timer);
    this.timer = undefined;
  }

  /** BoundedFrequencyRunner.Run: a sync as soon as minSyncPeriod since the last allows; one pending at most. */
  request(): void {
    if (this.timer !== undefined) return;
    const { scheduler } = this.options;
    const earliest = this.lastSync === undefined ? scheduler.now : this.lastSync + this.minSyncNs;
    this.timer = scheduler.schedule(Math.max(0, earliest - scheduler.now), () => {
      this.timer = undefined;
      this.sync();
    });
  }

  /** A full sync now: the view from the store, the proxier's commands, run in order. */
  sync(): void {
    const { store, proxier, ns, node, scheduler } = this.options;
    const first = this.lastSync === undefined;
    const view: ProxierView = {
      ...node,
      services: store.snapshot('Service'),
      endpointSlices: store.snapshot('EndpointSlice'),
    };
    const commands = proxier.sync(ns, view, first);
    const errors: string[] = [];
    for (const command of commands) {
      const result = this.options.run(command);
      if (result.exitCode !== 0) errors.push(result.stderr.trim());
    }
    // The proxier cleans conntrack only once the restore succeeded, then takes the new maps as its state.
    const restored = errors.length === 0;
    const conntrackDeletes =
      restored && this.options.conntrackCleanup !== false
        ? staleConntrackCommands(ns, this.synced, view)
        : [];
    for (const command of conntrackDeletes) {
      const result = this.options.run(command);
      if (result.exitCode !== 0 && !nothingToDelete(result.stderr)) errors.push(result.stderr.trim());
    }
    if (restored) this.synced = view;
    this.lastSync = scheduler.now;
    const record: SyncRecord = {
      at: scheduler.now,
      first,
      commands: commands.length,
      errors,
      conntrackDeletes,
    };
    this.syncs.push(record);
    this.options.onSynced?.(record);
  }
}
