// The IPv4 neighbour table (ARP cache) with Linux's NUD state machine on the virtual clock (net/core/neighbour.c).
//
// States and timers follow neigh_timer_handler: INCOMPLETE retries a broadcast request every
// retrans_time up to mcast_solicit times then FAILS; REACHABLE decays to STALE after a
// reachable_time drawn in [base/2, 3·base/2) (neigh_rand_reach_time); a STALE entry used to
// send moves to DELAY, then PROBE (unicast requests, ucast_solicit times) unless confirmed.
// Not modelled: garbage collection thresholds (gc_thresh1..3), app_solicit, proxy ARP.

import type { Packet } from '../core/packet.ts';
import type { Rng } from '../core/rng.ts';
import type { Scheduler, TimerId } from '../core/scheduler.ts';
import type { Ipv4Addr, MacAddr } from '../wire/address.ts';
import type { Sysctls } from './sysctl.ts';

export type NudState =
  | 'INCOMPLETE'
  | 'REACHABLE'
  | 'STALE'
  | 'DELAY'
  | 'PROBE'
  | 'FAILED'
  | 'PERMANENT'
  | 'NOARP';

export interface Neighbour {
  readonly addr: Ipv4Addr;
  readonly ifindex: number;
  state: NudState;
  lladdr: MacAddr | undefined;
  /** Virtual time of the last confirmation (a reply, or traffic proving reachability). */
  confirmedNs: number;
  /** Virtual time of the last state change or use, for `ip -s neigh`'s used/confirmed/updated. */
  updatedNs: number;
  /** Solicitations sent in the current INCOMPLETE or PROBE phase. */
  probes: number;
  /** Packets waiting for resolution (arp_queue), with their total bytes. */
  queue: Packet[];
  queueBytes: number;
  timer: TimerId | undefined;
  /** True for entries added by `ip neigh add` or flannel: never age, never probe. */
  readonly permanent: boolean;
}

/** What the table asks of the ARP layer: send a request, and learn what happened to queued packets. */
export interface NeighbourOps {
  /** Sends an ARP request for `neigh.addr` out of its device; `unicastTo` for PROBE (known MAC), undefined to broadcast. */
  solicit(neigh: Neighbour, unicastTo: MacAddr | undefined, trigger: Packet | undefined): void;
  /** Resolution succeeded: transmit the packet to `lladdr`. */
  output(neigh: Neighbour, pkt: Packet): void;
  /** Resolution failed: drop the packet (NEIGH_FAILED) and report host unreachable. */
  failed(neigh: Neighbour, pkt: Packet): void;
  /** The queue was full: the oldest waiting packet is dropped (NEIGH_QUEUEFULL). */
  discarded(neigh: Neighbour, pkt: Packet): void;
}

/**
 * The queue of every entry with nothing waiting: one shared empty array, never pushed to (enqueue gives the entry
 * its own first), so a resolved or permanent entry costs no array of its own.
 */
const NO_PACKETS: Packet[] = [];

export class NeighbourTable {
  private readonly entries = new Map<number, Neighbour>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly rng: Rng,
    private readonly sysctls: Sysctls,
    private readonly ops: NeighbourOps,
    private readonly deviceName: (ifindex: number) => string | undefined,
  ) {}

  /** The neighbour parameter of the entry's device (net.ipv4.neigh.<dev>.<name>). */
  private param(neigh: Neighbour, name: Parameters<Sysctls['neigh']>[1]): number {
    return this.sysctls.neigh(this.deviceName(neigh.ifindex), name);
  }

  private static key(ifindex: number, addr: Ipv4Addr): number {
    return ifindex * 0x1_0000_0000 + addr;
  }

  get(ifindex: number, addr: Ipv4Addr): Neighbour | undefined {
    return this.entries.get(NeighbourTable.key(ifindex, addr));
  }

  list(): Neighbour[] {
    return [...this.entries.values()];
  }

  /** `ip neigh add/replace ... lladdr X nud permanent`. */
  addPermanent(ifindex: number, addr: Ipv4Addr, lladdr: MacAddr): Neighbour {
    this.remove(ifindex, addr);
    const neigh = this.create(ifindex, addr, 'PERMANENT', lladdr, true);
    return neigh;
  }

  remove(ifindex: number, addr: Ipv4Addr): boolean {
    const neigh = this.get(ifindex, addr);
    if (neigh === undefined) return false;
    this.cancelTimer(neigh);
    // neigh_destroy: __skb_queue_purge(arp_queue), the queued packets are freed.
    for (const pkt of neigh.queue) pkt.hostQueued = false;
    neigh.queue = NO_PACKETS;
    neigh.queueBytes = 0;
    this.entries.delete(NeighbourTable.key(ifindex, addr));
    return true;
  }

  /** Forgets every entry of a device (link down, device deleted): neigh_ifdown. */
  flushDevice(ifindex: number): void {
    for (const neigh of [...this.entries.values()])
      if (neigh.ifindex === ifindex) this.remove(ifindex, neigh.addr);
  }

  /**
   * neigh_resolve_output: sends `pkt` to the neighbour `addr` on `ifindex`, resolving it first
   * when needed; the packet waits in the entry's queue meanwhile.
   */
  output(ifindex: number, addr: Ipv4Addr, pkt: Packet): void {
    let neigh = this.get(ifindex, addr);
    if (neigh === undefined || neigh.state === 'FAILED') {
      if (neigh !== undefined) this.remove(ifindex, addr);
      neigh = this.create(ifindex, addr, 'INCOMPLETE', undefined, false);
      this.enqueue(neigh, pkt);
      this.startIncomplete(neigh, pkt);
      return;
    }
    switch (neigh.state) {
      case 'INCOMPLETE':
        this.enqueue(neigh, pkt);
        return;
      case 'STALE':
        // __neigh_event_send: first use of a stale entry starts the DELAY timer.
        this.setState(neigh, 'DELAY');
        this.arm(neigh, this.param(neigh, 'delay_first_probe_time') * 1e9);
        this.ops.output(neigh, pkt);
        return;
      case 'REACHABLE':
      case 'DELAY':
      case 'PROBE':
      case 'PERMANENT':
      case 'NOARP':
        this.ops.output(neigh, pkt);
        return;
    }
  }

  /**
   * neigh_update from a received ARP packet. `solicited` (a reply to us) confirms
   * reachability; otherwise the entry only learns the address and becomes STALE.
   * `create` is false for frames that may only update an existing entry (arp_accept=0).
   */
  update(
    ifindex: number,
    addr: Ipv4Addr,
    lladdr: MacAddr,
    options: { solicited: boolean; create: boolean },
  ): void {
    let neigh = this.get(ifindex, addr);
    if (neigh === undefined) {
      if (!options.create) return;
      neigh = this.create(ifindex, addr, 'STALE', lladdr, false);
    }
    if (neigh.permanent) return;
    const changed = neigh.lladdr !== lladdr;
    neigh.lladdr = lladdr;
    if (options.solicited) {
      neigh.confirmedNs = this.scheduler.now;
      this.setState(neigh, 'REACHABLE');
      this.arm(neigh, this.reachableTimeNs(neigh));
    } else if (changed || neigh.state === 'INCOMPLETE' || neigh.state === 'FAILED') {
      this.cancelTimer(neigh);
      this.setState(neigh, 'STALE');
    }
    this.flushQueue(neigh);
  }

  private create(
    ifindex: number,
    addr: Ipv4Addr,
    state: NudState,
    lladdr: MacAddr | undefined,
    permanent: boolean,
  ): Neighbour {
    const now = this.scheduler.now;
    const neigh: Neighbour = {
      addr,
      ifindex,
      state,
      lladdr,
      confirmedNs: now,
      updatedNs: now,
      probes: 0,
      queue: NO_PACKETS,
      queueBytes: 0,
      timer: undefined,
      permanent,
    };
    this.entries.set(NeighbourTable.key(ifindex, addr), neigh);
    return neigh;
  }

  /** __neigh_event_send for a new entry: first broadcast request now, then every retrans_time. */
  private startIncomplete(neigh: Neighbour, trigger: Packet): void {
    neigh.probes = 1;
    this.ops.solicit(neigh, undefined, trigger);
    this.arm(neigh, this.retransNs(neigh));
  }

  /** neigh_timer_handler. */
  private onTimer(neigh: Neighbour): void {
    neigh.timer = undefined;
    const now = this.scheduler.now;
    switch (neigh.state) {
      case 'REACHABLE':
        this.setState(neigh, 'STALE');
        return;
      case 'DELAY':
        if (now - neigh.confirmedNs < this.param(neigh, 'delay_first_probe_time') * 1e9) {
          this.setState(neigh, 'REACHABLE');
          this.arm(neigh, neigh.confirmedNs + this.reachableTimeNs(neigh) - now);
          return;
        }
        this.setState(neigh, 'PROBE');
        neigh.probes = 0;
        this.probe(neigh);
        return;
      case 'PROBE':
        this.probe(neigh);
        return;
      case 'INCOMPLETE':
        if (neigh.probes >= this.param(neigh, 'mcast_solicit')) {
          this.fail(neigh);
          return;
        }
        neigh.probes++;
        this.ops.solicit(neigh, undefined, undefined);
        this.arm(neigh, this.retransNs(neigh));
        return;
      case 'STALE':
      case 'FAILED':
      case 'PERMANENT':
      case 'NOARP':
        return;
    }
  }

  private probe(neigh: Neighbour): void {
    if (neigh.probes >= this.param(neigh, 'ucast_solicit')) {
      this.fail(neigh);
      return;
    }
    neigh.probes++;
    this.ops.solicit(neigh, neigh.lladdr, undefined);
    this.arm(neigh, this.retransNs(neigh));
  }

  /** neigh_invalidate: FAILED, and every queued packet is reported unreachable. */
  private fail(neigh: Neighbour): void {
    this.setState(neigh, 'FAILED');
    const queued = neigh.queue;
    neigh.queue = NO_PACKETS;
    neigh.queueBytes = 0;
    for (const pkt of queued) {
      pkt.hostQueued = false;
      this.ops.failed(neigh, pkt);
    }
  }

  /** Queues while INCOMPLETE, dropping the oldest beyond unres_qlen_bytes (__neigh_event_send). */
  private enqueue(neigh: Neighbour, pkt: Packet): void {
    const limit = this.param(neigh, 'unres_qlen_bytes');
    while (neigh.queue.length > 0 && neigh.queueBytes + pkt.length > limit) {
      const oldest = neigh.queue.shift()!;
      neigh.queueBytes -= oldest.length;
      oldest.hostQueued = false;
      this.ops.discarded(neigh, oldest);
    }
    pkt.hostQueued = true;
    if (neigh.queue === NO_PACKETS) neigh.queue = [];
    neigh.queue.push(pkt);
    neigh.queueBytes += pkt.length;
  }

  private flushQueue(neigh: Neighbour): void {
    if (neigh.queue.length === 0) return;
    const queued = neigh.queue;
    neigh.queue = NO_PACKETS;
    neigh.queueBytes = 0;
    for (const pkt of queued) {
      pkt.hostQueued = false;
      this.ops.output(neigh, pkt);
    }
  }

  private setState(neigh: Neighbour, state: NudState): void {
    neigh.state = state;
    neigh.updatedNs = this.scheduler.now;
  }

  private arm(neigh: Neighbour, delayNs: number): void {
    this.cancelTimer(neigh);
    neigh.timer = this.scheduler.schedule(Math.max(0, delayNs), () => this.onTimer(neigh));
  }

  private cancelTimer(neigh: Neighbour): void {
    if (neigh.timer !== undefined) this.scheduler.cancel(neigh.timer);
    neigh.timer = undefined;
  }

  private retransNs(neigh: Neighbour): number {
    return this.param(neigh, 'retrans_time_ms') * 1e6;
  }

  /** neigh_rand_reach_time: uniform in [base/2, 3·base/2). */
  private reachableTimeNs(neigh: Neighbour): number {
    const baseMs = this.param(neigh, 'base_reachable_time_ms');
    return (Math.floor(baseMs / 2) + this.rng.int(baseMs)) * 1e6;
  }
}
