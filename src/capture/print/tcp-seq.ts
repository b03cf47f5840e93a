// Relative TCP sequence numbers: the per-conversation state tcpdump keeps across packets (print-tcp.c's tcp_seq_hash4); IPv4 only.

/**
 * The initial sequence numbers tcpdump records per TCP conversation (print-tcp.c's
 * tcp_seq_hash4): both directions share one entry, keyed with the lower port first.
 */
export class TcpSeqTable {
  private readonly entries = new Map<string, { seq: number; ack: number }>();

  /** Forgets every conversation. */
  clear(): void {
    this.entries.clear();
  }

  /** @internal Looks up, records or rebases one segment's numbers; returns what to print. */
  relate(
    srcAddr: number,
    dstAddr: number,
    srcPort: number,
    dstPort: number,
    syn: boolean,
    seq: number,
    ack: number,
  ): { seq: number; ack: number; baseSeq: number; baseAck: number; reversed: boolean } {
    const reversed = srcPort > dstPort || (srcPort === dstPort && srcAddr > dstAddr);
    const key = reversed
      ? `${dstAddr}/${srcAddr}/${dstPort}/${srcPort}`
      : `${srcAddr}/${dstAddr}/${srcPort}/${dstPort}`;
    const entry = this.entries.get(key);
    if (entry === undefined || syn) {
      const recorded = reversed ? { ack: seq, seq: (ack - 1) >>> 0 } : { seq, ack: (ack - 1) >>> 0 };
      this.entries.set(key, recorded);
      return { seq, ack, baseSeq: recorded.seq, baseAck: recorded.ack, reversed };
    }
    const relSeq = reversed ? seq - entry.ack : seq - entry.seq;
    const relAck = reversed ? ack - entry.seq : ack - entry.ack;
    return {
      seq: relSeq >>> 0,
      ack: relAck >>> 0,
      baseSeq: entry.seq,
      baseAck: entry.ack,
      reversed,
    };
  }
}
