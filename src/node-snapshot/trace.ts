// Sends one packet through a rebuilt node (`packetlab trace`): an nft table sets nftrace for that packet only, the
// packet is received on an interface (sent from its far end, in the wire namespace) or sent by a local process,
// and the report holds what `nft monitor trace` printed, the path trace of the node's namespace with skb->mark at
// every step, the verdict (dropped with its reason, delivered, or sent on which device as which tuple) and the
// rule counters that moved. Not traced: the packets it causes on other namespaces, IPv6, iptables' TRACE target.

import { describeTuple } from '../capture/path-trace.ts';
import type { DropEvent, FrameEvent, StepEvent } from '../core/trace.ts';
import { packetSend } from '../link/packet-socket.ts';
import { Veth } from '../link/veth.ts';
import type { Rule } from '../netfilter/ir.ts';
import { formatTraceEvent } from '../netfilter/nft/monitor.ts';
import type { NftTraceEvent } from '../netfilter/trace.ts';
import { runArgv } from '../tools/exec.ts';
import { formatMac, readMac } from '../wire/address.ts';
import {
  formatPacketSpec,
  type PacketSpec,
  TRACE_SOURCE_MAC,
  traceFrame,
  traceRuleset,
  transportBytes,
} from './packet-spec.ts';
import type { RebuiltNode } from './rebuild.ts';

export interface TraceReport {
  /** The nft table added to set nftrace for this packet. */
  readonly ruleset: string;
  /** `nft monitor trace`'s lines, as nft 1.0.6 prints them. */
  readonly monitor: readonly string[];
  /** The path trace (pwru style) of the node's namespace, each line ending with the packet's mark. */
  readonly path: readonly string[];
  /** What became of the packet, then what it caused, one line each. */
  readonly verdict: readonly string[];
  /** Rule counters that moved: `iptables-save -c` and `nft list ruleset` lines, before (`-`) and after (`+`). */
  readonly counters: readonly string[];
  /** Set when the packet could not be sent (no such interface, no route); nothing else is then filled. */
  readonly error: string | undefined;
}

/** Virtual time the packet is given to go its way (a neighbour to resolve, a queue to drain). */
const SETTLE_NS = 1_000_000_000;

function seconds(timeNs: number): string {
  return `${Math.floor(timeNs / 1e9)}.${String(timeNs % 1e9).padStart(9, '0')}`;
}

function hexMark(mark: number): string {
  return `0x${(mark >>> 0).toString(16).padStart(8, '0')}`;
}

function empty(ruleset: string, error: string): TraceReport {
  return { ruleset, monitor: [], path: [], verdict: [], counters: [], error };
}

/** The listing's lines as `where: line`, where being the iptables table or the nft table and chain. */
function located(listing: string): string[] {
  let table = '';
  let chain = '';
  return listing.split('\n').map((line) => {
    const trimmed = line.trim();
    const star = /^\*(\S+)$/.exec(trimmed);
    if (star !== null) table = `iptables ${star[1]}`;
    const nftTable = /^table (\S+ \S+) \{$/.exec(trimmed);
    if (nftTable !== null) {
      table = nftTable[1]!;
      chain = '';
    }
    const nftChain = /^chain (\S+) \{$/.exec(trimmed);
    if (nftChain !== null) chain = nftChain[1]!;
    return `${table}${chain === '' || table.startsWith('iptables') ? '' : ` ${chain}`}: ${trimmed}`;
  });
}

/** The counters that moved: each changed line as it reads after the packet, where it is; or a plain diff. */
export function movedCounters(before: string, after: string): string[] {
  const was = located(before);
  const now = located(after);
  if (was.length !== now.length) {
    const wasSet = new Set(was);
    const nowSet = new Set(now);
    return [
      ...was.filter((line) => !nowSet.has(line)).map((line) => `- ${line}`),
      ...now.filter((line) => !wasSet.has(line)).map((line) => `+ ${line}`),
    ];
  }
  return now.filter((line, index) => line !== was[index] && !/: # /.test(line));
}

/** Sends the packet of `spec` through `rebuilt`'s node and reports what happened. */
export function tracePacket(rebuilt: RebuiltNode, spec: PacketSpec): TraceReport {
  const { sim, node } = rebuilt;
  const ruleset = traceRuleset(spec);
  const added = runArgv(node, ['nft', '-f', '-'], ruleset);
  if (added.exitCode !== 0) return empty(ruleset, `the trace table did not load: ${added.stderr.trim()}`);

  // Where the packet starts: the far end of the receiving interface, or the node's own stack.
  let send: () => string | undefined;
  if (spec.direction.kind === 'in') {
    const name = spec.direction.dev;
    const dev = node.byName(name);
    if (dev === undefined) return empty(ruleset, `the node has no interface ${name}`);
    if (!(dev instanceof Veth) || dev.peer === null)
      return empty(
        ruleset,
        `${name} is a ${dev.kind}: name the interface the packet arrives on (a NIC, a veth, a bridge's port)`,
      );
    const far = dev.peer;
    // On a bridge's port the sender addresses its gateway, the bridge (a pod to cni0); elsewhere the interface.
    const master = dev.masterIndex !== 0 ? node.byIndex(dev.masterIndex) : undefined;
    const frame = traceFrame(spec, master?.mac ?? dev.mac, TRACE_SOURCE_MAC);
    send = () => {
      const sent = packetSend(far, frame);
      return sent.ok ? undefined : `sendto on the far end of ${name}: ${sent.error}`;
    };
  } else {
    send = () => {
      const stack = node.ipv4;
      const found = stack.routeOutput(spec.dst, { src: spec.src });
      if (!found.ok) return `connect(): ${found.error} (no route from ${formatPacketSpec(spec)})`;
      const transport = transportBytes(spec);
      const pkt = stack.allocatePacket(transport.bytes.length);
      pkt.buf.set(transport.bytes, pkt.start);
      const result = stack.output(
        pkt,
        { ...found, src: spec.src },
        { protocol: transport.protocol, pmtudisc: 'do' },
      );
      return result.ok ? undefined : `sendmsg(): ${result.error}`;
    };
  }

  const before = `${runArgv(node, ['iptables-save', '-c'], '').stdout}${runArgv(node, ['nft', 'list', 'ruleset'], '').stdout}`;

  // nft monitor trace: the rule texts and counters as they were when the monitor started, as TraceMonitor keeps them.
  const monitor: string[] = [];
  const snapshot = new Map<Rule, { packets: number; bytes: number }>();
  for (const table of node.netfilter.store.ruleset.tables)
    for (const chain of table.chains.values())
      for (const rule of chain.rules) snapshot.set(rule, { packets: rule.packets, bytes: rule.bytes });
  const onTrace = (event: NftTraceEvent): void => {
    for (const line of formatTraceEvent(event, snapshot).split('\n')) if (line !== '') monitor.push(line);
  };
  node.netfilter.traceListeners.add(onTrace);

  const path: string[] = [];
  const verdict: string[] = [];
  const line = (
    time: number,
    dev: string,
    func: string,
    tuple: string,
    detail: string,
    mark: number,
  ): void => {
    path.push(
      `${seconds(time)} ${(dev || '-').padEnd(11)} ${func.padEnd(22)} ${tuple}${detail ? ` ${detail}` : ''} mark ${hexMark(mark)}`,
    );
  };
  const onStep = (e: StepEvent): void => {
    if (e.netns !== node.name) return;
    const tuple = describeTuple(e.frame, e.networkOffset);
    line(e.time, e.dev, e.step, tuple, e.detail, e.mark);
    if (e.step === 'ip_local_deliver')
      verdict.push(`delivered to the node itself (ip_local_deliver): ${tuple}`);
  };
  const onDrop = (e: DropEvent): void => {
    if (e.netns !== node.name) return;
    const tuple = describeTuple(e.frame, e.networkOffset);
    line(e.time, e.dev, 'kfree_skb', tuple, `reason ${e.reason}`, e.mark);
    verdict.push(`dropped${e.dev ? ` on ${e.dev}` : ''}: ${e.reason} (${tuple})`);
  };
  const onRx = (e: FrameEvent): void => {
    if (e.netns !== node.name) return;
    path.push(
      `${seconds(e.time)} ${(e.dev || '-').padEnd(11)} ${'netif_receive_skb'.padEnd(22)} ${describeTuple(e.frame, -1)}`,
    );
  };
  const onTx = (e: FrameEvent): void => {
    if (e.netns !== node.name) return;
    const tuple = describeTuple(e.frame, -1);
    path.push(`${seconds(e.time)} ${(e.dev || '-').padEnd(11)} ${'dev_queue_xmit'.padEnd(22)} ${tuple}`);
    // A bridge's own transmit is followed by its port's: the port is where the frame leaves.
    const dev = node.byName(e.dev);
    if (e.frame.length >= 14 && dev?.kind !== 'bridge')
      verdict.push(`sent on ${e.dev} to ${formatMac(readMac(e.frame, 0))}: ${tuple}`);
  };
  const bus = sim.bus;
  bus.on('step', onStep).on('drop', onDrop).on('rx', onRx).on('tx', onTx);
  let error: string | undefined;
  try {
    error = send();
    sim.run(SETTLE_NS);
  } finally {
    bus.off('step', onStep).off('drop', onDrop).off('rx', onRx).off('tx', onTx);
    node.netfilter.traceListeners.delete(onTrace);
  }
  if (error !== undefined) return { ...empty(ruleset, error), monitor, path };
  if (verdict.length === 0)
    verdict.push('no further trace: the packet was neither delivered, sent nor dropped with a reason');
  const after = `${runArgv(node, ['iptables-save', '-c'], '').stdout}${runArgv(node, ['nft', 'list', 'ruleset'], '').stdout}`;
  return { ruleset, monitor, path, verdict, counters: movedCounters(before, after), error: undefined };
}
