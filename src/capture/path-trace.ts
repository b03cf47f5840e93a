// A hop-by-hop trace printer in the spirit of Cilium's pwru: one line per packet step with the virtual time, the
// namespace, the device, a kernel-like function name and the packet's addresses at that moment.
//
// Subscribe it to a simulation's bus with `attachPathTrace(bus, write)`; it only reads the
// frames it is given (no copies kept). Non-IPv4 frames show their EtherType or ARP summary.

import type { DropEvent, FrameEvent, StepEvent, TraceBus } from '../core/trace.ts';
import { formatIpv4, readIpv4 } from '../wire/address.ts';
import { readU16 } from '../wire/bytes.ts';

const PROTOCOL_NAMES: Record<number, string> = { 1: 'icmp', 6: 'tcp', 17: 'udp' };

/** The packet's addresses as pwru prints its tuple: `10.0.0.1:41234->10.0.0.2:80(tcp)`. */
export function describeTuple(frame: Uint8Array, networkOffset: number): string {
  let ip = networkOffset;
  if (ip < 0) {
    if (frame.length < 14) return `(truncated ${frame.length}B)`;
    const ethertype = readU16(frame, 12);
    if (ethertype === 0x0806 && frame.length >= 42) {
      const op = readU16(frame, 20) === 1 ? 'who-has' : 'is-at';
      return `arp ${op} ${formatIpv4(readIpv4(frame, 38))} tell ${formatIpv4(readIpv4(frame, 28))}`;
    }
    if (ethertype !== 0x0800) return `ethertype 0x${ethertype.toString(16).padStart(4, '0')}`;
    ip = 14;
  }
  if (frame.length < ip + 20 || frame[ip]! >> 4 !== 4) return '(not ipv4)';
  const protocol = frame[ip + 9]!;
  const src = formatIpv4(readIpv4(frame, ip + 12));
  const dst = formatIpv4(readIpv4(frame, ip + 16));
  const name = PROTOCOL_NAMES[protocol] ?? `proto-${protocol}`;
  const l4 = ip + (frame[ip]! & 0xf) * 4;
  const firstFragment = (readU16(frame, ip + 6) & 0x1fff) === 0;
  if ((protocol === 6 || protocol === 17) && firstFragment && frame.length >= l4 + 4)
    return `${src}:${readU16(frame, l4)}->${dst}:${readU16(frame, l4 + 2)}(${name})`;
  return `${src}->${dst}(${name})`;
}

function seconds(timeNs: number): string {
  return `${Math.floor(timeNs / 1e9)}.${String(timeNs % 1e9).padStart(9, '0')}`;
}

/** Prints every step, rx, tx and drop on `bus` through `write`, one line each; returns a function that stops it. */
export function attachPathTrace(bus: TraceBus, write: (line: string) => void): () => void {
  const line = (
    time: number,
    netns: string,
    dev: string,
    func: string,
    tuple: string,
    detail: string,
  ): void =>
    write(
      `${seconds(time)} ${netns.padEnd(12)} ${(dev || '-').padEnd(11)} ${func.padEnd(22)} ${tuple}${detail ? ` ${detail}` : ''}`,
    );
  const onRx = (e: FrameEvent): void =>
    line(e.time, e.netns, e.dev, 'netif_receive_skb', describeTuple(e.frame, -1), '');
  const onTx = (e: FrameEvent): void =>
    line(e.time, e.netns, e.dev, 'dev_queue_xmit', describeTuple(e.frame, -1), '');
  const onStep = (e: StepEvent): void =>
    line(e.time, e.netns, e.dev, e.step, describeTuple(e.frame, e.networkOffset), e.detail);
  const onDrop = (e: DropEvent): void =>
    line(e.time, e.netns, e.dev, 'kfree_skb', describeTuple(e.frame, e.networkOffset), `reason ${e.reason}`);
  bus.on('rx', onRx);
  bus.on('tx', onTx);
  bus.on('step', onStep);
  bus.on('drop', onDrop);
  return () => {
    bus.off('rx', onRx);
    bus.off('tx', onTx);
    bus.off('step', onStep);
    bus.off('drop', onDrop);
  };
}
