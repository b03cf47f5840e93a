// The kubelet's readiness prober for one container (pkg/kubelet/prober/worker.go, prober.go): an HTTP GET to the
// pod's address every periodSeconds from the node's namespace, 1 s timeout (timeoutSeconds' default); a status of
// 200-399 is a success, anything else or no answer a failure; the container turns ready at the first success
// (successThreshold 1) and unready after failureThreshold failures in a row. It starts unready (a container with a
// readiness probe is not ready until it passes) and probes at once (initialDelaySeconds 0). No liveness or startup
// probes, no exec or TCP probes, no custom probe headers (the request carries Host, kube-probe's User-Agent, Accept and
// Connection: close, not Go's exact field set).

import { httpGet } from '../../app/http/client.ts';
import type { Scheduler, TimerId } from '../../core/scheduler.ts';
import type { Namespace } from '../../netns/namespace.ts';
import type { Probe } from '../objects.ts';

const PROBE_TIMEOUT_MS = 1000;

export class ReadinessProber {
  private ready = false;
  private failures = 0;
  private timer: TimerId | undefined;
  private stopped = false;

  constructor(
    private readonly from: Namespace,
    private readonly scheduler: Scheduler,
    private readonly podIp: string,
    private readonly probe: Probe,
    /** Told when the result flips (the status manager updates the pod). */
    private readonly onChange: (ready: boolean) => void,
  ) {}

  start(): void {
    this.run();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.scheduler.cancel(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    if (this.stopped) return;
    const { port, path } = this.probe.httpGet;
    httpGet(
      this.from,
      `http://${this.podIp}:${port}${path}`,
      (result) => {
        if (this.stopped) return;
        this.record(result.ok && result.status >= 200 && result.status < 400);
      },
      {
        maxTimeMs: PROBE_TIMEOUT_MS,
        fields: [
          { name: 'Host', value: `${this.podIp}:${port}` },
          { name: 'User-Agent', value: 'kube-probe/1.31' },
          { name: 'Accept', value: '*/*' },
          { name: 'Connection', value: 'close' },
        ],
      },
    );
    this.timer = this.scheduler.schedule(this.probe.periodSeconds * 1e9, () => this.run());
  }

  private record(success: boolean): void {
    if (success) {
      this.failures = 0;
      if (!this.ready) this.flip(true);
      return;
    }
    this.failures++;
    if (this.ready && this.failures >= this.probe.failureThreshold) this.flip(false);
  }

  private flip(ready: boolean): void {
    this.ready = ready;
    this.onChange(ready);
  }
}
