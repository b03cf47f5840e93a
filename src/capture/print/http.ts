// HTTP as tcpdump prints it (print-http.c over util-print.c's txtproto_print): `HTTP` and the request or status line, with -v every line; no other text protocols.

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

/** HTTP (util-print.c's txtproto_print): `HTTP`, then the request or status line, or with -v every line. */
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
  if (!printIt) return;
  if (d.vflag > 0) {
    // The length, then every line on its own tab-indented line.
    d.print(`, length: ${length}`);
    for (let idx = 0; idx < length; ) {
      idx = textLinePrint(d, '\n\t', at, idx, length);
      if (idx === 0) break;
    }
  } else {
    textLinePrint(d, ': ', at, 0, length);
  }
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

/**
 * One text line from `start` (util-print.c's print_txt_line), after `prefix`; returns where the
 * next line starts, or 0 when the line holds binary data or has no end in the packet (a line
 * of text without its end prints with the truncation marker).
 */
function textLinePrint(d: Dissector, prefix: string, at: number, start: number, length: number): number {
  let idx = start;
  let lineEnd = -1;
  while (idx < length) {
    const c = d.u8(at + idx);
    if (c === 0x0a) {
      lineEnd = idx;
      idx++;
      break;
    }
    if (c === 0x0d) {
      if (idx + 1 >= length) return 0;
      if (d.u8(at + idx + 1) === 0x0a) {
        lineEnd = idx;
        idx += 2;
        break;
      }
      return 0;
    }
    if ((c < 0x20 || c > 0x7e) && c !== 0x09) return 0;
    idx++;
  }
  const end = lineEnd < 0 ? idx : lineEnd;
  let line = '';
  for (let i = at + start; i < at + end; i++) line += String.fromCharCode(d.bytes[i]!);
  d.print(`${prefix}${line}`);
  if (lineEnd < 0) {
    d.printTrunc();
    return 0;
  }
  return idx;
}
