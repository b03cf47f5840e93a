// HTTP/1.1 message framing shared by the server and the client (RFC 9112): a byte queue for what a
// connection has received, the end of a message head, the head's lines and header fields, and a
// chunked-body decoder. Field values are latin1 text; no trailers are kept, no obsolete line folding.

/** What a connection received and has not parsed yet, as one growing buffer. */
export class ByteQueue {
  private buf = new Uint8Array(4096);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  append(data: Uint8Array): void {
    if (this.end + data.length > this.buf.length) {
      const needed = this.length + data.length;
      if (needed > this.buf.length) {
        const next = new Uint8Array(Math.max(needed, this.buf.length * 2));
        next.set(this.buf.subarray(this.start, this.end), 0);
        this.buf = next;
      } else this.buf.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    this.buf.set(data, this.end);
    this.end += data.length;
  }

  /** The unparsed bytes (a view, valid until the next append or consume). */
  bytes(): Uint8Array {
    return this.buf.subarray(this.start, this.end);
  }

  consume(n: number): void {
    this.start += Math.min(n, this.length);
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
    }
  }

  clear(): void {
    this.start = 0;
    this.end = 0;
  }
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Where a message head ends: the index just past the empty line (CRLF CRLF, or bare LF LF as
 * Go's textproto also accepts), or -1 when the head is not complete in `bytes`.
 */
export function headEnd(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== LF) continue;
    if (bytes[i + 1] === LF) return i + 2;
    if (bytes[i + 1] === CR && bytes[i + 2] === LF) return i + 3;
  }
  return -1;
}

/** Bytes as latin1 text (one character per byte), how HTTP heads are read. */
export function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 4096)
    text += String.fromCharCode(...bytes.subarray(i, Math.min(i + 4096, bytes.length)));
  return text;
}

/** Text as latin1 bytes (characters above 0xff keep their low byte). */
export function latin1Bytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

export interface HeaderField {
  readonly name: string;
  readonly value: string;
}

/** A head split into its first line and fields, or the defect that stopped the split. */
export type ParsedHead =
  | { readonly ok: true; readonly startLine: string; readonly fields: readonly HeaderField[] }
  | { readonly ok: false; readonly error: 'malformed-header-line' };

/** RFC 9110 token characters (method names, field names). */
export function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ok =
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      "!#$%&'*+-.^_`|~".includes(text[i]!);
    if (!ok) return false;
  }
  return true;
}

/** Splits a complete head (ending in its empty line) as textproto.Reader does: CR before LF dropped, `Name: value` trimmed. */
export function splitHead(head: string): ParsedHead {
  const lines = head.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  // The head ends with an empty line, which split() turns into two empty strings.
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const startLine = lines.shift() ?? '';
  const fields: HeaderField[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { ok: false, error: 'malformed-header-line' };
    const name = line.slice(0, colon);
    if (!isToken(name)) return { ok: false, error: 'malformed-header-line' };
    fields.push({ name, value: line.slice(colon + 1).trim() });
  }
  return { ok: true, startLine, fields };
}

/** The first value of a field, names compared without case. */
export function fieldValue(fields: readonly HeaderField[], name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const field of fields) if (field.name.toLowerCase() === lower) return field.value;
  return undefined;
}

/** Whether a comma-separated field (Connection) lists `token`, without case. */
export function fieldHasToken(fields: readonly HeaderField[], name: string, token: string): boolean {
  const lower = name.toLowerCase();
  for (const field of fields) {
    if (field.name.toLowerCase() !== lower) continue;
    if (field.value.split(',').some((part) => part.trim().toLowerCase() === token)) return true;
  }
  return false;
}

/** A Content-Length value: digits only (Go's parseContentLength), else undefined. */
export function parseContentLength(text: string): number | undefined {
  if (!/^[0-9]{1,15}$/.test(text)) return undefined;
  return Number(text);
}

/** Why a chunked body is malformed. */
export type ChunkError = 'bad-size' | 'bad-crlf' | 'line-too-long';

/** What a chunked decoder did with one feed. */
export type ChunkStep =
  | { readonly kind: 'more'; readonly consumed: number }
  | { readonly kind: 'done'; readonly consumed: number }
  | { readonly kind: 'error'; readonly error: ChunkError };

type ChunkState = 'size' | 'data' | 'data-crlf' | 'trailer';

/**
 * A chunked transfer-coding decoder (RFC 9112 section 7.1): hex sizes with optional extensions,
 * data, CRLF after each chunk, the last chunk and trailer lines (read and dropped). Decoded data
 * goes to `onData` as views into the fed bytes.
 */
export class ChunkedDecoder {
  private state: ChunkState = 'size';
  private remaining = 0;
  private line = '';
  /** Longest chunk-size line accepted (Go's maxLineLength is 4096). */
  private static readonly MAX_LINE = 4096;

  constructor(private readonly onData: (data: Uint8Array) => void) {}

  feed(bytes: Uint8Array): ChunkStep {
    let i = 0;
    while (i < bytes.length) {
      switch (this.state) {
        case 'size':
        case 'trailer': {
          const c = bytes[i++]!;
          if (c !== LF) {
            this.line += String.fromCharCode(c);
            if (this.line.length > ChunkedDecoder.MAX_LINE) return { kind: 'error', error: 'line-too-long' };
            break;
          }
          const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
          this.line = '';
          if (this.state === 'trailer') {
            if (line === '') return { kind: 'done', consumed: i };
            break;
          }
          const sizeText = line.split(';')[0]!.trim();
          // An empty size reads as 0, the last chunk, as Go 1.19's parseHexUint has it (later Go refuses it).
          if (!/^[0-9a-fA-F]{0,15}$/.test(sizeText)) return { kind: 'error', error: 'bad-size' };
          this.remaining = sizeText === '' ? 0 : Number.parseInt(sizeText, 16);
          this.state = this.remaining === 0 ? 'trailer' : 'data';
          break;
        }
        case 'data': {
          const take = Math.min(this.remaining, bytes.length - i);
          this.onData(bytes.subarray(i, i + take));
          i += take;
          this.remaining -= take;
          if (this.remaining === 0) this.state = 'data-crlf';
          break;
        }
        case 'data-crlf': {
          // Go reads the two bytes after a chunk's data together and wants exactly CRLF.
          this.line += String.fromCharCode(bytes[i++]!);
          if (this.line.length < 2) break;
          if (this.line !== '\r\n') return { kind: 'error', error: 'bad-crlf' };
          this.line = '';
          this.state = 'size';
          break;
        }
        default:
          return unreachable(this.state);
      }
    }
    return { kind: 'more', consumed: i };
  }
}

function unreachable(value: never): never {
  throw new Error(`unhandled chunk state ${String(value)}`);
}
