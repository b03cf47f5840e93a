// The in-order bytes a connection received and the application has not read yet (sk_receive_queue's payload);
// what the queue costs the receive buffer (truesize) is ReceiveWindow's rmemAlloc, not kept here.

export class ReceiveQueue {
  private readonly chunks: Uint8Array[] = [];

  get empty(): boolean {
    return this.chunks.length === 0;
  }

  /** How many segments wait (tcp_recvmsg copies them one skb at a time). */
  get count(): number {
    return this.chunks.length;
  }

  /** The payload length of the i-th waiting segment. */
  lengthAt(i: number): number {
    return this.chunks[i]?.length ?? 0;
  }

  /** Queues a copy the caller made of a segment's payload. */
  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
  }

  /** Everything queued as one chunk (tcp_recvmsg reading all there is), or undefined when empty. */
  takeAll(): Uint8Array | undefined {
    if (this.chunks.length === 0) return undefined;
    let data = this.chunks[0]!;
    if (this.chunks.length > 1) {
      let total = 0;
      for (const chunk of this.chunks) total += chunk.length;
      data = new Uint8Array(total);
      let at = 0;
      for (const chunk of this.chunks) {
        data.set(chunk, at);
        at += chunk.length;
      }
    }
    this.chunks.length = 0;
    return data;
  }
}
