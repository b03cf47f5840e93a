// The receiver's out-of-order queue (tp->out_of_order_queue): segments beyond rcv_nxt wait here,
// overlaps trimmed and neighbours coalesced as tcp_data_queue_ofo does, until tcp_ofo_queue moves
// them in order to the application; duplicates become D-SACK blocks. Each segment kept is charged its
// truesize (payload + SEGMENT_OVERHEAD, also when coalesced, where Linux charges less). Not modelled:
// receive-memory limits (tcp_try_rmem_schedule, tcp_prune_ofo_queue, tcp_collapse_ofo_queue).

import type { SackBlocks } from './sack-blocks.ts';
import { seqAfter, seqBefore, seqDistance } from './seq.ts';
import { SEGMENT_OVERHEAD } from './window.ts';

/** What tcp_data_queue_ofo did with a segment: kept on its own, coalesced into a queued one, or dropped as a duplicate. */
export type OfoOutcome = 'queued' | 'coalesced' | 'dropped';

/** One queued segment (a coalesced run of them); endSeq counts a FIN. */
interface OfoSegment {
  seq: number;
  endSeq: number;
  fin: boolean;
  /** The payload, in order; a coalesced segment keeps its pieces. */
  chunks: Uint8Array[];
  /** What it is charged to the receive buffer (the truesize of every segment it holds). */
  truesize: number;
}

export class OfoQueue {
  /** Sorted by seq (the rbtree's in-order walk); the last one is ooo_last_skb. */
  private readonly segments: OfoSegment[] = [];
  /** tcp_ofo_queue delivered a FIN: the queue was purged (tcp_fin). */
  drainedFin = false;
  /** The truesize of everything queued: its share of sk_rmem_alloc. */
  truesize = 0;
  /** What the last drain() freed without delivering (segments rcv_nxt had already passed). */
  drainFreed = 0;

  constructor(private readonly sack: SackBlocks) {}

  get empty(): boolean {
    return this.segments.length === 0;
  }

  /** Segments queued (after coalescing). */
  get length(): number {
    return this.segments.length;
  }

  /** TCP_SKB_CB(ooo_last_skb)->end_seq: where the highest queued segment ends (only when not empty). */
  get endSeq(): number {
    return this.segments[this.segments.length - 1]?.endSeq ?? 0;
  }

  /** Bytes of payload waiting, overlaps counted once per segment. */
  get bytes(): number {
    let total = 0;
    for (const segment of this.segments)
      total += seqDistance(segment.seq, segment.endSeq) - (segment.fin ? 1 : 0);
    return total;
  }

  /** The queued ranges as [seq, endSeq) pairs, in sequence order (for tests and `ss`). */
  ranges(): [number, number][] {
    return this.segments.map((segment) => [segment.seq, segment.endSeq]);
  }

  /** tcp_fin / tcp_sack_reset: drop everything queued. */
  purge(): void {
    this.segments.length = 0;
    this.truesize = 0;
  }

  /**
   * tcp_data_queue_ofo for a segment starting beyond rcv_nxt: `data` is kept (the caller hands a
   * copy); a segment wholly covered by queued data is dropped and D-SACKed, one that covers a
   * queued segment from the same start replaces it, later segments it covers are dropped.
   */
  insert(seq: number, data: Uint8Array, fin: boolean): OfoOutcome {
    const endSeq = (seq + data.length + (fin ? 1 : 0)) >>> 0;
    const segments = this.segments;
    const truesize = data.length + SEGMENT_OVERHEAD;
    const fresh: OfoSegment = { seq, endSeq, fin, chunks: [data], truesize };
    if (segments.length === 0) {
      this.sack.first(seq, endSeq);
      segments.push(fresh);
      this.truesize += truesize;
      return 'queued';
    }
    const last = segments[segments.length - 1]!;
    if (this.tryCoalesce(last, fresh)) {
      this.sack.newOfo(seq, endSeq);
      return 'coalesced';
    }
    let at: number;
    if (!seqBefore(seq, last.endSeq)) at = segments.length;
    else {
      // The queued segment the tree walk meets with seq inside or after it: the last one starting at or before seq.
      let prev = segments.length - 1;
      while (prev >= 0 && seqBefore(seq, segments[prev]!.seq)) prev--;
      at = prev + 1;
      const before = prev >= 0 ? segments[prev]! : undefined;
      if (before !== undefined && seqBefore(seq, before.endSeq)) {
        if (!seqAfter(endSeq, before.endSeq)) {
          // All the bits are present: drop (LINUX_MIB_TCPOFOMERGE).
          this.sack.dsackSet(seq, endSeq);
          this.sack.newOfo(seq, endSeq);
          return 'dropped';
        }
        if (seqAfter(seq, before.seq)) this.sack.dsackSet(seq, before.endSeq);
        else {
          // Same start, and this one covers it: replace.
          segments[prev] = fresh;
          this.truesize += truesize - before.truesize;
          this.sack.dsackExtend(before.seq, before.endSeq);
          this.mergeRight(prev);
          this.sack.newOfo(seq, endSeq);
          return 'queued';
        }
      } else if (before !== undefined && this.tryCoalesce(before, fresh)) {
        this.sack.newOfo(seq, endSeq);
        return 'coalesced';
      }
    }
    segments.splice(at, 0, fresh);
    this.truesize += truesize;
    this.mergeRight(at);
    this.sack.newOfo(seq, endSeq);
    return 'queued';
  }

  /**
   * tcp_ofo_queue: moves the segments rcv_nxt has reached to the application, in order, the part
   * already received cut off (and D-SACKed); returns the new rcv_nxt. A FIN ends the walk and
   * purges the queue (tcp_fin), leaving drainedFin set.
   */
  drain(rcvNxt: number, deliver: (data: Uint8Array) => void): number {
    this.drainedFin = false;
    this.drainFreed = 0;
    let dsackHigh = rcvNxt;
    const segments = this.segments;
    while (segments.length > 0) {
      const segment = segments[0]!;
      if (seqAfter(segment.seq, rcvNxt)) break;
      if (seqBefore(segment.seq, dsackHigh)) {
        const dsack = dsackHigh;
        if (seqBefore(segment.endSeq, dsackHigh)) dsackHigh = segment.endSeq;
        this.sack.dsackExtend(segment.seq, dsack);
      }
      segments.shift();
      this.truesize -= segment.truesize;
      if (!seqAfter(segment.endSeq, rcvNxt)) {
        this.drainFreed += segment.truesize; // SKB_DROP_REASON_TCP_OFO_DROP
        continue;
      }
      let skip = seqDistance(segment.seq, rcvNxt);
      for (const chunk of segment.chunks) {
        if (skip >= chunk.length) {
          skip -= chunk.length;
          continue;
        }
        deliver(skip === 0 ? chunk : chunk.subarray(skip));
        skip = 0;
      }
      rcvNxt = segment.endSeq;
      if (segment.fin) {
        this.drainedFin = true;
        this.drainFreed += this.truesize;
        this.purge();
        break;
      }
    }
    return rcvNxt;
  }

  /** tcp_try_coalesce: `from` starts where `to` ends; `to` takes its bytes. */
  private tryCoalesce(to: OfoSegment, from: OfoSegment): boolean {
    if (from.seq !== to.endSeq || to.fin) return false;
    for (const chunk of from.chunks) to.chunks.push(chunk);
    to.truesize += from.truesize;
    this.truesize += from.truesize;
    to.endSeq = from.endSeq;
    to.fin = from.fin;
    return true;
  }

  /** merge_right: queued segments the one at `index` covers are dropped, each D-SACKed; a partly covered one ends the walk. */
  private mergeRight(index: number): void {
    const segments = this.segments;
    const endSeq = segments[index]!.endSeq;
    while (index + 1 < segments.length) {
      const next = segments[index + 1]!;
      if (!seqAfter(endSeq, next.seq)) break;
      if (seqBefore(endSeq, next.endSeq)) {
        this.sack.dsackExtend(next.seq, endSeq);
        break;
      }
      segments.splice(index + 1, 1);
      this.truesize -= next.truesize;
      this.sack.dsackExtend(next.seq, next.endSeq);
    }
  }
}
