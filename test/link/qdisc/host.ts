// A test host for a qdisc: a manual clock, a queue runner that records what leaves and when, and the drops.

import { Packet } from '../../../src/core/packet.ts';
import { Scheduler } from '../../../src/core/scheduler.ts';
import type { Qdisc, QdiscHost } from '../../../src/link/qdisc/qdisc.ts';

export interface Departure {
  readonly timeNs: number;
  readonly pkt: Packet;
}

export class QdiscBench {
  readonly scheduler = new Scheduler();
  readonly departures: Departure[] = [];
  readonly dropped: Packet[] = [];

  constructor(readonly qdisc: Qdisc) {
    const host: QdiscHost = {
      scheduler: this.scheduler,
      run: () => this.run(),
      dropped: (pkt) => this.dropped.push(pkt),
    };
    qdisc.attach(host);
  }

  /** dev_queue_xmit with a root qdisc: enqueue, then run the queue. */
  send(pkt: Packet): void {
    this.qdisc.enqueue(pkt);
    this.run();
  }

  /** Sends a frame of `length` bytes whose first two bytes number it. */
  sendNumbered(n: number, length = 100): Packet {
    const pkt = Packet.allocate(length);
    pkt.buf[pkt.start] = n >> 8;
    pkt.buf[pkt.start + 1] = n & 0xff;
    this.send(pkt);
    return pkt;
  }

  private run(): void {
    for (let pkt = this.qdisc.dequeue(); pkt !== null; pkt = this.qdisc.dequeue())
      this.departures.push({ timeNs: this.scheduler.now, pkt });
  }
}

/** The number a frame from sendNumbered carries. */
export function numberOf(pkt: Packet): number {
  return (pkt.buf[pkt.start]! << 8) | pkt.buf[pkt.start + 1]!;
}
