// An HTTP/1.1 client exchange on a namespace's TCP sockets, in virtual time: connect (or reuse a kept-alive
// socket), send one request, read the response as curl 7.88's http.c frames it (status line, fields,
// Content-Length, chunked or until close), with connect and overall timeouts; the outcome is a result object
// with curl's failure kinds and timings. Not supported: redirects, 100-continue handshakes, trailers, TLS.

import type { Namespace } from '../../netns/namespace.ts';
import type { TcpError, TcpSocket } from '../../socket/tcp/socket.ts';
import { formatIpv4, type Ipv4Addr, parseIpv4 } from '../../wire/address.ts';
import {
  ByteQueue,
  ChunkedDecoder,
  fieldHasToken,
  fieldValue,
  type HeaderField,
  headEnd,
  latin1,
  latin1Bytes,
  parseContentLength,
} from './message.ts';

/** Why an exchange failed, in curl's terms (each maps to one curl exit code, see failure.ts). */
export type HttpFailure =
  /** connect() failed at once (`immediate`, no SYN sent) or the handshake failed with `errno`. */
  | {
      readonly kind: 'connect';
      readonly errno: TcpError | 'EADDRNOTAVAIL' | 'EADDRINUSE';
      readonly immediate: boolean;
    }
  /** The connect timeout (`byMaxTime` false) or the overall timeout expired before the connection was up. */
  | { readonly kind: 'connect-timeout'; readonly byMaxTime: boolean }
  /** The overall timeout expired after the connection was up. */
  | { readonly kind: 'timeout' }
  /** The server closed without sending a byte. */
  | { readonly kind: 'empty-reply' }
  /** The connection failed while receiving (a reset). */
  | { readonly kind: 'recv'; readonly errno: TcpError }
  /** A chunk size that is not hexadecimal. */
  | { readonly kind: 'bad-chunk' }
  /** The server closed before the announced body was complete. */
  | { readonly kind: 'partial' }
  /** The reply does not start with `HTTP/`. */
  | { readonly kind: 'http09' }
  /** A status line of an HTTP version curl does not speak (`1.2`). */
  | { readonly kind: 'unsupported-version'; readonly version: string }
  /** A status line whose code is not three digits. */
  | { readonly kind: 'bad-status-code' }
  /** A field line without a colon. */
  | { readonly kind: 'header-without-colon' }
  /** A status line or head curl cannot read. */
  | { readonly kind: 'weird' };

/** What a running exchange reports as it goes (curl -v's lines come from these). */
export interface HttpTrace {
  onConnected?(socket: TcpSocket, reused: boolean): void;
  /** The request went out: its head as sent and the body's size. */
  onRequest?(head: string, bodyBytes: number): void;
  /**
   * The response head arrived (status line and fields, each line with its CRLF); `closeDelimited` when the
   * body has no length, no chunks and no `Connection: close`, so only the close will end it.
   */
  onResponseHead?(head: string, closeDelimited: boolean): void;
  /** Bytes after the head arrived in one read (raw, chunk framing included). */
  onBodyData?(rawBytes: number, data: Uint8Array): void;
}

export interface HttpRequestOptions {
  readonly dst: Ipv4Addr;
  /** Default 80. */
  readonly port?: number;
  /** Default GET, or POST with a body. */
  readonly method?: string;
  /** The request target, default `/`. */
  readonly path?: string;
  /** The request's fields in order; default Host, `User-Agent: packetlab`, `Accept: *\/*`. */
  readonly fields?: readonly HeaderField[];
  readonly body?: Uint8Array | string;
  /** A kept-alive connection from an earlier exchange to the same destination. */
  readonly socket?: TcpSocket;
  /** Give up connecting after this long (curl --connect-timeout); default none. */
  readonly connectTimeoutMs?: number;
  /** Give up the whole exchange after this long (curl --max-time); default none. */
  readonly maxTimeMs?: number;
  /** Keep the body in the result (default true; a load generator only counts it: `body` is then empty). */
  readonly keepBody?: boolean;
  readonly trace?: HttpTrace;
}

export interface HttpResult {
  /** A complete response arrived (whatever its status). */
  readonly ok: boolean;
  readonly failure: HttpFailure | undefined;
  /** 0 when no status line arrived. */
  readonly status: number;
  readonly reason: string;
  /** The status line and fields as received, each line with its CRLF, and the empty line. */
  readonly head: string;
  readonly fields: readonly HeaderField[];
  /** Bytes of every response head received (curl's size_header). */
  readonly headerBytes: number;
  /** Body bytes after decoding (curl's size_download). */
  readonly bodyBytes: number;
  /** Content-Length, or -1. */
  readonly expectedBytes: number;
  readonly body: Uint8Array;
  readonly localAddr: Ipv4Addr;
  readonly localPort: number;
  readonly remoteAddr: Ipv4Addr;
  readonly remotePort: number;
  /** Connections opened for this exchange (0 when a kept-alive one was reused or none came up). */
  readonly connects: number;
  readonly startNs: number;
  /** When the connection was up (-1 if never). */
  readonly connectNs: number;
  /** When the first response byte arrived (-1 if none). */
  readonly firstByteNs: number;
  readonly endNs: number;
  /** The response left the connection reusable as far as the client could tell (curl's "left intact"). */
  readonly keptAlive: boolean;
  /** The connection stays open for another request; the caller owns it (reuse it or destroy() it). */
  readonly socket: TcpSocket | undefined;
}

export interface HttpExchange {
  readonly done: boolean;
  /** Available once done. */
  readonly result: HttpResult | undefined;
  /** Abandons the exchange (its socket is closed); onDone is not called. */
  cancel(): void;
}

const MS = 1_000_000;
const HTTP_PREFIX = latin1Bytes('HTTP/');
/** curl's CURL_MAX_HTTP_HEADER: a longer response head is refused. */
const MAX_RESPONSE_HEAD = 100 * 1024;

type Phase = 'connecting' | 'head' | 'body' | 'done';
type Framing = 'none' | 'length' | 'chunked' | 'close';

/** Sends one request and calls `onDone` with the result in virtual time (never synchronously). */
export function httpRequest(
  ns: Namespace,
  options: HttpRequestOptions,
  onDone: (result: HttpResult) => void,
): HttpExchange {
  return new Exchange(ns, options, onDone);
}

/**
 * A GET of `[http://]ADDR[:PORT][/path]`: `httpGet(ns, 'http://10.96.40.12/sante', (result) => ...)`.
 * Throws on a target that is not an address (names need DNS, which the client does not do).
 */
export function httpGet(
  ns: Namespace,
  target: string,
  onDone: (result: HttpResult) => void,
  options: Omit<HttpRequestOptions, 'dst' | 'port' | 'path'> = {},
): HttpExchange {
  const match = /^(?:http:\/\/)?(\d+\.\d+\.\d+\.\d+)(?::(\d+))?(\/.*)?$/.exec(target);
  const dst = match === null ? undefined : parseIpv4(match[1]!);
  if (match === null || dst === undefined)
    throw new Error(`httpGet: not an http://ADDR[:PORT]/path target: ${target}`);
  return new Exchange(ns, { ...options, dst, port: Number(match[2] ?? 80), path: match[3] ?? '/' }, onDone);
}

class Exchange implements HttpExchange {
  done = false;
  result: HttpResult | undefined;
  private phase: Phase = 'connecting';
  private socket: TcpSocket | undefined;
  private readonly input = new ByteQueue();
  private readonly bodyParts: Uint8Array[] = [];
  private readonly startNs: number;
  private connectNs = -1;
  private firstByteNs = -1;
  private connects = 0;
  private status = 0;
  private reason = '';
  private head = '';
  private fields: readonly HeaderField[] = [];
  private headerBytes = 0;
  private bodyBytes = 0;
  private expectedBytes = -1;
  private framing: Framing = 'none';
  private remaining = 0;
  private chunked: ChunkedDecoder | undefined;
  private receivedAny = false;
  private peerEnded = false;
  private timers: number[] = [];
  private readonly method: string;

  constructor(
    private readonly ns: Namespace,
    private readonly options: HttpRequestOptions,
    private readonly onDone: (result: HttpResult) => void,
  ) {
    this.startNs = ns.sim.now;
    this.method = options.method ?? (options.body !== undefined ? 'POST' : 'GET');
    const scheduler = ns.sim.scheduler;
    if (options.maxTimeMs !== undefined)
      this.timers.push(
        scheduler.schedule(Math.round(options.maxTimeMs * MS), () =>
          this.fail(
            this.phase === 'connecting' ? { kind: 'connect-timeout', byMaxTime: true } : { kind: 'timeout' },
          ),
        ),
      );
    if (options.socket !== undefined) {
      // Reuse: the exchange starts on the next event, like a fresh connect's callbacks.
      const socket = options.socket;
      this.timers.push(scheduler.schedule(0, () => this.connected(socket, true)));
      return;
    }
    if (options.connectTimeoutMs !== undefined)
      this.timers.push(
        scheduler.schedule(Math.round(options.connectTimeoutMs * MS), () => {
          if (this.phase === 'connecting') this.fail({ kind: 'connect-timeout', byMaxTime: false });
        }),
      );
    const connected = ns.tcp.connect({ dst: options.dst, dstPort: options.port ?? 80 });
    if (!connected.ok) {
      const errno = connected.error;
      this.timers.push(scheduler.schedule(0, () => this.fail({ kind: 'connect', errno, immediate: true })));
      return;
    }
    this.connects = 1;
    const socket = connected.socket;
    this.socket = socket;
    socket.onConnect = (s) => this.connected(s, false);
    socket.onClose = (_s, error) => this.closed(error);
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.clearTimers();
    this.socket?.destroy();
  }

  private connected(socket: TcpSocket, reused: boolean): void {
    if (this.done) return;
    this.socket = socket;
    this.phase = 'head';
    this.connectNs = this.ns.sim.now;
    socket.onData = (_s, data) => this.received(data);
    socket.onEnd = () => this.ended();
    socket.onClose = (_s, error) => this.closed(error);
    this.options.trace?.onConnected?.(socket, reused);
    const port = this.options.port ?? 80;
    const fields = this.options.fields ?? [
      {
        name: 'Host',
        value: port === 80 ? formatIpv4(this.options.dst) : `${formatIpv4(this.options.dst)}:${port}`,
      },
      { name: 'User-Agent', value: 'packetlab' },
      { name: 'Accept', value: '*/*' },
    ];
    const body =
      typeof this.options.body === 'string'
        ? latin1Bytes(this.options.body)
        : (this.options.body ?? new Uint8Array(0));
    const lines = [`${this.method} ${this.options.path ?? '/'} HTTP/1.1`];
    for (const field of fields) lines.push(`${field.name}: ${field.value}`);
    const head = `${lines.join('\r\n')}\r\n\r\n`;
    const bytes = new Uint8Array(head.length + body.length);
    bytes.set(latin1Bytes(head), 0);
    bytes.set(body, head.length);
    socket.write(bytes);
    this.options.trace?.onRequest?.(head, body.length);
  }

  private received(data: Uint8Array): void {
    if (this.done) return;
    if (!this.receivedAny) {
      this.receivedAny = true;
      this.firstByteNs = this.ns.sim.now;
    }
    this.input.append(data);
    if (this.phase === 'head' && !this.readHead()) return;
    if (this.phase !== 'body') return;
    const raw = this.input.bytes();
    const rawLength = raw.length;
    if (rawLength === 0) return;
    this.options.trace?.onBodyData?.(rawLength, raw);
    this.readBody();
  }

  /** Heads until a final (non-1xx) one; false while the head is incomplete or after a failure. */
  private readHead(): boolean {
    for (;;) {
      const bytes = this.input.bytes();
      const n = Math.min(bytes.length, HTTP_PREFIX.length);
      for (let i = 0; i < n; i++)
        if (bytes[i] !== HTTP_PREFIX[i]) {
          this.fail({ kind: 'http09' });
          return false;
        }
      const end = headEnd(bytes);
      if (end < 0) {
        if (bytes.length > MAX_RESPONSE_HEAD) this.fail({ kind: 'weird' });
        return false;
      }
      const head = latin1(bytes.subarray(0, end));
      this.input.consume(end);
      this.headerBytes += end;
      const parsed = splitResponseHead(head);
      if (!parsed.ok) {
        // curl shows the lines it read before the bad one, then fails.
        this.options.trace?.onResponseHead?.(parsed.before, false);
        this.fail({ kind: 'header-without-colon' });
        return false;
      }
      const code = this.statusOf(parsed.startLine);
      if (code < 0) return false;
      if (code >= 100 && code < 200 && code !== 101) {
        this.options.trace?.onResponseHead?.(head, false);
        continue;
      }
      this.status = code;
      this.reason = parsed.startLine.split(' ').slice(2).join(' ');
      this.head = head;
      this.fields = parsed.fields;
      this.frame();
      this.options.trace?.onResponseHead?.(
        head,
        this.framing === 'close' && !fieldHasToken(this.fields, 'Connection', 'close'),
      );
      this.phase = 'body';
      if (this.framing === 'none') this.finish();
      return this.phase === 'body';
    }
  }

  /**
   * The status line's code, as curl's checkhttpprefix and Curl_http_readwrite_headers read it: HTTP/1.0, 1.1,
   * 2 and 3 are spoken, any other version fails, as does a code that is not three digits (-1 after failing).
   */
  private statusOf(line: string): number {
    const version = /^HTTP\/(\d)(?:\.(\d))?(?= |$)/.exec(line);
    if (version === null) {
      this.fail({ kind: 'weird' });
      return -1;
    }
    const major = version[1]!;
    const minor = version[2] ?? '0';
    if (
      !(
        (major === '1' && (minor === '0' || minor === '1')) ||
        ((major === '2' || major === '3') && minor === '0')
      )
    ) {
      this.fail({ kind: 'unsupported-version', version: `${major}.${minor}` });
      return -1;
    }
    const code = /^ (\d{3})(?: |$)/.exec(line.slice(version[0].length));
    if (code === null) {
      this.fail({ kind: 'bad-status-code' });
      return -1;
    }
    return Number(code[1]);
  }

  /** How the body ends (RFC 9112 section 6.3, as curl's http.c reads it). */
  private frame(): void {
    const transferEncoding = fieldValue(this.fields, 'Transfer-Encoding');
    const contentLength = fieldValue(this.fields, 'Content-Length');
    const length = contentLength === undefined ? undefined : parseContentLength(contentLength);
    if (length !== undefined) this.expectedBytes = length;
    if (this.method === 'HEAD' || this.status === 204 || this.status === 304) this.framing = 'none';
    else if (transferEncoding !== undefined && /(^|,)\s*chunked\s*$/i.test(transferEncoding)) {
      this.framing = 'chunked';
      this.chunked = new ChunkedDecoder((data) => this.keep(data));
    } else if (length !== undefined) {
      this.framing = length === 0 ? 'none' : 'length';
      this.remaining = length;
    } else this.framing = 'close';
  }

  private keep(data: Uint8Array): void {
    this.bodyBytes += data.length;
    if (this.options.keepBody !== false) this.bodyParts.push(data.slice());
  }

  private readBody(): void {
    const bytes = this.input.bytes();
    switch (this.framing) {
      case 'none':
        return;
      case 'length': {
        const take = Math.min(this.remaining, bytes.length);
        this.keep(bytes.subarray(0, take));
        this.remaining -= take;
        this.input.clear();
        if (this.remaining === 0) this.finish();
        return;
      }
      case 'chunked': {
        const step = this.chunked!.feed(bytes);
        this.input.clear();
        if (step.kind === 'error') this.fail({ kind: 'bad-chunk' });
        else if (step.kind === 'done') this.finish();
        return;
      }
      case 'close':
        this.keep(bytes);
        this.input.clear();
        return;
      default:
        unreachable(this.framing);
    }
  }

  /** The server's FIN. */
  private ended(): void {
    this.peerEnded = true;
    if (this.done) return;
    if (this.phase === 'head') this.endedInHead();
    else if (this.phase === 'body' && this.framing === 'close') this.finish();
    else if (this.phase === 'body') this.fail({ kind: 'partial' });
  }

  /**
   * The close came inside the head. With no complete status line curl reports an empty reply; after one,
   * curl 7.88 takes the complete lines as the whole head and the transfer as done (exit 0), as measured.
   */
  private endedInHead(): void {
    const bytes = this.input.bytes();
    const text = latin1(bytes);
    const lastLf = text.lastIndexOf('\n');
    if (lastLf < 0) {
      this.fail({ kind: 'empty-reply' });
      return;
    }
    const lines = text.slice(0, lastLf + 1);
    const parsed = splitResponseHead(`${lines}\r\n`);
    if (!parsed.ok) {
      this.options.trace?.onResponseHead?.(parsed.before, false);
      this.fail({ kind: 'header-without-colon' });
      return;
    }
    const code = this.statusOf(parsed.startLine);
    if (code < 0) return;
    this.status = code;
    this.reason = parsed.startLine.split(' ').slice(2).join(' ');
    this.head = lines;
    this.fields = parsed.fields;
    this.headerBytes += lines.length;
    this.options.trace?.onResponseHead?.(lines, false);
    this.peerEnded = true;
    this.complete(undefined, true);
  }

  private closed(error: TcpError | undefined): void {
    if (this.done) return;
    if (this.phase === 'connecting')
      this.fail({ kind: 'connect', errno: error ?? 'ECONNREFUSED', immediate: false });
    else if (error !== undefined) this.fail({ kind: 'recv', errno: error });
    else this.ended();
  }

  private finish(): void {
    const keepAlive =
      this.framing !== 'close' &&
      !fieldHasToken(this.fields, 'Connection', 'close') &&
      !/^HTTP\/1\.0 /.test(this.head);
    this.complete(undefined, keepAlive);
  }

  private fail(failure: HttpFailure): void {
    this.complete(failure, false);
  }

  private complete(failure: HttpFailure | undefined, keepAlive: boolean): void {
    if (this.done) return;
    this.done = true;
    this.phase = 'done';
    this.clearTimers();
    const socket = this.socket;
    const reusable = keepAlive && !this.peerEnded;
    if (socket !== undefined) {
      socket.onData = undefined;
      socket.onEnd = undefined;
      socket.onClose = undefined;
      socket.onConnect = undefined;
      if (!reusable) socket.destroy();
    }
    const body = new Uint8Array(this.options.keepBody === false ? 0 : this.bodyBytes);
    let at = 0;
    for (const part of this.bodyParts) {
      body.set(part, at);
      at += part.length;
    }
    this.result = {
      ok: failure === undefined,
      failure,
      status: this.status,
      reason: this.reason,
      head: this.head,
      fields: this.fields,
      headerBytes: this.headerBytes,
      bodyBytes: this.bodyBytes,
      expectedBytes: this.expectedBytes,
      body,
      localAddr: this.connectNs >= 0 ? (socket?.localAddr ?? 0) : 0,
      localPort: this.connectNs >= 0 ? (socket?.localPort ?? 0) : 0,
      remoteAddr: this.options.dst,
      remotePort: this.options.port ?? 80,
      connects: this.connectNs >= 0 ? this.connects : 0,
      startNs: this.startNs,
      connectNs: this.connectNs,
      firstByteNs: this.firstByteNs,
      endNs: this.ns.sim.now,
      keptAlive: keepAlive,
      socket: reusable ? socket : undefined,
    };
    this.onDone(this.result);
  }

  private clearTimers(): void {
    for (const timer of this.timers) this.ns.sim.scheduler.cancel(timer);
    this.timers = [];
  }
}

type ResponseHead =
  | { readonly ok: true; readonly startLine: string; readonly fields: readonly HeaderField[] }
  /** `before`: the lines ahead of the bad one, each with its line end. */
  | { readonly ok: false; readonly before: string };

/** A response head as curl reads it: any line with a colon is a field (names are not checked), one without fails. */
function splitResponseHead(head: string): ResponseHead {
  const lines = head.split('\n');
  lines.pop();
  const fields: HeaderField[] = [];
  let before = `${lines[0] ?? ''}\n`;
  for (const raw of lines.slice(1)) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon < 0) return { ok: false, before };
    fields.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
    before += `${raw}\n`;
  }
  return { ok: true, startLine: (lines[0] ?? '').replace(/\r$/, ''), fields };
}

function unreachable(value: never): never {
  throw new Error(`unhandled framing ${String(value)}`);
}
