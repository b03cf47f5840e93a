// The SACK blocks a receiver announces (tp->selective_acks, tp->duplicate_sack in tcp_input.c): new
// out-of-order data first, coalesced, eaten as rcv_nxt advances, and one D-SACK block for duplicate
// data. Not modelled: ACK compression (tcp_sack_compress_send_ack: every ACK goes out).

import type { SackBlockSource } from './options.ts';
import { TCP_NUM_SACKS } from './options.ts';
import { seqAfter, seqBefore } from './seq.ts';

export class SackBlocks implements SackBlockSource {
  /** rx_opt.num_sacks. */
  numSacks = 0;
  /** rx_opt.dsack: a D-SACK block goes in the next segment. */
  dsack = false;
  /** [0, 1]: duplicate_sack[0]; [2 + 2i, 3 + 2i]: selective_acks[i] (the kernel keeps them adjacent too). */
  private readonly edges = new Uint32Array(2 + 2 * TCP_NUM_SACKS);

  constructor(
    /** tcp_is_sack: the peer offered SACK-permitted and we agreed. */
    public sackOk: boolean,
    /** net.ipv4.tcp_dsack at the time of each duplicate. */
    private readonly dsackEnabled: () => boolean,
  ) {}

  get blockCount(): number {
    return this.numSacks + (this.dsack ? 1 : 0);
  }

  /** Block `index` of what is announced: the D-SACK block first when there is one. */
  blockStart(index: number): number {
    return this.edges[2 * (this.dsack ? index : index + 1)]!;
  }

  blockEnd(index: number): number {
    return this.edges[2 * (this.dsack ? index : index + 1) + 1]!;
  }

  /** selective_acks[i]. */
  start(i: number): number {
    return this.edges[2 + 2 * i]!;
  }

  end(i: number): number {
    return this.edges[3 + 2 * i]!;
  }

  /** The D-SACK block (meaningful while dsack). */
  get dsackStart(): number {
    return this.edges[0]!;
  }

  get dsackEnd(): number {
    return this.edges[1]!;
  }

  /** tcp_sack_reset: forget every block (FIN received, out-of-order queue pruned). */
  reset(): void {
    this.numSacks = 0;
    this.dsack = false;
  }

  /** tcp_options_write clears rx_opt.dsack once a segment carried the block. */
  dsackSent(): void {
    this.dsack = false;
  }

  /** tcp_data_queue starts each data segment with rx_opt.dsack = 0. */
  clearDsack(): void {
    this.dsack = false;
  }

  /** tcp_dsack_set: data we already had, [seq, endSeq), is reported in a D-SACK block. */
  dsackSet(seq: number, endSeq: number): void {
    if (!this.sackOk || !this.dsackEnabled()) return;
    this.dsack = true;
    this.edges[0] = seq;
    this.edges[1] = endSeq;
  }

  /** tcp_dsack_extend. */
  dsackExtend(seq: number, endSeq: number): void {
    if (!this.dsack) this.dsackSet(seq, endSeq);
    else this.extend(0, seq, endSeq);
  }

  /** The first out-of-order segment: one block (tcp_data_queue_ofo's "Initial out of order segment"). */
  first(seq: number, endSeq: number): void {
    if (!this.sackOk) return;
    this.numSacks = 1;
    this.edges[2] = seq;
    this.edges[3] = endSeq;
  }

  /**
   * tcp_sack_new_ofo_skb: a block that touches [seq, endSeq) grows and moves to the front (then
   * tcp_sack_maybe_coalesce); otherwise a new block goes in front, the oldest falling off a full list.
   */
  newOfo(seq: number, endSeq: number): void {
    if (!this.sackOk) return;
    const cur = this.numSacks;
    if (cur > 0) {
      for (let i = 0; i < cur; i++) {
        if (this.extend(2 + 2 * i, seq, endSeq)) {
          for (let j = i; j > 0; j--) this.swap(j, j - 1);
          if (cur > 1) this.maybeCoalesce();
          return;
        }
      }
      let slot = cur;
      if (slot >= TCP_NUM_SACKS) {
        slot--;
        this.numSacks--;
      }
      for (; slot > 0; slot--) {
        this.edges[2 + 2 * slot] = this.edges[2 * slot]!;
        this.edges[3 + 2 * slot] = this.edges[1 + 2 * slot]!;
      }
    }
    this.edges[2] = seq;
    this.edges[3] = endSeq;
    this.numSacks++;
  }

  /** tcp_sack_remove: rcv_nxt advanced; blocks it covers go (all of them once the out-of-order queue is empty). */
  remove(rcvNxt: number, ofoEmpty: boolean): void {
    if (ofoEmpty) {
      this.numSacks = 0;
      return;
    }
    let num = this.numSacks;
    for (let i = 0; i < num; ) {
      if (!seqBefore(rcvNxt, this.start(i))) {
        for (let j = i + 1; j < num; j++) {
          this.edges[2 * j] = this.edges[2 + 2 * j]!;
          this.edges[2 * j + 1] = this.edges[3 + 2 * j]!;
        }
        num--;
        continue;
      }
      i++;
    }
    this.numSacks = num;
  }

  /** tcp_sack_maybe_coalesce: the first block swallows any later one it now touches. */
  private maybeCoalesce(): void {
    for (let i = 1; i < this.numSacks; ) {
      if (this.extend(2, this.start(i), this.end(i))) {
        this.numSacks--;
        for (let j = i; j < this.numSacks; j++) {
          this.edges[2 + 2 * j] = this.edges[4 + 2 * j]!;
          this.edges[3 + 2 * j] = this.edges[5 + 2 * j]!;
        }
        continue;
      }
      i++;
    }
  }

  /** tcp_sack_extend on the block at edges[at]: true (and widened) when [seq, endSeq) touches or overlaps it. */
  private extend(at: number, seq: number, endSeq: number): boolean {
    const start = this.edges[at]!;
    const end = this.edges[at + 1]!;
    if (seqAfter(seq, end) || seqAfter(start, endSeq)) return false;
    if (seqBefore(seq, start)) this.edges[at] = seq;
    if (seqAfter(endSeq, end)) this.edges[at + 1] = endSeq;
    return true;
  }

  private swap(i: number, j: number): void {
    const s = this.edges[2 + 2 * i]!;
    const e = this.edges[3 + 2 * i]!;
    this.edges[2 + 2 * i] = this.edges[2 + 2 * j]!;
    this.edges[3 + 2 * i] = this.edges[3 + 2 * j]!;
    this.edges[2 + 2 * j] = s;
    this.edges[3 + 2 * j] = e;
  }
}
