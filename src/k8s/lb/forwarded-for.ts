// The load balancer's `http` mode on the client's byte stream: HAProxy's `option forwardfor` in `mode http`, which
// appends `X-Forwarded-For: <client address>` as the last field of every request head (after any the client sent),
// the request bodies (Content-Length) passed on untouched. Not modelled: a chunked request body or a head that does
// not parse, after which the rest of the connection is passed on as it is; `except`, `header NAME`, `if-none`.

import {
  ByteQueue,
  fieldValue,
  headEnd,
  latin1,
  latin1Bytes,
  parseContentLength,
  splitHead,
} from '../../app/http/message.ts';

export class ForwardedForInserter {
  private readonly input = new ByteQueue();
  /** Body bytes of the current request still to pass on. */
  private bodyRemaining = 0;
  /** The stream can no longer be followed: everything passes as it is. */
  private opaque = false;
  private readonly field: string;

  constructor(clientAddr: string) {
    this.field = `X-Forwarded-For: ${clientAddr}\r\n`;
  }

  /** Bytes from the client; returns what to send to the server now (heads rewritten), in order. */
  feed(data: Uint8Array): Uint8Array[] {
    if (this.opaque) return [data];
    this.input.append(data);
    const out: Uint8Array[] = [];
    for (;;) {
      const bytes = this.input.bytes();
      if (bytes.length === 0) break;
      if (this.bodyRemaining > 0) {
        const take = Math.min(this.bodyRemaining, bytes.length);
        out.push(bytes.slice(0, take));
        this.input.consume(take);
        this.bodyRemaining -= take;
        continue;
      }
      const end = headEnd(bytes);
      if (end < 0) break;
      const head = latin1(bytes.subarray(0, end));
      const parsed = splitHead(head);
      const length = parsed.ok ? fieldValue(parsed.fields, 'Content-Length') : undefined;
      const chunked = parsed.ok && fieldValue(parsed.fields, 'Transfer-Encoding') !== undefined;
      // The field goes before the empty line that ends the head (CRLF or a bare LF).
      const blank = head.endsWith('\r\n\r\n') ? 2 : 1;
      out.push(
        latin1Bytes(`${head.slice(0, head.length - blank)}${this.field}${head.slice(head.length - blank)}`),
      );
      this.input.consume(end);
      const bodyLength = length === undefined ? 0 : parseContentLength(length);
      if (!parsed.ok || chunked || bodyLength === undefined) {
        this.opaque = true;
        const rest = this.input.bytes();
        if (rest.length > 0) out.push(rest.slice());
        this.input.clear();
        break;
      }
      this.bodyRemaining = bodyLength;
    }
    return out;
  }
}
