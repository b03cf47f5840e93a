// An HTTP/1.1 server on a namespace's TCP sockets that answers as Go 1.19's net/http server does (server.go:
// conn.serve, readRequest, chunkWriter.writeHeader): fixed routes of chosen status and size, keep-alive,
// Content-Length or chunked bodies, Go's exact error answers (400, 431, 501, 505), a PROXY v2 header when asked
// for (then required, as nginx's `listen ... proxy_protocol` reads it), X-Forwarded-For, a Common Log Format
// access log, a health route that answers 503 on demand, and a per-client rate limit answering 429 (rate-limit.ts:
// the client as the log shows it). Not supported: request trailers (read and dropped),
// Expect: 100-continue, upgrades, TLS, HTTP/2, handlers other than fixed routes and `respond` callbacks.

import type { Namespace } from '../../netns/namespace.ts';
import type { TcpSocket } from '../../socket/tcp/socket.ts';
import type { TcpListener } from '../../socket/tcp/table.ts';
import { formatIpv4, type Ipv4Addr, parseIpv4 } from '../../wire/address.ts';
import { WireError } from '../../wire/error.ts';
import { PROXY_V2_HEADER_LEN, ProxyV2View, parseProxyV2 } from '../../wire/proxy-v2.ts';
import { ConnWriter } from './conn-writer.ts';
import { clfDate, httpDate } from './date.ts';
import {
  ByteQueue,
  type ChunkError,
  ChunkedDecoder,
  fieldHasToken,
  fieldValue,
  type HeaderField,
  headEnd,
  isToken,
  latin1,
  latin1Bytes,
  parseContentLength,
  splitHead,
} from './message.ts';
import { ClientRateLimiter, goDuration, type RateLimitOptions } from './rate-limit.ts';
import { reasonPhrase } from './status.ts';

/** One route's fixed answer. */
export interface HttpRoute {
  /** Default 200. */
  readonly status?: number;
  /** The body as text (default empty). */
  readonly body?: string;
  /** A body of this many bytes of filler text instead of `body`. */
  readonly bodyBytes?: number;
  /** Default: Go's sniffed `text/plain; charset=utf-8` for a non-empty body, none for an empty one. */
  readonly contentType?: string;
  /**
   * How the body is framed. Absent: as Go frames a handler's single Write (Content-Length up to 2048 bytes,
   * chunked beyond, in one chunk). true: the handler flushes, so chunked whatever the size. false: the handler
   * sets Content-Length itself (a field it wrote, so it comes first).
   */
  readonly chunked?: boolean;
  /** Bytes per chunk when chunked (default: the whole body in one chunk). */
  readonly chunkBytes?: number;
  /** Extra response fields, written sorted by name before Date as Go writes a handler's header map. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Virtual time the handler takes before answering. */
  readonly delayMs?: number;
  /** A health check: answers 503 while the server is unhealthy (`setHealthy(false)`). */
  readonly health?: boolean;
  /**
   * A handler computed per request (kube-proxy's health servers): its status, body and fields replace the fixed
   * ones; the body is framed as Go frames a single Write.
   */
  readonly respond?: (request: HttpRequestInfo) => HttpDynamicReply;
}

/** What a `respond` handler knows of the request: who asks (as the access log names it) and what. */
export interface HttpRequestInfo {
  /** The client as the access log shows it: the PROXY v2 source, X-Forwarded-For when trusted, else the peer. */
  readonly client: string;
  readonly method: string;
  readonly target: string;
}

/** What a `respond` handler answers. */
export interface HttpDynamicReply {
  readonly status: number;
  readonly body: string;
  /** Fields the handler set (written sorted, before Date). */
  readonly headers: Readonly<Record<string, string>>;
}

export interface HttpServerOptions {
  readonly port: number;
  /** Address to listen on (default any). */
  readonly addr?: string;
  readonly routes: Readonly<Record<string, HttpRoute>>;
  /** The route for every other path (a Go server whose handler is not a ServeMux); default Go's 404. */
  readonly defaultRoute?: HttpRoute;
  /** Every connection starts with a PROXY protocol v2 header (a load balancer in front, send-proxy-v2). */
  readonly proxyProtocol?: boolean;
  /** Log the first X-Forwarded-For address as the client (a backend behind a trusted proxy). */
  readonly trustForwardedFor?: boolean;
  /**
   * A rate limit per client (Traefik's RateLimit middleware), the client being what the access log shows: the TCP
   * peer, the PROXY header's source, or X-Forwarded-For when trusted. Refused requests are answered 429.
   */
  readonly rateLimit?: RateLimitOptions;
  /** Go's Server.MaxHeaderBytes: default 1 MiB; Go reads 4096 bytes beyond it before answering 431. */
  readonly maxHeaderBytes?: number;
  /** The wall-clock time (ms since 1970) at virtual time 0, for the Date field and the log. Default 0. */
  readonly epochMs?: number;
  /** Called with each access-log line (the first `logLimit` are also kept in `accessLog` and `records`). */
  readonly onLog?: (line: string) => void;
  /** Log lines and records kept in memory (default 10 000; a long load run would otherwise grow without end). */
  readonly logLimit?: number;
}

/** One logged request: who asked (as seen and as logged), what, and the answer. */
export interface AccessRecord {
  readonly timeNs: number;
  /** The TCP peer. */
  readonly peerAddr: Ipv4Addr;
  readonly peerPort: number;
  /** The source a PROXY v2 header named, if any. */
  readonly proxiedAddr: Ipv4Addr | undefined;
  /** X-Forwarded-For as received, if any. */
  readonly forwardedFor: string | undefined;
  /** What the log line shows as the client. */
  readonly client: string;
  readonly method: string;
  readonly target: string;
  readonly proto: string;
  readonly status: number;
  readonly bodyBytes: number;
}

/** Counters: what arrived, what was answered, and every malformed-input branch by name. */
export interface HttpServerStats {
  connections: number;
  requests: number;
  /** Answers by status code, error answers included. */
  responses: Record<number, number>;
  badRequestLine: number;
  unsupportedVersion: number;
  badHeader: number;
  missingHost: number;
  badContentLength: number;
  headerTooLarge: number;
  unsupportedTransferEncoding: number;
  badChunk: number;
  proxyHeaders: number;
  proxyRejected: number;
  /** Requests answered 429 by the rate limit. */
  rateLimited: number;
  resets: number;
}

export interface HttpServer {
  readonly port: number;
  readonly stats: HttpServerStats;
  readonly accessLog: string[];
  readonly records: AccessRecord[];
  /** Health routes answer 200 (true) or 503 (false). */
  setHealthy(healthy: boolean): void;
  /** Stops listening (open connections finish). */
  close(): void;
}

/** Go's DefaultMaxHeaderBytes. */
const DEFAULT_MAX_HEADER_BYTES = 1 << 20;
/** Go's initialReadLimitSize slack beyond MaxHeaderBytes. */
const READ_LIMIT_SLACK = 4096;
/** Go's rstAvoidanceDelay before closing after a 431 (closeWriteAndWait). */
const CLOSE_WAIT_MS = 500;
const MS = 1_000_000;

/** The head Go writes before its error texts (server.go: errorHeaders). */
const ERROR_HEADERS = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';

const CRLF = latin1Bytes('\r\n');
const LAST_CHUNK = latin1Bytes('0\r\n\r\n');

/** Go's bufferBeforeChunkingSize: a body that fits is sent with Content-Length, a bigger one chunked. */
const GO_BUFFER_BEFORE_CHUNKING = 2048;

/** What a handler answers and how its body is framed: Go decides (`auto`), the handler flushed, or set Content-Length. */
interface Reply {
  readonly status: number;
  readonly fields: readonly [string, string][];
  readonly body: Uint8Array;
  readonly framing: 'auto' | 'flushed' | 'length';
  readonly chunkBytes: number;
  readonly close: boolean;
}

/** http.Error (and http.NotFound): the text and a newline, as text/plain with nosniff. */
function httpError(status: number, text: string): Reply {
  return {
    status,
    fields: [
      ['Content-Type', 'text/plain; charset=utf-8'],
      ['X-Content-Type-Options', 'nosniff'],
    ],
    body: latin1Bytes(`${text}\n`),
    framing: 'auto',
    chunkBytes: 0,
    close: false,
  };
}

/**
 * Traefik's serveDelayError: Retry-After in whole seconds (rounded up), X-Retry-In as Go prints the wait, then
 * WriteHeader(429) and the status text written without a newline (so Go sniffs text/plain).
 */
function tooManyRequests(delayNs: number): Reply {
  return {
    status: 429,
    fields: [
      ['Retry-After', String(Math.ceil(delayNs / 1e9))],
      // Go writes the string's UTF-8 bytes (µs): fields here are latin1 text, one character a byte.
      ['X-Retry-In', latin1(new TextEncoder().encode(goDuration(delayNs)))],
    ],
    body: latin1Bytes(reasonPhrase(429)),
    framing: 'auto',
    chunkBytes: 0,
    close: false,
  };
}

/** The errors Go's chunked reader (internal.chunkedReader) returns, by the decoder's defect. */
const CHUNK_ERROR_TEXT: Readonly<Record<ChunkError, string>> = {
  'bad-size': 'invalid byte in chunk length',
  'bad-crlf': 'malformed chunked encoding',
  'line-too-long': 'header line too long',
};

/** Filler for `bodyBytes` bodies: a 64-byte line repeated. */
const FILLER = latin1Bytes('packetlab filler: 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHI\n');

function fillerBody(size: number): Uint8Array {
  const body = new Uint8Array(size);
  for (let i = 0; i < size; i += FILLER.length)
    body.set(FILLER.subarray(0, Math.min(FILLER.length, size - i)), i);
  return body;
}

/** A parsed request, ready to route. */
interface Request {
  readonly method: string;
  readonly target: string;
  readonly proto: string;
  readonly minor: number;
  readonly fields: readonly HeaderField[];
}

type ConnectionState = 'proxy' | 'head' | 'body' | 'answering' | 'closed';

/**
 * Starts an HTTP server in `ns`, listening at once:
 * `httpServer(ns, { port: 8000, routes: { '/sante': { body: 'ok\n' } } })`.
 * Throws when the port is taken (a programmer error in a scenario).
 */
export function httpServer(ns: Namespace, options: HttpServerOptions): HttpServer {
  const stats: HttpServerStats = {
    connections: 0,
    requests: 0,
    responses: {},
    badRequestLine: 0,
    unsupportedVersion: 0,
    badHeader: 0,
    missingHost: 0,
    badContentLength: 0,
    headerTooLarge: 0,
    unsupportedTransferEncoding: 0,
    badChunk: 0,
    proxyHeaders: 0,
    proxyRejected: 0,
    rateLimited: 0,
    resets: 0,
  };
  const accessLog: string[] = [];
  const records: AccessRecord[] = [];
  let healthy = true;
  const bodies = new Map<string, Uint8Array>();
  for (const [path, route] of Object.entries(options.routes))
    bodies.set(
      path,
      route.bodyBytes !== undefined ? fillerBody(route.bodyBytes) : latin1Bytes(route.body ?? ''),
    );
  const addr = options.addr === undefined ? 0 : parseIpv4(options.addr);
  if (addr === undefined) throw new Error(`httpServer: bad address ${options.addr}`);
  const context: ServerContext = {
    ns,
    options,
    stats,
    bodies,
    limiter: options.rateLimit === undefined ? undefined : new ClientRateLimiter(options.rateLimit),
    healthy: () => healthy,
    log(record) {
      const line = formatAccessLine(record, options.epochMs ?? 0);
      if (records.length < (options.logLimit ?? 10_000)) {
        records.push(record);
        accessLog.push(line);
      }
      options.onLog?.(line);
    },
  };
  const listener: TcpListener | 'EADDRINUSE' = ns.tcp.listen(addr, options.port, (socket) => {
    stats.connections++;
    new ServerConnection(context, socket);
  });
  if (listener === 'EADDRINUSE') throw new Error(`httpServer: port ${options.port} is in use in ${ns.name}`);
  return {
    port: options.port,
    stats,
    accessLog,
    records,
    setHealthy(value) {
      healthy = value;
    },
    close() {
      listener.close();
    },
  };
}

/**
 * One access-log line in the Common Log Format (NCSA, Apache's `common`):
 * `host ident authuser [date] "request line" status bytes`, bytes `-` for an empty body.
 */
export function formatAccessLine(record: AccessRecord, epochMs: number): string {
  const date = clfDate(epochMs + Math.floor(record.timeNs / MS));
  const bytes = record.bodyBytes === 0 ? '-' : String(record.bodyBytes);
  return `${record.client} - - [${date}] "${record.method} ${record.target} ${record.proto}" ${record.status} ${bytes}`;
}

interface ServerContext {
  readonly ns: Namespace;
  readonly options: HttpServerOptions;
  readonly stats: HttpServerStats;
  readonly bodies: ReadonlyMap<string, Uint8Array>;
  readonly limiter: ClientRateLimiter | undefined;
  healthy(): boolean;
  log(record: AccessRecord): void;
}

/** One accepted connection: conn.serve's loop of readRequest → handler → finishRequest. */
class ServerConnection {
  private state: ConnectionState;
  private readonly input = new ByteQueue();
  private request: Request | undefined;
  private bodyRemaining = 0;
  private chunked: ChunkedDecoder | undefined;
  private proxiedAddr: Ipv4Addr | undefined;
  private peerEnded = false;
  private timer = -1;
  private readonly writer: ConnWriter;

  constructor(
    private readonly ctx: ServerContext,
    private readonly socket: TcpSocket,
  ) {
    // Go's net package sets TCP_NODELAY on every TCP connection (net/tcpsock_posix.go: newTCPConn → setNoDelay).
    socket.setNoDelay(true);
    this.writer = new ConnWriter(socket);
    this.state = ctx.options.proxyProtocol ? 'proxy' : 'head';
    socket.onData = (_s, data) => {
      if (this.state === 'closed') return;
      this.input.append(data);
      this.process();
    };
    socket.onEnd = () => {
      this.peerEnded = true;
      // An EOF while waiting for a request ends the connection (Go: isCommonNetReadError, no reply).
      if (this.state === 'head' || this.state === 'proxy' || this.state === 'body') this.close();
    };
    socket.onClose = (_s, error) => {
      if (error !== undefined) this.ctx.stats.resets++;
      this.stop();
    };
  }

  private get limit(): number {
    return (this.ctx.options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES) + READ_LIMIT_SLACK;
  }

  private process(): void {
    for (;;) {
      switch (this.state) {
        case 'proxy':
          if (!this.readProxyHeader()) return;
          break;
        case 'head':
          if (!this.readHead()) return;
          break;
        case 'body':
          if (!this.readBody()) return;
          break;
        case 'answering':
        case 'closed':
          return;
        default:
          unreachable(this.state);
      }
    }
  }

  /**
   * The PROXY v2 header before the stream (nginx's ngx_proxy_protocol_read, go-proxyproto with REQUIRE): a wrong signature,
   * version, command or length fails the connection's first read, and the server closes it without a reply.
   */
  private readProxyHeader(): boolean {
    const bytes = this.input.bytes();
    const view = ProxyV2View.checked(bytes, 0);
    if (view instanceof WireError) {
      const waiting =
        view.defect === 'proxy.length-exceeds-buffer' ||
        (view.defect === 'proxy.truncated' && signaturePrefixMatches(bytes));
      if (!waiting) this.rejectProxy();
      return false;
    }
    const repr = parseProxyV2(view);
    if (repr instanceof WireError) {
      this.rejectProxy();
      return false;
    }
    this.ctx.stats.proxyHeaders++;
    if (repr.command === 'proxy' && repr.addresses.type === 'ipv4') this.proxiedAddr = repr.addresses.srcAddr;
    this.input.consume(view.headerLen);
    this.state = 'head';
    return true;
  }

  private rejectProxy(): void {
    this.ctx.stats.proxyRejected++;
    this.close();
  }

  /** readRequest: the head within Go's read limit, the request line, the fields, the body's framing. */
  private readHead(): boolean {
    const bytes = this.input.bytes();
    if (bytes.length === 0) return false;
    const end = headEnd(bytes.length > this.limit ? bytes.subarray(0, this.limit) : bytes);
    if (end < 0) {
      if (bytes.length >= this.limit) {
        this.ctx.stats.headerTooLarge++;
        this.answerError(431, '', { waitBeforeClose: true });
      }
      return false;
    }
    const head = latin1(bytes.subarray(0, end));
    this.input.consume(end);
    const parsed = splitHead(head);
    const line = parsed.ok ? parsed.startLine : head.split('\n')[0]!.replace(/\r$/, '');
    const words = line.split(' ');
    const version = /^HTTP\/(\d)\.(\d)$/.exec(words[2] ?? '');
    const target = words[1] ?? '';
    const targetOk = target.startsWith('/') || target === '*' || /^https?:\/\//.test(target);
    if (words.length !== 3 || !isToken(words[0]!) || !targetOk || version === null) {
      this.ctx.stats.badRequestLine++;
      this.answerError(400, '');
      return false;
    }
    // http1ServerSupportsRequest: only HTTP/1.x (HTTP/2 arrives by its preface, not modelled).
    if (version[1] !== '1') {
      this.ctx.stats.unsupportedVersion++;
      this.answerError(505, 'unsupported protocol version');
      return false;
    }
    if (!parsed.ok) {
      this.ctx.stats.badHeader++;
      this.answerError(400, '');
      return false;
    }
    const minor = Number(version[2]);
    if (minor >= 1 && fieldValue(parsed.fields, 'Host') === undefined) {
      this.ctx.stats.missingHost++;
      this.answerError(400, 'missing required Host header');
      return false;
    }
    const transferEncoding = fieldValue(parsed.fields, 'Transfer-Encoding');
    const contentLength = fieldValue(parsed.fields, 'Content-Length');
    this.chunked = undefined;
    this.bodyRemaining = 0;
    if (transferEncoding !== undefined) {
      if (transferEncoding.toLowerCase() !== 'chunked') {
        this.ctx.stats.unsupportedTransferEncoding++;
        this.answerError(501, 'Unsupported transfer encoding', { textOnly: true });
        return false;
      }
      this.chunked = new ChunkedDecoder(() => {});
    } else if (contentLength !== undefined) {
      const length = parseContentLength(contentLength);
      if (length === undefined) {
        this.ctx.stats.badContentLength++;
        this.answerError(400, '');
        return false;
      }
      this.bodyRemaining = length;
    }
    this.request = {
      method: words[0]!,
      target: words[1]!,
      proto: words[2]!,
      minor,
      fields: parsed.fields,
    };
    this.ctx.stats.requests++;
    this.state = 'body';
    return true;
  }

  /** The request body, read whole before answering (a handler that reads its body first). */
  private readBody(): boolean {
    if (this.chunked !== undefined) {
      const step = this.chunked.feed(this.input.bytes());
      if (step.kind === 'error') {
        // The handler's io.ReadAll fails: http.Error(w, err.Error(), 400), and Go closes after a body error.
        this.ctx.stats.badChunk++;
        this.state = 'answering';
        this.input.clear();
        this.answer(this.request!, { ...httpError(400, CHUNK_ERROR_TEXT[step.error]), close: true });
        return false;
      }
      this.input.consume(step.consumed);
      if (step.kind === 'more') return false;
    } else if (this.bodyRemaining > 0) {
      const take = Math.min(this.bodyRemaining, this.input.length);
      this.input.consume(take);
      this.bodyRemaining -= take;
      if (this.bodyRemaining > 0) return false;
    }
    this.state = 'answering';
    const request = this.request!;
    const route = this.ctx.options.routes[request.target.split('?')[0]!] ?? this.ctx.options.defaultRoute;
    // The rate limit runs before the handler (a middleware): a refusal is answered at once.
    const limit = this.ctx.limiter?.take(this.clientOf(request), this.ctx.ns.sim.now);
    if (limit?.kind === 'reject') {
      this.ctx.stats.rateLimited++;
      return this.answer(request, tooManyRequests(limit.delayNs));
    }
    const delayNs = Math.round((route?.delayMs ?? 0) * MS) + (limit?.delayNs ?? 0);
    if (delayNs <= 0) return this.answer(request, this.reply(request, route));
    this.timer = this.ctx.ns.sim.scheduler.schedule(delayNs, () => {
      this.timer = -1;
      if (this.answer(request, this.reply(request, route))) this.process();
    });
    return false;
  }

  /** The route's reply: the handler's status, fields and body, and how it frames them. */
  private reply(request: Request, route: HttpRoute | undefined): Reply {
    if (route === undefined) return httpError(404, '404 page not found');
    if (route.health && !this.ctx.healthy()) return httpError(503, 'Service Unavailable');
    if (route.respond !== undefined) {
      const dynamic = route.respond({
        client: this.clientOf(request),
        method: request.method,
        target: request.target,
      });
      return {
        status: dynamic.status,
        fields: Object.entries(dynamic.headers),
        body: latin1Bytes(dynamic.body),
        framing: 'auto',
        chunkBytes: dynamic.body.length,
        close: false,
      };
    }
    const fields: [string, string][] = Object.entries(route.headers ?? {});
    if (route.contentType !== undefined) fields.push(['Content-Type', route.contentType]);
    const body = this.ctx.bodies.get(request.target.split('?')[0]!) ?? latin1Bytes(route.body ?? '');
    const framing = route.chunked === true ? 'flushed' : route.chunked === false ? 'length' : 'auto';
    if (framing === 'length') fields.push(['Content-Length', String(body.length)]);
    return {
      status: route.status ?? 200,
      fields,
      body,
      framing,
      chunkBytes: route.chunkBytes ?? body.length,
      close: false,
    };
  }

  /**
   * The handler's answer as Go's chunkWriter.writeHeader frames it, then finishRequest: true when the
   * connection waits for the next request, false when it closed. Fields the handler set come first, sorted;
   * then Date; Content-Length when Go knows it (the whole body fit its 2048-byte buffer); a sniffed
   * Content-Type; Connection; Transfer-Encoding when the body is chunked (flushed, or too big to buffer).
   */
  private answer(request: Request, reply: Reply): boolean {
    if (this.state === 'closed') return false;
    const http11 = request.minor >= 1;
    const head = request.method === 'HEAD';
    const { status, body } = reply;
    const bodyAllowed = status !== 204 && status !== 304 && !(status >= 100 && status < 200);
    const fields = [...reply.fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    let contentLength = false;
    let chunked = false;
    if (bodyAllowed && reply.framing === 'auto' && body.length <= GO_BUFFER_BEFORE_CHUNKING)
      contentLength = true;
    else if (bodyAllowed && !head && reply.framing !== 'length' && http11) chunked = true;
    const delimited = !bodyAllowed || head || reply.framing === 'length' || contentLength || chunked;
    let close =
      reply.close ||
      fieldHasToken(request.fields, 'Connection', 'close') ||
      (!http11 && !fieldHasToken(request.fields, 'Connection', 'keep-alive'));
    const keepAlive10 = !http11 && !close && delimited;
    if (!delimited) close = true;
    const lines = [`HTTP/1.${http11 ? 1 : 0} ${status} ${reasonPhrase(status)}`];
    for (const [name, value] of fields) lines.push(`${name}: ${value}`);
    const epochMs = this.ctx.options.epochMs ?? 0;
    lines.push(`Date: ${httpDate(epochMs + Math.floor(this.ctx.ns.sim.now / MS))}`);
    if (contentLength) lines.push(`Content-Length: ${body.length}`);
    const typed = fields.some(([name]) => name.toLowerCase() === 'content-type');
    if (!typed && bodyAllowed && body.length > 0) lines.push('Content-Type: text/plain; charset=utf-8');
    if (close && http11) lines.push('Connection: close');
    else if (keepAlive10) lines.push('Connection: keep-alive');
    if (chunked) lines.push('Transfer-Encoding: chunked');
    const sendBody = bodyAllowed && !head;
    // Go's writes: the head and each chunk's framing and bytes go into conn.bufw (4096 bytes), which a handler's
    // Flush empties (response.Flush → chunkWriter.flush → bufw.Flush) and finishRequest empties at the end; with
    // TCP_NODELAY (Go's default) each write() leaves at once.
    const out = this.writer;
    out.write(latin1Bytes(`${lines.join('\r\n')}\r\n\r\n`));
    if (sendBody && chunked) {
      const size = Math.max(1, reply.chunkBytes);
      for (let at = 0; at < body.length; at += size) {
        const piece = body.subarray(at, Math.min(at + size, body.length));
        out.write(latin1Bytes(`${piece.length.toString(16)}\r\n`));
        out.write(piece);
        out.write(CRLF);
        // The handler flushed after each piece but the last (which finishRequest writes with the last chunk).
        if (reply.framing === 'flushed' && at + size < body.length) out.flush();
      }
      out.write(LAST_CHUNK);
    } else if (sendBody) out.write(body);
    out.flush();
    this.count(status);
    this.logRequest(request, status, sendBody ? body.length : 0);
    if (close || this.peerEnded) {
      this.close();
      return false;
    }
    this.state = 'head';
    this.request = undefined;
    return true;
  }

  /** The client the log names: the first X-Forwarded-For address when trusted, else the PROXY v2 source or the peer. */
  private clientOf(request: Request): string {
    const firstForwarded = fieldValue(request.fields, 'X-Forwarded-For')?.split(',')[0]?.trim();
    if (this.ctx.options.trustForwardedFor && firstForwarded !== undefined && firstForwarded !== '')
      return firstForwarded;
    return formatIpv4(this.proxiedAddr ?? this.socket.remoteAddr);
  }

  private logRequest(request: Request, status: number, bodyBytes: number): void {
    const forwardedFor = fieldValue(request.fields, 'X-Forwarded-For');
    const client = this.clientOf(request);
    this.ctx.log({
      timeNs: this.ctx.ns.sim.now,
      peerAddr: this.socket.remoteAddr,
      peerPort: this.socket.remotePort,
      proxiedAddr: this.proxiedAddr,
      forwardedFor,
      client,
      method: request.method,
      target: request.target,
      proto: request.proto,
      status,
      bodyBytes,
    });
  }

  /**
   * Go's answer to a request it could not read, then the end of the connection: `HTTP/1.1 CODE TEXT`,
   * its error headers and `CODE TEXT` as the body (`400 Bad Request: missing required Host header`), or
   * for 501 the bare text. After a 431 Go half-closes and waits before closing (closeWriteAndWait).
   */
  private answerError(
    status: number,
    detail: string,
    how: { waitBeforeClose?: boolean; textOnly?: boolean } = {},
  ): void {
    const publicText = `${status} ${reasonPhrase(status)}${how.textOnly || detail === '' ? '' : `: ${detail}`}`;
    const body = how.textOnly ? detail : publicText;
    this.socket.write(latin1Bytes(`HTTP/1.1 ${publicText}${ERROR_HEADERS}${body}`));
    this.count(status);
    this.input.clear();
    if (how.waitBeforeClose) {
      this.state = 'closed';
      this.socket.end();
      this.timer = this.ctx.ns.sim.scheduler.schedule(CLOSE_WAIT_MS * MS, () => {
        this.timer = -1;
        this.socket.destroy();
      });
      return;
    }
    this.close();
  }

  private count(status: number): void {
    const responses = this.ctx.stats.responses;
    responses[status] = (responses[status] ?? 0) + 1;
  }

  /** c.close(): the socket closes (a FIN; the application reads everything, so no reset). */
  private close(): void {
    this.stop();
    this.socket.destroy();
  }

  private stop(): void {
    this.state = 'closed';
    if (this.timer >= 0) this.ctx.ns.sim.scheduler.cancel(this.timer);
    this.timer = -1;
    this.input.clear();
  }
}

const PROXY_SIGNATURE = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];

/** Whether the bytes so far could still begin a PROXY v2 header (the signature is compared as it arrives). */
function signaturePrefixMatches(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, PROXY_SIGNATURE.length);
  for (let i = 0; i < n; i++) if (bytes[i] !== PROXY_SIGNATURE[i]) return false;
  return bytes.length < PROXY_V2_HEADER_LEN;
}

function unreachable(value: never): never {
  throw new Error(`unhandled connection state ${String(value)}`);
}
