// The root queueing discipline on a device's egress (struct Qdisc): enqueue, dequeue, a watchdog on the virtual clock
// and the counters `tc -s qdisc` prints; no classes, no filters, no child qdiscs, one transmit queue.
//
// A device with no root qdisc is `noqueue` (what Linux gives veth, bridge, vxlan and lo): its
// frames go straight to the driver. A device with one hands each frame to `enqueue`, then runs
// the queue (`qdisc_run`): `dequeue` until it returns null, each frame to the driver. A qdisc
// that holds frames for later (netem's delay, tbf's tokens) arms its watchdog
// (qdisc_watchdog_schedule_ns), which runs the queue again at that instant. The device knows
// nothing of the kind of qdisc it carries.

import type { Packet } from '../../core/packet.ts';
import type { Scheduler } from '../../core/scheduler.ts';

export type QdiscKind = 'netem' | 'tbf';

/** struct gnet_stats_basic + gnet_stats_queue: what `tc -s qdisc show` prints. */
export class QdiscStats {
  /** Bytes and packets handed to the driver (qdisc_bstats_update at dequeue). */
  bytes = 0;
  packets = 0;
  drops = 0;
  overlimits = 0;
  requeues = 0;
  /** Bytes and packets waiting in the queue. */
  backlog = 0;
  qlen = 0;
}

/** What a qdisc's owner gives it: the clock, the queue runner, and the one place a qdisc drop is reported. */
export interface QdiscHost {
  readonly scheduler: Scheduler;
  /** Runs the queue now (qdisc_run): the watchdog calls it when held frames become due. */
  run(): void;
  /** Reports a frame the qdisc dropped (kfree_skb with SKB_DROP_REASON_QDISC_DROP); the qdisc counted it. */
  dropped(pkt: Packet): void;
}

export abstract class Qdisc {
  abstract readonly kind: QdiscKind;
  /** The handle's major number (`8001:` is 0x8001); the minor is always 0 for a root qdisc. */
  readonly handle: number;
  readonly stats = new QdiscStats();
  protected host: QdiscHost | null = null;
  private watchdogTimer = -1;
  private watchdogAt = -1;
  private readonly fire = (): void => {
    this.watchdogTimer = -1;
    this.watchdogAt = -1;
    this.host?.run();
  };

  constructor(handle: number) {
    this.handle = handle;
  }

  /** Grafts the qdisc onto a device (qdisc_graft); `detach` undoes it. */
  attach(host: QdiscHost): void {
    this.host = host;
  }

  /** Removes the qdisc from its device: the watchdog stops and queued frames are freed (qdisc_reset, qdisc_put). */
  detach(): void {
    this.cancelWatchdog();
    this.reset();
    this.host = null;
  }

  /** Takes one frame (->enqueue); a frame it drops is counted in `stats.drops` and reported to the host. */
  abstract enqueue(pkt: Packet): void;

  /** The next frame due for the driver (->dequeue), or null: empty, or waiting (the watchdog is then armed). */
  abstract dequeue(): Packet | null;

  /** Frees every queued frame (->reset). */
  protected abstract reset(): void;

  /** Counts and reports a drop (qdisc_drop). */
  protected drop(pkt: Packet): void {
    this.stats.drops++;
    this.host?.dropped(pkt);
  }

  /** Reports a frame freed without counting it (__qdisc_drop of a second skb for one event). */
  protected discard(pkt: Packet): void {
    this.host?.dropped(pkt);
  }

  /** The virtual time, in nanoseconds. */
  protected get now(): number {
    return this.host === null ? 0 : this.host.scheduler.now;
  }

  /** qdisc_watchdog_schedule_ns: run the queue at `atNs`; an armed watchdog moves there unless already set for it. */
  protected scheduleWatchdog(atNs: number): void {
    const host = this.host;
    if (host === null) return;
    if (this.watchdogTimer !== -1) {
      if (this.watchdogAt === atNs) return;
      host.scheduler.cancel(this.watchdogTimer);
    }
    const at = Math.max(atNs, host.scheduler.now);
    this.watchdogAt = atNs;
    this.watchdogTimer = host.scheduler.scheduleAt(at, this.fire);
  }

  private cancelWatchdog(): void {
    if (this.watchdogTimer === -1 || this.host === null) return;
    this.host.scheduler.cancel(this.watchdogTimer);
    this.watchdogTimer = -1;
    this.watchdogAt = -1;
  }
}
