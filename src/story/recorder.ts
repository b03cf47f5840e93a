// What `packetlab run --pcap/--trace/--mermaid/--metrics` record of a story's simulation, from story.attach(sim) to
// story.result(): one SLL2 capture of every device of every namespace, path-trace and nft-trace lines, a Mermaid
// sequence diagram of the frames crossing veths, and node-exporter counters over virtual time. It only listens
// (trace bus, netfilter trace listeners) and never schedules events, so a recorded run replays the same bytes as
// an unrecorded one. Browser-safe: it returns bytes and text; the command line writes the files.
//
// The recorders are chosen by the caller of `recordStories` (the CLI), so a scenario only has to attach its
// simulation to its story. Not recorded: frames of devices before attach, IPv6, iptables TRACE (xtables-monitor).

import { attachPathTrace } from '../capture/path-trace.ts';
import { LINKTYPE_LINUX_SLL2, PcapWriter } from '../capture/pcap.ts';
import type { FrameEvent } from '../core/trace.ts';
import { Bridge } from '../link/bridge.ts';
import type { NetDevice } from '../link/device.ts';
import { Veth } from '../link/veth.ts';
import type { Rule } from '../netfilter/ir.ts';
import { formatTraceEvent } from '../netfilter/nft/monitor.ts';
import type { NftTraceEvent } from '../netfilter/trace.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import { isMulticastMac, MAC_BROADCAST, readMac, writeMac } from '../wire/address.ts';
import { readU16, writeU16, writeU32 } from '../wire/bytes.ts';
import { ARPHRD_ETHER, ARPHRD_LOOPBACK, SLL2_HEADER_LEN } from '../wire/sll2.ts';
import { MermaidRecorder } from './mermaid.ts';
import { MetricsSampler } from './metrics.ts';

/** Which recorders a run wants (`--pcap`, `--trace`, `--mermaid`, `--metrics`). */
export interface RecordOptions {
  readonly pcap?: boolean;
  readonly trace?: boolean;
  readonly mermaid?: boolean;
  readonly metrics?: boolean;
}

/** What one story's recorders produced, once its result was taken. */
export interface StoryRecording {
  readonly scenario: string;
  /** The pcap file (LINKTYPE_LINUX_SLL2, microsecond timestamps of virtual time), with --pcap. */
  readonly pcap: Uint8Array | undefined;
  /** A Mermaid `sequenceDiagram`, with --mermaid. */
  readonly mermaid: string | undefined;
  /** Prometheus text exposition, with --metrics. */
  readonly metrics: string | undefined;
}

interface Session {
  readonly options: RecordOptions;
  readonly recordings: StoryRecording[];
}

let active: Session | undefined;

/** Runs `run` with the recorders of `options` on every story attached to a simulation meanwhile. */
export function recordStories<T>(
  options: RecordOptions,
  run: () => T,
): { readonly value: T; readonly recordings: StoryRecording[] } {
  const previous = active;
  const session: Session = { options, recordings: [] };
  active = session;
  try {
    return { value: run(), recordings: session.recordings };
  } finally {
    active = previous;
  }
}

/** PACKET_OUTGOING and the other packet types, as linux/if_packet.h numbers them. */
const PACKET_HOST = 0;
const PACKET_BROADCAST = 1;
const PACKET_MULTICAST = 2;
const PACKET_OTHERHOST = 3;
const PACKET_OUTGOING = 4;

/** The recorders of one story, or undefined when no run asked for any. */
export function startRecorder(scenario: string, sim: Simulation): Recorder | undefined {
  const session = active;
  if (session === undefined) return undefined;
  const { pcap, trace, mermaid, metrics } = session.options;
  if (!pcap && !trace && !mermaid && !metrics) return undefined;
  return new Recorder(scenario, sim, session);
}

export class Recorder {
  private readonly writer: PcapWriter | undefined;
  private scratch = new Uint8Array(2048);
  private readonly traceLines: string[] = [];
  private readonly stops: (() => void)[] = [];
  private readonly traced = new Set<string>();
  private readonly mermaid: MermaidRecorder | undefined;
  private readonly metrics: MetricsSampler | undefined;
  private finished: StoryRecording | undefined;

  constructor(
    private readonly scenario: string,
    private readonly sim: Simulation,
    private readonly session: Session,
  ) {
    const options = session.options;
    const bus = sim.bus;
    if (options.pcap) this.writer = new PcapWriter({ linkType: LINKTYPE_LINUX_SLL2, resolution: 'micro' });
    if (options.mermaid) this.mermaid = new MermaidRecorder();
    if (options.metrics) this.metrics = new MetricsSampler(sim);
    if (options.trace) {
      this.stops.push(attachPathTrace(bus, (line) => this.traceLines.push(line)));
      for (const ns of sim.allNamespaces()) this.traceNetfilter(ns);
      // A namespace made after attach shows on the bus (ip_rcv, ip_local_out, rx) before its first hook runs.
      const discover = (event: { readonly netns: string }): void => {
        if (!this.traced.has(event.netns) && sim.hasNamespace(event.netns))
          this.traceNetfilter(sim.namespace(event.netns));
      };
      bus.on('step', discover).on('rx', discover).on('tx', discover);
      this.stops.push(() => bus.off('step', discover).off('rx', discover).off('tx', discover));
    }
    const onRx = (event: FrameEvent): void => this.onFrame(event, 'rx');
    const onTx = (event: FrameEvent): void => this.onFrame(event, 'tx');
    bus.on('rx', onRx).on('tx', onTx);
    this.stops.push(() => bus.off('rx', onRx).off('tx', onTx));
    this.metrics?.observe();
  }

  /** The trace lines printed since the last call. */
  takeTraceLines(): string[] {
    return this.traceLines.splice(0, this.traceLines.length);
  }

  /** A story step happened: a chance to sample the counters. */
  observe(): void {
    this.metrics?.observe();
  }

  /** Stops listening and hands back what was recorded (the same object on every call). */
  finish(): StoryRecording {
    if (this.finished !== undefined) return this.finished;
    this.metrics?.sampleNow();
    for (const stop of this.stops) stop();
    this.finished = {
      scenario: this.scenario,
      pcap: this.writer?.bytes(),
      mermaid: this.mermaid?.diagram(),
      metrics: this.metrics?.exposition(),
    };
    this.session.recordings.push(this.finished);
    return this.finished;
  }

  /** `nft monitor trace` in `ns`, its lines prefixed with the virtual time and the namespace as path-trace's are. */
  private traceNetfilter(ns: Namespace): void {
    this.traced.add(ns.name);
    const netfilter = ns.netfilter;
    // The monitor's counter cache: each rule's counters as they were when tracing began (TraceMonitor does the same).
    const counters = new Map<Rule, { packets: number; bytes: number }>();
    for (const table of netfilter.store.ruleset.tables)
      for (const chain of table.chains.values())
        for (const rule of chain.rules) counters.set(rule, { packets: rule.packets, bytes: rule.bytes });
    const listener = (event: NftTraceEvent): void => {
      const time = this.sim.now;
      const prefix = `${Math.floor(time / 1e9)}.${String(time % 1e9).padStart(9, '0')} ${ns.name.padEnd(12)} `;
      for (const line of formatTraceEvent(event, counters).split('\n'))
        if (line !== '') this.traceLines.push(`${prefix}${line}`);
    };
    netfilter.traceListeners.add(listener);
    this.stops.push(() => netfilter.traceListeners.delete(listener));
  }

  private onFrame(event: FrameEvent, direction: 'rx' | 'tx'): void {
    this.metrics?.observe();
    if (this.writer === undefined && this.mermaid === undefined) return;
    if (!this.sim.hasNamespace(event.netns)) return;
    const dev = this.sim.namespace(event.netns).byName(event.dev);
    if (dev === undefined) return;
    if (this.writer !== undefined) this.capture(event, dev, direction);
    if (this.mermaid !== undefined && direction === 'rx' && dev instanceof Veth && dev.peer !== null)
      this.mermaid.crossing((dev.peer.owner as Namespace).name, event.netns, event.frame);
  }

  /** What `tcpdump -i any` would store for this frame: af_packet's cooked header, then the network layer. */
  private capture(event: FrameEvent, dev: NetDevice, direction: 'rx' | 'tx'): void {
    // libpcap drops the outgoing copy of every frame on lo (pcap-linux.c): it comes back as incoming.
    if (direction === 'tx' && dev.kind === 'loopback') return;
    const frame = event.frame;
    if (frame.length < 14) return;
    const length = SLL2_HEADER_LEN + frame.length - 14;
    if (this.scratch.length < length)
      this.scratch = new Uint8Array(Math.max(length, this.scratch.length * 2));
    const out = this.scratch;
    out.fill(0, 0, SLL2_HEADER_LEN);
    writeU16(out, 0, readU16(frame, 12));
    writeU32(out, 4, dev.ifindex);
    writeU16(out, 8, dev.kind === 'loopback' ? ARPHRD_LOOPBACK : ARPHRD_ETHER);
    out[10] = direction === 'tx' ? PACKET_OUTGOING : this.packetType(dev, frame);
    out[11] = 6;
    writeMac(out, 12, direction === 'tx' ? dev.mac : readMac(frame, 6));
    out.set(frame.subarray(14), SLL2_HEADER_LEN);
    this.writer!.write(event.time, out.subarray(0, length));
  }

  /**
   * skb->pkt_type as eth_type_trans sets it on a received frame. A bridge does not reclassify (br_pass_frame_up):
   * its port's type stands, or PACKET_HOST for the bridge's own address (br_handle_frame); a port's address is
   * taken as the ingress port's, which it is on every path but a frame for one port entering by another.
   */
  private packetType(dev: NetDevice, frame: Uint8Array): number {
    const dst = readMac(frame, 0);
    if (dst === MAC_BROADCAST) return PACKET_BROADCAST;
    if (isMulticastMac(dst)) return PACKET_MULTICAST;
    if (dst === dev.mac || dev.kind === 'loopback') return PACKET_HOST;
    if (dev instanceof Bridge)
      for (const port of dev.ports.values()) if (port.mac === dst) return PACKET_HOST;
    return PACKET_OTHERHOST;
  }
}
