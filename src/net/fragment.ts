// IPv4 fragmentation on output (ip_do_fragment's slow path) and reassembly on local delivery (ip_defrag), with
// Linux's timeout, memory limit, duplicate and overlap rules; options are copied to every fragment as-is.

import { Packet } from '../core/packet.ts';
import type { TimerId } from '../core/scheduler.ts';
import { TRACING } from '../core/trace.ts';
import type { NetDevice } from '../link/device.ts';
import type { Ipv4Addr } from '../wire/address.ts';
import { ETHERNET_HEADER_LEN } from '../wire/ethernet.ts';
import { Ipv4View } from '../wire/ipv4.ts';
import type { Ipv4Stack } from './ipv4.ts';

/** Fragment payloads are multiples of 8 bytes. */
const FRAG_UNIT = 8;

/**
 * ip_fragment: splits the datagram in `pkt` (DF clear) into fragments that fit `mtu` and
 * hands each, with its own header and checksum, to `send`. Each fragment is a new packet.
 */
export function fragmentAndSend(
  stack: Ipv4Stack,
  pkt: Packet,
  mtu: number,
  send: (fragment: Packet) => void,
): void {
  const view = Ipv4View.unchecked(pkt.buf, pkt.network);
  const headerLen = view.headerLen;
  const payloadLen = view.totalLen - headerLen;
  const chunk = Math.floor((mtu - headerLen) / FRAG_UNIT) * FRAG_UNIT;
  if (chunk <= 0) {
    stack.mib.fragFails++;
    stack.drop(pkt, 'PKT_TOO_BIG');
    return;
  }
  const originalOffset = view.fragmentOffset;
  const originalMore = view.moreFragments;
  const payloadStart = pkt.network + headerLen;
  let count = 0;
  for (let offset = 0; offset < payloadLen; offset += chunk) {
    const length = Math.min(chunk, payloadLen - offset);
    const fragment = stack.allocatePacket(headerLen + length);
    fragment.network = fragment.start;
    fragment.mark = pkt.mark;
    fragment.buf.set(pkt.buf.subarray(pkt.network, pkt.network + headerLen), fragment.start);
    fragment.buf.set(
      pkt.buf.subarray(payloadStart + offset, payloadStart + offset + length),
      fragment.start + headerLen,
    );
    const header = Ipv4View.unchecked(fragment.buf, fragment.start);
    header.totalLen = headerLen + length;
    header.fragmentOffset = originalOffset + offset;
    header.moreFragments = offset + length < payloadLen || originalMore;
    header.fillChecksum();
    if (TRACING && stack.ctx.bus.wants.step)
      stack.step(fragment, 'ip_fragment', undefined, `offset ${originalOffset + offset} len ${length}`);
    send(fragment);
    count++;
  }
  stack.mib.fragOKs++;
  stack.mib.fragCreates += count;
}

interface FragmentPiece {
  offset: number;
  data: Uint8Array;
}

interface ReassemblyQueue {
  readonly key: string;
  pieces: FragmentPiece[];
  /** The first fragment's IPv4 header (offset 0), once received. */
  firstHeader: Uint8Array | undefined;
  /** Total payload length, known once the last fragment (MF clear) arrived. */
  totalPayload: number;
  bytes: number;
  timer: TimerId;
  /** The offset-0 fragment when it came (else the first seen), quoted by the time-exceeded error. */
  sample: Packet | undefined;
}

/** ip_defrag's queues, keyed by (src, dst, id, protocol) as ip4_frag_match does. */
export class Reassembler {
  private readonly queues = new Map<string, ReassemblyQueue>();

  /** Datagrams being reassembled (the FRAG line of /proc/net/sockstat, `ss -s`). */
  get pending(): number {
    return this.queues.size;
  }
  private memory = 0;

  constructor(private readonly stack: Ipv4Stack) {}

  /** Adds a fragment; returns the whole datagram when it completes, else undefined. */
  add(dev: NetDevice, pkt: Packet): Packet | undefined {
    const stack = this.stack;
    const view = Ipv4View.unchecked(pkt.buf, pkt.network);
    stack.mib.reasmReqds++;
    const key = queueKey(view.srcAddr, view.dstAddr, view.ident, view.protocol);
    let queue = this.queues.get(key);
    if (queue === undefined) {
      if (this.memory >= stack.sysctls.int('net.ipv4.ipfrag_high_thresh')) {
        stack.mib.reasmFails++;
        stack.drop(pkt, 'NOMEM', dev);
        return undefined;
      }
      queue = {
        key,
        pieces: [],
        firstHeader: undefined,
        totalPayload: -1,
        bytes: 0,
        timer: stack.ctx.scheduler.schedule(stack.sysctls.int('net.ipv4.ipfrag_time') * 1e9, () =>
          this.expire(key),
        ),
        sample: undefined,
      };
      this.queues.set(key, queue);
    }
    const offset = view.fragmentOffset;
    const data = view.payload();
    const end = offset + data.length;
    for (const piece of queue.pieces) {
      if (piece.offset === offset && piece.data.length === data.length) {
        stack.drop(pkt, 'DUP_FRAG', dev);
        return undefined;
      }
      if (offset < piece.offset + piece.data.length && piece.offset < end) {
        // ip_frag_queue: overlapping fragments discard the whole queue (since Linux 4.19).
        this.discard(queue);
        stack.mib.reasmFails++;
        stack.drop(pkt, 'DUP_FRAG', dev);
        return undefined;
      }
    }
    if (!view.moreFragments) queue.totalPayload = end;
    if (offset === 0) {
      queue.firstHeader = pkt.buf.slice(pkt.network, pkt.network + view.headerLen);
      queue.sample = pkt;
    }
    queue.sample ??= pkt;
    queue.pieces.push({ offset, data: data.slice() });
    queue.bytes += data.length;
    this.memory += data.length;
    return this.tryComplete(queue);
  }

  private tryComplete(queue: ReassemblyQueue): Packet | undefined {
    if (queue.totalPayload < 0 || queue.firstHeader === undefined) return undefined;
    queue.pieces.sort((a, b) => a.offset - b.offset);
    let covered = 0;
    for (const piece of queue.pieces) {
      if (piece.offset > covered) return undefined;
      covered = Math.max(covered, piece.offset + piece.data.length);
    }
    if (covered < queue.totalPayload) return undefined;
    const headerLen = queue.firstHeader.length;
    const whole = Packet.allocate(ETHERNET_HEADER_LEN + headerLen + queue.totalPayload);
    whole.network = whole.start + ETHERNET_HEADER_LEN;
    whole.buf.set(queue.firstHeader, whole.network);
    for (const piece of queue.pieces) whole.buf.set(piece.data, whole.network + headerLen + piece.offset);
    const header = Ipv4View.unchecked(whole.buf, whole.network);
    header.totalLen = headerLen + queue.totalPayload;
    header.moreFragments = false;
    header.fragmentOffset = 0;
    header.fillChecksum();
    if (queue.sample !== undefined) {
      whole.iif = queue.sample.iif;
      whole.mark = queue.sample.mark;
      whole.pktType = queue.sample.pktType;
    }
    this.discard(queue);
    this.stack.mib.reasmOKs++;
    return whole;
  }

  /** ip_expire: time exceeded (fragment reassembly) to the sender when the first fragment came, then drop. */
  private expire(key: string): void {
    const queue = this.queues.get(key);
    if (queue === undefined) return;
    this.queues.delete(key);
    this.memory -= queue.bytes;
    this.stack.mib.reasmFails++;
    this.stack.mib.reasmTimeout++;
    if (queue.sample !== undefined) {
      if (queue.firstHeader !== undefined) this.stack.icmp.sendError(queue.sample, 11, 1, 0);
      this.stack.drop(queue.sample, 'FRAG_REASM_TIMEOUT');
    }
  }

  private discard(queue: ReassemblyQueue): void {
    this.stack.ctx.scheduler.cancel(queue.timer);
    this.queues.delete(queue.key);
    this.memory -= queue.bytes;
  }
}

function queueKey(src: Ipv4Addr, dst: Ipv4Addr, ident: number, protocol: number): string {
  return `${src}:${dst}:${ident}:${protocol}`;
}
