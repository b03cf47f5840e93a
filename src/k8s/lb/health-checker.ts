// The external load balancer's health checks, as a cloud L4 load balancer runs them against a Service's nodes: an
// HTTP GET of `path` on each node's health-check port every `interval` seconds from the LB's namespace, a probe
// failing on any status but 200 or on no complete answer within `timeout`; a node leaves rotation after
// `unhealthyThreshold` failures in a row and comes back after `healthyThreshold` successes. A node starts out of
// rotation until its first probe passes. No HTTPS or TCP-only checks, no jitter between probes.

import type { HttpExchange } from '../../app/http/client.ts';
import { httpRequest } from '../../app/http/client.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { parseIpv4 } from '../../wire/address.ts';

export interface HealthCheckOptions {
  /** Seconds between probes of one target (default 5). */
  readonly intervalSeconds?: number;
  /** Seconds a probe may take (default 2). */
  readonly timeoutSeconds?: number;
  /** Failures in a row that take a node out (default 1: out at the first 503 or silence). */
  readonly unhealthyThreshold?: number;
  /** Successes in a row that put it back (default 1). */
  readonly healthyThreshold?: number;
  /** The probe's path (default `/healthz`). */
  readonly path?: string;
  /**
   * One port probed on every node for every Service, as a health check set by hand (or by a cloud annotation)
   * would: the Service's healthCheckNodePort is then ignored. Default: the Service's (the load-balancer controller
   * picks healthCheckNodePort for externalTrafficPolicy Local, kube-proxy's 10256 otherwise).
   */
  readonly port?: number;
}

/** One probe as it ended, for tests and traces. */
export interface ProbeRecord {
  readonly at: number;
  readonly target: string;
  /** 0 when no answer came. */
  readonly status: number;
  readonly healthy: boolean;
}

/** One node's health-check endpoint. */
interface Target {
  readonly addr: string;
  readonly port: number;
  healthy: boolean;
  successes: number;
  failures: number;
  timer: number;
  exchange: HttpExchange | undefined;
}

export class HealthChecker {
  /** Every probe's outcome, in order (the first 10 000). */
  readonly probes: ProbeRecord[] = [];
  private readonly targets = new Map<string, Target>();
  private readonly intervalNs: number;
  private readonly timeoutMs: number;
  private readonly unhealthyThreshold: number;
  private readonly healthyThreshold: number;
  private readonly path: string;

  /** `onChange` runs when a target enters or leaves rotation. */
  constructor(
    private readonly ns: Namespace,
    options: HealthCheckOptions,
    private readonly onChange: () => void,
  ) {
    this.intervalNs = (options.intervalSeconds ?? 5) * 1e9;
    this.timeoutMs = (options.timeoutSeconds ?? 2) * 1000;
    this.unhealthyThreshold = options.unhealthyThreshold ?? 1;
    this.healthyThreshold = options.healthyThreshold ?? 1;
    this.path = options.path ?? '/healthz';
  }

  /** Probes exactly these `addr:port` targets from now on (new ones at once), forgetting the others. */
  setTargets(targets: readonly { readonly addr: string; readonly port: number }[]): void {
    const wanted = new Set(targets.map((target) => `${target.addr}:${target.port}`));
    for (const [key, target] of this.targets)
      if (!wanted.has(key)) {
        this.stopTarget(target);
        this.targets.delete(key);
      }
    for (const { addr, port } of targets) {
      const key = `${addr}:${port}`;
      if (this.targets.has(key)) continue;
      const target: Target = {
        addr,
        port,
        healthy: false,
        successes: 0,
        failures: 0,
        timer: -1,
        exchange: undefined,
      };
      this.targets.set(key, target);
      this.probe(target);
    }
  }

  /** Whether `addr:port` is in rotation. */
  isHealthy(addr: string, port: number): boolean {
    return this.targets.get(`${addr}:${port}`)?.healthy ?? false;
  }

  stop(): void {
    for (const target of this.targets.values()) this.stopTarget(target);
    this.targets.clear();
  }

  private stopTarget(target: Target): void {
    if (target.timer !== -1) this.ns.sim.scheduler.cancel(target.timer);
    target.timer = -1;
    target.exchange?.cancel();
    target.exchange = undefined;
  }

  private probe(target: Target): void {
    target.timer = -1;
    const started = this.ns.sim.now;
    target.exchange = httpRequest(
      this.ns,
      {
        dst: parseIpv4(target.addr)!,
        port: target.port,
        path: this.path,
        maxTimeMs: this.timeoutMs,
        fields: [
          { name: 'Host', value: `${target.addr}:${target.port}` },
          { name: 'User-Agent', value: 'packetlab-lb-health-check' },
          { name: 'Connection', value: 'close' },
        ],
      },
      (result) => {
        target.exchange = undefined;
        const passed = result.ok && result.status === 200;
        if (this.probes.length < 10_000)
          this.probes.push({
            at: this.ns.sim.now,
            target: `${target.addr}:${target.port}`,
            status: result.status,
            healthy: passed,
          });
        const was = target.healthy;
        if (passed) {
          target.failures = 0;
          target.successes++;
          if (target.successes >= this.healthyThreshold) target.healthy = true;
        } else {
          target.successes = 0;
          target.failures++;
          if (target.failures >= this.unhealthyThreshold) target.healthy = false;
        }
        // The next probe starts `interval` after this one started.
        const next = Math.max(0, started + this.intervalNs - this.ns.sim.now);
        target.timer = this.ns.sim.scheduler.schedule(next, () => this.probe(target));
        if (was !== target.healthy) this.onChange();
      },
    );
  }
}
