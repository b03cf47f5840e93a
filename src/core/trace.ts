// Typed trace events on one bus per simulation, free when nobody listens; no buffering, no filtering, no replay.
//
// The hot path checks a plain boolean before it builds an event:
//
//   if (trace.wants.drop) trace.emit('drop', { time, netns, dev, reason, frame });
//
// With no listener the check is one property read and no object is allocated. Layers add
// their kinds by editing `TraceEvents` below (and the `wants` initialiser, which the
// compiler then demands). Frames in events are views of the live packet: a listener that
// keeps one must copy it, because the stack goes on rewriting those bytes.

import { EventEmitter } from 'eventemitter3';
import type { DropReason } from './drop-reason.ts';

/** Where an event happened: the virtual time and the namespace and device names. */
export interface TraceSite {
  /** Virtual time, in nanoseconds. */
  readonly time: number;
  /** Network namespace name. */
  readonly netns: string;
  /** Device name (`eth0`, `vxlan.calico`); empty when the event belongs to no device. */
  readonly dev: string;
}

/** A packet dropped; mirrors the `skb:kfree_skb` tracepoint with its drop reason. */
export interface DropEvent extends TraceSite {
  readonly reason: DropReason;
  readonly frame: Uint8Array;
  /** Offset of the IPv4 header in `frame`, or -1 when the frame starts with its Ethernet header. */
  readonly networkOffset: number;
  /** skb->mark when it was freed (pwru's --output-meta shows it). */
  readonly mark: number;
}

/** A frame received (`rx`) or transmitted (`tx`) by a device, as a tap on it would see it. */
export interface FrameEvent extends TraceSite {
  readonly frame: Uint8Array;
}

/** A step of the packet path, named after the kernel function it mirrors. */
export interface StepEvent extends TraceSite {
  /** Function-like name: 'ip_rcv', 'ip_forward', 'br_forward', 'vxlan_xmit', 'neigh_resolve'. */
  readonly step: string;
  /** Human-readable detail, e.g. the route chosen or the fdb entry hit. */
  readonly detail: string;
  readonly frame: Uint8Array;
  /** Offset of the IPv4 header in `frame`, or -1 when the frame starts with its Ethernet header. */
  readonly networkOffset: number;
  /** skb->mark at this step (pwru's --output-meta shows it). */
  readonly mark: number;
}

/**
 * False only in a build that defines `globalThis.PACKETLAB_NO_TRACE` as true (esbuild's `define`): tracing compiled
 * out, which the trace-bus benchmark compares with tracing that nobody listens to. Every trace site tests it before
 * `wants`, so with syntax minification those sites vanish from such a build; everywhere else it is true.
 */
export const TRACING: boolean = (globalThis as { PACKETLAB_NO_TRACE?: boolean }).PACKETLAB_NO_TRACE !== true;

/** Every trace kind and its event; extend here. */
export interface TraceEvents {
  drop: DropEvent;
  rx: FrameEvent;
  tx: FrameEvent;
  step: StepEvent;
}

export type TraceKind = keyof TraceEvents;

export type TraceListener<K extends TraceKind> = (event: TraceEvents[K]) => void;

type EmitterEvents = { [K in TraceKind]: [event: TraceEvents[K]] };

/** The trace bus: subscribe with `on`, check `wants[kind]` before building, then `emit`. */
export class TraceBus {
  /**
   * One boolean per kind, true while the kind has a listener. Read it on the hot path;
   * only `on` and `off` change it.
   */
  readonly wants: Readonly<Record<TraceKind, boolean>>;
  private readonly flags: Record<TraceKind, boolean>;
  private readonly emitter = new EventEmitter<EmitterEvents>();
  private listening = 0;

  constructor() {
    this.flags = { drop: false, rx: false, tx: false, step: false };
    this.wants = this.flags;
  }

  /** True while any kind has a listener. */
  get enabled(): boolean {
    return this.listening > 0;
  }

  /** True while `kind` has a listener (the same as `wants[kind]`). */
  active(kind: TraceKind): boolean {
    return this.flags[kind];
  }

  on<K extends TraceKind>(kind: K, listener: TraceListener<K>): this {
    // The emitter's listener type is a mapped conditional; ours is the same function type.
    this.emitter.on(kind, listener as never);
    this.listening++;
    this.flags[kind] = true;
    return this;
  }

  /** Removes `listener` from `kind` (every registration of it); one not registered is ignored. */
  off<K extends TraceKind>(kind: K, listener: TraceListener<K>): this {
    const before = this.emitter.listenerCount(kind);
    this.emitter.off(kind, listener as never);
    const after = this.emitter.listenerCount(kind);
    this.listening -= before - after;
    this.flags[kind] = after > 0;
    return this;
  }

  /** Delivers `event` to the listeners of `kind`; guard the call with `wants[kind]`. */
  emit<K extends TraceKind>(kind: K, event: TraceEvents[K]): void {
    this.emitter.emit(kind, event as never);
  }
}
