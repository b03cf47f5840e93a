// The per-simulation receive backlog: frames handed over by a driver (veth_xmit → netif_rx) wait here and are
// processed in FIFO order at the same virtual instant, like the kernel's process_backlog softirq.
//
// Deferring instead of recursing keeps call stacks flat across long paths (pod → bridge →
// vxlan → underlay → node → pod) and gives a deterministic order. One device+packet ring,
// grown by doubling; no per-frame allocation once warm.

import type { Packet } from '../core/packet.ts';
import type { Scheduler } from '../core/scheduler.ts';

/** Something that accepts a frame off the backlog (a device's `receive`). */
export interface Receiver {
  receive(pkt: Packet): void;
}

export class Backlog {
  private receivers: (Receiver | undefined)[] = new Array(64);
  private packets: (Packet | undefined)[] = new Array(64);
  private head = 0;
  private count = 0;
  private drainScheduled = false;
  /** A drain is running: the caller is in softirq context (a received frame's consequences). */
  draining = false;
  /**
   * A system call holds the one CPU: an application's send whose transmissions run the receive softirq
   * inline (a TCP socket held by its writer). A process woken meanwhile runs once it returns.
   */
  systemCalls = 0;
  private readonly drainNow = (): void => this.drain();
  /** Frames handed out so far: the next one's number. */
  private delivered = 0;
  private currentFrame = -1;
  private currentBehind = 0;

  constructor(private readonly scheduler: Scheduler) {}

  get length(): number {
    return this.count;
  }

  /** Queues a frame for `receiver` (netif_rx) and makes sure a drain runs at the current instant. */
  enqueue(receiver: Receiver, pkt: Packet): void {
    if (this.count === this.packets.length) this.grow();
    const slot = (this.head + this.count) % this.packets.length;
    this.receivers[slot] = receiver;
    this.packets[slot] = pkt;
    this.count++;
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      this.scheduler.schedule(0, this.drainNow);
    }
  }

  /** Delivers every queued frame, including those queued while draining. */
  drain(): void {
    this.drainScheduled = false;
    const outer = this.draining;
    this.draining = true;
    while (this.count > 0) {
      const slot = this.head;
      const receiver = this.receivers[slot]!;
      const pkt = this.packets[slot]!;
      this.receivers[slot] = undefined;
      this.packets[slot] = undefined;
      this.head = (this.head + 1) % this.packets.length;
      this.count--;
      // The frame's number and the frames already waiting behind it, for conntrack's model of receive softirqs
      // running on several CPUs at once (Conntrack.cpus); restored after, as a nested drain numbers its own.
      const frame = this.currentFrame;
      const behind = this.currentBehind;
      this.currentFrame = this.delivered++;
      this.currentBehind = this.count;
      receiver.receive(pkt);
      this.currentFrame = frame;
      this.currentBehind = behind;
    }
    this.draining = outer;
  }

  /** The number of the frame being delivered (they count from 0 in delivery order), or -1 outside a delivery. */
  frame(): number {
    return this.currentFrame;
  }

  /** How many frames were already queued when the current one was taken off the backlog. */
  queuedBehind(): number {
    return this.currentBehind;
  }

  private grow(): void {
    const size = this.packets.length;
    const receivers: (Receiver | undefined)[] = new Array(size * 2);
    const packets: (Packet | undefined)[] = new Array(size * 2);
    for (let i = 0; i < this.count; i++) {
      receivers[i] = this.receivers[(this.head + i) % size];
      packets[i] = this.packets[(this.head + i) % size];
    }
    this.receivers = receivers;
    this.packets = packets;
    this.head = 0;
  }
}
