// HTTP as tcpdump prints it without -v (print-http.c over util-print.c's txtproto_print): `HTTP` and the request or status line.

import type { Dissector } from './netdissect.ts';

/** HTTP request methods tcpdump's http_print recognises (httpcmds in print-http.c). */
const HTTP_METHODS = new Set([
  'GET',
  'PUT',
  'COPY',
  'HEAD',
  'LOCK',
  'MOVE',
  'POLL',
  'POST',
  'BCOPY',
  'BMOVE',
  'MKCOL',
  'TRACE',
  'LABEL',
  'MERGE',
  'DELETE',
  'SEARCH',
  'UNLOCK',
  'REPORT',
  'UPDATE',
  'NOTIFY',
  'BDELETE',
  'CONNECT',
  'OPTIONS',
  'CHECKIN',
  'PROPFIND',
  'CHECKOUT',
  'CHECKOUT',
  'BPROPFIND',
  'BPROPPATCH',
  'PROPPATCH',
  'SUBSCRIBE',
  'MKACTIVITY',
  'MKWORKSPACE',
  'UNCHECKOUT',
  'VERSION-CONTROL',
  'BASELINE-CONTROL',
  'UNSUBSCRIBE',
  'POLL',
  'BMOVE',
]);

/** HTTP (util-print.c's txtproto_print without -v): `HTTP`, then the request or status line. */
export function httpPrint(d: Dissector, at: number, length: number): void {
  d.protocol = 'http';
  let printIt = false;
  let token = fetchToken(d, at, 0, length);
  if (token !== undefined) {
    if (HTTP_METHODS.has(token.text.toUpperCase())) printIt = true;
    // Responses carry the status code as the second token ("HTTP/1.1 200 OK").
    token = fetchToken(d, at, token.next, length);
    if (token !== undefined && /^[0-9]{3}$/.test(token.text)) printIt = true;
  }
  d.print('HTTP');
  if (printIt) textLinePrint(d, at, length);
}

/** One whitespace-delimited printable token at `idx`, and where the next one starts. */
function fetchToken(
  d: Dissector,
  at: number,
  start: number,
  length: number,
): { text: string; next: number } | undefined {
  let idx = start;
  let text = '';
  for (; idx < length; idx++) {
    if (!d.has(at + idx, 1)) return undefined;
    const c = d.bytes[at + idx]!;
    if (c > 0x7f) return undefined;
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) break;
    if (c < 0x20 || c > 0x7e) return undefined;
    if (text.length + 2 > 128) return undefined;
    text += String.fromCharCode(c);
  }
  if (text === '') return undefined;
  for (; idx < length; idx++) {
    if (!d.has(at + idx, 1)) break;
    const c = d.bytes[at + idx]!;
    if (c === 0x0d || c === 0x0a) break;
    if (c < 0x20 || c > 0x7e) break;
    if (c !== 0x20 && c !== 0x09) break;
  }
  return { text, next: idx };
}

/** The first text line after `: `, or nothing when it holds binary data; no line end yet is a truncation. */
function textLinePrint(d: Dissector, at: number, length: number): void {
  let idx = 0;
  while (idx < length) {
    const c = d.u8(at + idx);
    if (c === 0x0a) break;
    if (c === 0x0d) {
      if (idx + 1 >= length) return;
      if (d.u8(at + idx + 1) === 0x0a) break;
      return;
    }
    if ((c < 0x20 || c > 0x7e) && c !== 0x09) return;
    idx++;
  }
  let line = '';
  for (let i = at; i < at + idx; i++) line += String.fromCharCode(d.bytes[i]!);
  d.print(`: ${line}`);
  if (idx >= length) d.printTrunc();
}
