// Go's per-connection output buffer (net/http conn.bufw: a bufio.Writer of 4096 bytes over the TCP connection):
// what a response is written in, and which write() calls reach the socket. Not modelled: write errors and
// bufio's short writes (a packetlab socket takes every byte it is given).

import type { TcpSocket } from '../../socket/tcp/socket.ts';

/** net/http's bufferedWriter size for a connection (server.go: newBufioWriterSize(c.rwc, 4<<10)). */
export const GO_CONN_BUFFER = 4096;

/** bufio.Writer over a socket: copies into its buffer, writes it when full or flushed, big writes go straight through. */
export class ConnWriter {
  private readonly buf = new Uint8Array(GO_CONN_BUFFER);
  private n = 0;

  constructor(private readonly socket: TcpSocket) {}

  /** bufio.Writer.Write: while p exceeds what is free, an empty buffer passes p on whole, else it fills and flushes. */
  write(p: Uint8Array): void {
    let rest = p;
    while (rest.length > GO_CONN_BUFFER - this.n) {
      if (this.n === 0) {
        this.socket.write(rest);
        return;
      }
      const take = GO_CONN_BUFFER - this.n;
      this.buf.set(rest.subarray(0, take), this.n);
      this.n += take;
      rest = rest.subarray(take);
      this.flush();
    }
    this.buf.set(rest, this.n);
    this.n += rest.length;
  }

  /** bufio.Writer.Flush: what is buffered, in one write() (the socket copies what it is given). */
  flush(): void {
    if (this.n === 0) return;
    this.socket.write(this.buf.subarray(0, this.n));
    this.n = 0;
  }
}
