// The simulation: one virtual clock, one seeded rng, one trace bus and one receive backlog shared by every namespace.

import { Rng } from '../core/rng.ts';
import { Scheduler } from '../core/scheduler.ts';
import { TraceBus } from '../core/trace.ts';
import { Backlog } from '../link/backlog.ts';
import type { MacAddr } from '../wire/address.ts';
import { Namespace } from './namespace.ts';
import { Segment, type SegmentOptions } from './segment.ts';

/** net_ratelimit's interval (5 * HZ) and burst. */
const NET_RATELIMIT_INTERVAL_NS = 5_000_000_000;
const NET_RATELIMIT_BURST = 10;

export interface SimulationOptions {
  /** The seed every random choice derives from; the same seed replays the same bytes. */
  readonly seed?: string | number;
}

export class Simulation {
  readonly scheduler = new Scheduler();
  readonly bus = new TraceBus();
  readonly backlog = new Backlog(this.scheduler);
  readonly rng: Rng;
  private readonly macRng: Rng;
  private readonly namespaces = new Map<string, Namespace>();
  /** How many times a name was removed: a namespace made again under it gets a random stream of its own. */
  private readonly removals = new Map<string, number>();
  /** The simulation's files: what `tcpdump -w` writes and `nft -f` reads, by path. */
  readonly files = new Map<string, Uint8Array>();
  /** The kernel log (what `dmesg` shows): LOG target lines, conntrack's "table full". Shared by every namespace, as in Linux. */
  readonly kernelLog: string[] = [];
  /** When each kernelLog line was logged (virtual ns since the simulation, the machine, started). */
  readonly kernelLogTimes: number[] = [];
  /** proc_alloc_inum's next number for a namespace: PROC_DYNAMIC_FIRST (0xf0000000) plus room for the host's own. */
  private nextNetnsInum = 0xf000_0000 + 256;

  constructor(options: SimulationOptions = {}) {
    this.rng = new Rng(options.seed ?? 'packetlab');
    this.macRng = this.rng.fork('mac');
  }

  get now(): number {
    return this.scheduler.now;
  }

  /** printk: a line in the kernel log, stamped with the virtual time. */
  printk(line: string): void {
    this.kernelLog.push(line);
    this.kernelLogTimes.push(this.scheduler.now);
  }

  // net_ratelimit_state: one for the kernel, 10 messages per 5 s (DEFINE_RATELIMIT_STATE(..., 5 * HZ, 10)).
  private ratelimitBegin = -1;
  private ratelimitPrinted = 0;
  private ratelimitMissed = 0;

  /**
   * net_ratelimit(): whether a networking message may be printed now. Mirrors lib/ratelimit.c:___ratelimit: once the
   * 5 s interval since the first message has passed, `net_ratelimit: N callbacks suppressed` is logged for those
   * refused and a new interval begins; within one, 10 pass.
   */
  netRatelimit(): boolean {
    const now = this.scheduler.now;
    if (this.ratelimitBegin < 0) this.ratelimitBegin = now;
    if (now > this.ratelimitBegin + NET_RATELIMIT_INTERVAL_NS) {
      if (this.ratelimitMissed > 0)
        this.printk(`net_ratelimit: ${this.ratelimitMissed} callbacks suppressed`);
      this.ratelimitMissed = 0;
      this.ratelimitBegin = now;
      this.ratelimitPrinted = 0;
    }
    if (this.ratelimitPrinted < NET_RATELIMIT_BURST) {
      this.ratelimitPrinted++;
      return true;
    }
    this.ratelimitMissed++;
    return false;
  }

  /** The inode number of a new network namespace (proc_alloc_inum), one counter per simulation. */
  allocateNetnsInum(): number {
    return this.nextNetnsInum++;
  }

  /** `ip netns add NAME`: a new namespace with `lo` (down, as Linux creates it). */
  addNamespace(name: string): Namespace {
    if (this.namespaces.has(name)) throw new Error(`namespace ${name} exists`);
    const removals = this.removals.get(name) ?? 0;
    const ns = new Namespace(this, name, removals === 0 ? `netns:${name}` : `netns:${name}#${removals}`);
    this.namespaces.set(name, ns);
    return ns;
  }

  /** An underlay network (a Docker network for kind nodes) to plug node interfaces into. */
  addSegment(name: string, options: SegmentOptions = {}): Segment {
    return new Segment(this, name, options);
  }

  /**
   * `ip netns del NAME` once nothing holds the namespace (cleanup_net): its devices are deleted, a veth taking its
   * peer in another namespace along (default_device_exit_batch), and the name is free again (a namespace made under it
   * later gets a random stream of its own). Timers the namespace armed may still fire; they find no device.
   */
  removeNamespace(ns: Namespace): void {
    if (this.namespaces.get(ns.name) !== ns) throw new Error(`no namespace ${ns.name}`);
    for (const dev of ns.all())
      if (dev.kind !== 'loopback' && ns.byIndex(dev.ifindex) === dev) ns.deleteDevice(dev);
    ns.setDown(ns.loopback);
    this.namespaces.delete(ns.name);
    this.removals.set(ns.name, (this.removals.get(ns.name) ?? 0) + 1);
  }

  namespace(name: string): Namespace {
    const ns = this.namespaces.get(name);
    if (ns === undefined) throw new Error(`no namespace ${name}`);
    return ns;
  }

  hasNamespace(name: string): boolean {
    return this.namespaces.has(name);
  }

  allNamespaces(): Namespace[] {
    return [...this.namespaces.values()];
  }

  /** eth_random_addr: a random unicast, locally administered MAC. */
  randomMac(): MacAddr {
    const high = (this.macRng.u32() & 0xfeff) | 0x0200;
    return high * 0x1_0000_0000 + this.macRng.u32();
  }

  /** Runs every event due now or earlier than `durationNs` from now. */
  run(durationNs = 0): void {
    this.scheduler.runFor(durationNs);
  }

  /** Runs until no event is pending (bounded by the scheduler's event limit). */
  runUntilIdle(): void {
    this.scheduler.runUntilIdle();
  }
}
