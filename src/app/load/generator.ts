// A load generator in one namespace, in virtual time: an open loop (N new requests per second, Poisson or evenly
// spaced arrivals drawn from the seed) or a closed loop of C clients, each an HTTP GET of one path or a plain TCP
// connect to one destination, optionally over a keep-alive pool; it counts outcomes by errno or curl exit code and
// summarizes latency. Not supported: several destinations, request bodies, rate ramps, coordinated-omission fixes.

import type { Rng } from '../../core/rng.ts';
import type { Namespace } from '../../netns/namespace.ts';
import type { TcpSocket } from '../../socket/tcp/socket.ts';
import { type Ipv4Addr, parseIpv4 } from '../../wire/address.ts';
import { type HttpResult, httpRequest } from '../http/client.ts';
import { curlExitCode } from '../http/failure.ts';
import { formatLoadReport, type LoadReport, summarize } from './report.ts';

export interface LoadOptions {
  /** `ADDR:PORT`. */
  readonly target: string;
  /** The path each request GETs (default `/`); ignored with `connect: true`. */
  readonly path?: string;
  /** Plain TCP connects (closed at once by the client) instead of HTTP requests. */
  readonly connect?: boolean;
  /** Open loop: new requests per virtual second. */
  readonly rate?: number;
  /** Closed loop: this many clients, each starting its next request when the last ended. */
  readonly concurrency?: number;
  /** How long requests are started. */
  readonly durationMs: number;
  /** Open loop arrivals: `poisson` (default, exponential gaps from the seed) or `uniform`. */
  readonly arrivals?: 'poisson' | 'uniform';
  /** Closed loop: pause between a client's requests (default 1 ms, so zero-latency links still advance time). */
  readonly thinkMs?: number;
  /** Reuse connections through a keep-alive pool (HTTP only). */
  readonly keepAlive?: boolean;
  /**
   * Without keepAlive: each connection stays open, idle, this long after its response before the client closes it
   * (a client made per request and dropped, whose pool closes its unused connection on a timer, as Go's
   * http.Transport does after IdleConnTimeout). Default 0: closed at once, as curl does on exit.
   */
  readonly idleCloseMs?: number;
  /** A request that has not finished after this long fails as curl's 28 (default 10 000 ms). */
  readonly timeoutMs?: number;
  /** The rng stream's label (default `load-N` for the namespace's Nth generator). */
  readonly label?: string;
}

export interface LoadGenerator {
  /** The counts so far. */
  report(): LoadReport;
  /** The report as JSON text. */
  json(): string;
  /** The report as a fixed-width table. */
  table(): string;
  /** Stops starting requests (those in flight finish). */
  stop(): void;
}

const MS = 1_000_000;

/** Generators started per namespace, so each gets its own rng stream in a deterministic order. */
const generatorsStarted = new WeakMap<Namespace, number>();

function nextLabel(ns: Namespace): string {
  const n = (generatorsStarted.get(ns) ?? 0) + 1;
  generatorsStarted.set(ns, n);
  return `load-${n}`;
}

/**
 * Starts a load run at once:
 * `loadGenerator(ns, { target: '10.96.40.12:80', path: '/sante', rate: 200, durationMs: 2000 })`.
 * Throws on a bad target or a run that is neither open nor closed (programmer errors).
 */
export function loadGenerator(ns: Namespace, options: LoadOptions): LoadGenerator {
  return new Load(ns, options);
}

class Load implements LoadGenerator {
  private readonly dst: Ipv4Addr;
  private readonly port: number;
  private readonly rng: Rng;
  private readonly startNs: number;
  private readonly endNs: number;
  private lastDoneNs: number;
  private stopped = false;
  private started = 0;
  private completed = 0;
  private succeeded = 0;
  private connections = 0;
  private readonly statuses: Record<string, number> = {};
  private readonly failures: Record<string, number> = {};
  private readonly latenciesMs: number[] = [];
  private readonly idle: TcpSocket[] = [];
  private arrivalTimer = -1;

  constructor(
    private readonly ns: Namespace,
    private readonly options: LoadOptions,
  ) {
    const match = /^(\d+\.\d+\.\d+\.\d+):(\d+)$/.exec(options.target);
    const dst = match === null ? undefined : parseIpv4(match[1]!);
    if (match === null || dst === undefined)
      throw new Error(`loadGenerator: target must be ADDR:PORT, got ${options.target}`);
    this.dst = dst;
    this.port = Number(match[2]);
    this.rng = ns.rng.fork(options.label ?? nextLabel(ns));
    this.startNs = ns.sim.now;
    this.lastDoneNs = this.startNs;
    this.endNs = this.startNs + Math.round(options.durationMs * MS);
    const scheduler = ns.sim.scheduler;
    if (options.rate !== undefined && options.rate > 0) {
      this.arrivalTimer = scheduler.schedule(0, () => this.arrive());
    } else if (options.concurrency !== undefined && options.concurrency > 0) {
      for (let i = 0; i < options.concurrency; i++) scheduler.schedule(0, () => this.client());
    } else throw new Error('loadGenerator: give a rate (open loop) or a concurrency (closed loop)');
  }

  stop(): void {
    this.stopped = true;
    if (this.arrivalTimer >= 0) this.ns.sim.scheduler.cancel(this.arrivalTimer);
    this.arrivalTimer = -1;
  }

  /** Open loop: one request now, the next after a gap. */
  private arrive(): void {
    this.arrivalTimer = -1;
    if (this.stopped || this.ns.sim.now >= this.endNs) return;
    this.request(() => {});
    const rate = this.options.rate!;
    const meanNs = 1e9 / rate;
    const gapNs = this.options.arrivals === 'uniform' ? meanNs : -Math.log(1 - this.rng.float()) * meanNs;
    const at = this.ns.sim.now + Math.max(1, Math.round(gapNs));
    if (at < this.endNs) this.arrivalTimer = this.ns.sim.scheduler.scheduleAt(at, () => this.arrive());
  }

  /** Closed loop: one client's next request, after its think time. */
  private client(): void {
    if (this.stopped || this.ns.sim.now >= this.endNs) return;
    this.request(() => {
      const thinkNs = Math.round((this.options.thinkMs ?? 1) * MS);
      this.ns.sim.scheduler.schedule(thinkNs, () => this.client());
    });
  }

  private request(then: () => void): void {
    this.started++;
    const startNs = this.ns.sim.now;
    const done = (failure: string | undefined, status: number) => {
      this.completed++;
      this.lastDoneNs = this.ns.sim.now;
      if (status > 0) this.statuses[status] = (this.statuses[status] ?? 0) + 1;
      if (failure === undefined) {
        this.succeeded++;
        this.latenciesMs.push((this.ns.sim.now - startNs) / MS);
      } else this.failures[failure] = (this.failures[failure] ?? 0) + 1;
      then();
    };
    if (this.options.connect) this.connectOnce(done);
    else this.get(done);
  }

  private get(done: (failure: string | undefined, status: number) => void): void {
    const socket = this.options.keepAlive ? this.idle.shift() : undefined;
    httpRequest(
      this.ns,
      {
        dst: this.dst,
        port: this.port,
        path: this.options.path ?? '/',
        fields: [
          { name: 'Host', value: this.options.target },
          { name: 'User-Agent', value: 'packetlab-load' },
          { name: 'Accept', value: '*/*' },
        ],
        maxTimeMs: this.options.timeoutMs ?? 10_000,
        keepBody: false,
        ...(socket !== undefined ? { socket } : {}),
      },
      (result) => {
        this.connections += result.connects;
        this.release(result);
        done(failureKey(result), result.ok ? result.status : 0);
      },
    );
  }

  /** A kept-alive connection goes back to the pool, or closes (the client closes first, as curl does on exit). */
  private release(result: HttpResult): void {
    const socket = result.socket;
    if (socket === undefined) return;
    if (!this.options.keepAlive) {
      const idleMs = this.options.idleCloseMs ?? 0;
      if (idleMs <= 0) socket.destroy();
      else this.ns.sim.scheduler.schedule(Math.round(idleMs * MS), () => socket.destroy());
      return;
    }
    const forget = () => {
      const at = this.idle.indexOf(socket);
      if (at >= 0) this.idle.splice(at, 1);
    };
    socket.onEnd = (s) => {
      forget();
      s.destroy();
    };
    socket.onClose = forget;
    this.idle.push(socket);
  }

  /** A plain connect: success once established, then the client closes. */
  private connectOnce(done: (failure: string | undefined, status: number) => void): void {
    const scheduler = this.ns.sim.scheduler;
    const connected = this.ns.tcp.connect({ dst: this.dst, dstPort: this.port });
    if (!connected.ok) {
      const error = connected.error;
      scheduler.schedule(0, () => done(error, 0));
      return;
    }
    this.connections++;
    const socket = connected.socket;
    let finished = false;
    const timer = scheduler.schedule(Math.round((this.options.timeoutMs ?? 10_000) * MS), () => {
      finished = true;
      socket.destroy();
      done('curl 28', 0);
    });
    socket.onConnect = (s) => {
      if (finished) return;
      finished = true;
      scheduler.cancel(timer);
      s.destroy();
      done(undefined, 0);
    };
    socket.onClose = (_s, error) => {
      if (finished) return;
      finished = true;
      scheduler.cancel(timer);
      done(error ?? 'ECONNRESET', 0);
    };
  }

  report(): LoadReport {
    const { rate, concurrency } = this.options;
    return {
      target: this.options.target,
      request: this.options.connect
        ? 'connect'
        : `GET ${this.options.path ?? '/'}${this.options.keepAlive ? ' (keep-alive)' : ''}`,
      loop: rate !== undefined && rate > 0 ? `open ${rate}/s` : `closed ${concurrency}`,
      durationMs: this.options.durationMs,
      elapsedMs: (this.lastDoneNs - this.startNs) / MS,
      started: this.started,
      completed: this.completed,
      succeeded: this.succeeded,
      failed: this.completed - this.succeeded,
      inFlight: this.started - this.completed,
      connections: this.connections,
      statuses: { ...this.statuses },
      failures: { ...this.failures },
      latencyMs: summarize(this.latenciesMs),
    };
  }

  json(): string {
    return `${JSON.stringify(this.report(), null, 2)}\n`;
  }

  table(): string {
    return formatLoadReport(this.report());
  }
}

/** A failed request's key: the errno of a connection failure or reset, curl's exit code otherwise, or the HTTP error status. */
function failureKey(result: HttpResult): string | undefined {
  const failure = result.failure;
  if (failure === undefined) return result.status >= 400 ? `http ${result.status}` : undefined;
  if (failure.kind === 'connect' || failure.kind === 'recv') return failure.errno;
  return `curl ${curlExitCode(failure)}`;
}
