import { describe, expect, it } from 'vitest';
import { latin1Bytes } from '../../../src/app/http/message.ts';
import { httpServer } from '../../../src/app/http/server.ts';
import { loadGenerator } from '../../../src/app/load/generator.ts';
import { exec } from '../../../src/tools/exec.ts';
import { twoHosts } from '../http/topology.ts';

/** A server on b:9000 whose n-th answer (n = 1, 2, ...) comes n ms after its request. */
function slowerAndSlower(b: ReturnType<typeof twoHosts>['b']) {
  let n = 0;
  const listener = b.tcp.listen(0, 9000, (socket) => {
    socket.onData = (s) => {
      const delay = ++n;
      b.sim.scheduler.schedule(delay * 1e6, () =>
        s.write(latin1Bytes('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')),
      );
    };
    socket.onEnd = (s) => s.end();
  });
  if (listener === 'EADDRINUSE') throw new Error('port taken');
}

describe('loadGenerator, open loop', () => {
  it('starts `rate` requests per virtual second and times each one in virtual time', () => {
    const { sim, a, b } = twoHosts('load');
    httpServer(b, { port: 8000, routes: { '/sante': { body: 'ok\n', delayMs: 5 } } });
    const load = loadGenerator(a, {
      target: '10.0.0.2:8000',
      path: '/sante',
      rate: 100,
      arrivals: 'uniform',
      durationMs: 1000,
    });
    sim.run(2e9);
    expect(JSON.parse(load.json())).toEqual(load.report());
    expect(load.table()).toContain('latency ms    p50 5.000  p90 5.000  p99 5.000  max 5.000\n');
    expect(load.report()).toEqual({
      target: '10.0.0.2:8000',
      request: 'GET /sante',
      loop: 'open 100/s',
      durationMs: 1000,
      elapsedMs: 995,
      started: 100,
      completed: 100,
      succeeded: 100,
      failed: 0,
      inFlight: 0,
      connections: 100,
      statuses: { 200: 100 },
      failures: {},
      latencyMs: { p50: 5, p90: 5, p99: 5, max: 5 },
    });
  });

  it('reports nearest-rank percentiles of the latencies', () => {
    const { sim, a, b } = twoHosts('load');
    slowerAndSlower(b);
    const load = loadGenerator(a, {
      target: '10.0.0.2:9000',
      rate: 10,
      arrivals: 'uniform',
      durationMs: 10_000,
    });
    sim.run(12e9);
    const report = load.report();
    expect(report.succeeded).toBe(100);
    expect(report.latencyMs).toEqual({ p50: 50, p90: 90, p99: 99, max: 100 });
  });

  it('draws Poisson arrivals from the seed: the same seed gives the same report', () => {
    const runOnce = (seed: string) => {
      const { sim, a, b } = twoHosts(seed);
      httpServer(b, { port: 8000, routes: { '/sante': { body: 'ok\n', delayMs: 1 } } });
      const load = loadGenerator(a, { target: '10.0.0.2:8000', path: '/sante', rate: 200, durationMs: 2000 });
      sim.run(3e9);
      return load.report();
    };
    const first = runOnce('poisson-1');
    expect(runOnce('poisson-1')).toEqual(first);
    expect(first.started).toBeGreaterThan(340);
    expect(first.started).toBeLessThan(460);
    expect(first.succeeded).toBe(first.started);
    expect(runOnce('poisson-2').started).not.toBe(first.started);
  });

  it('counts HTTP errors by status and timeouts by curl exit code', () => {
    const { sim, a, b } = twoHosts('load');
    const server = httpServer(b, { port: 8000, routes: { '/sante': { body: 'ok\n', health: true } } });
    server.setHealthy(false);
    const listener = b.tcp.listen(0, 8012, () => {});
    expect(listener).not.toBe('EADDRINUSE');
    const sick = loadGenerator(a, {
      target: '10.0.0.2:8000',
      path: '/sante',
      rate: 10,
      arrivals: 'uniform',
      durationMs: 500,
    });
    const hung = loadGenerator(a, {
      target: '10.0.0.2:8012',
      rate: 10,
      arrivals: 'uniform',
      durationMs: 500,
      timeoutMs: 200,
    });
    sim.run(2e9);
    expect(sick.report()).toMatchObject({
      started: 5,
      succeeded: 0,
      failed: 5,
      statuses: { 503: 5 },
      failures: { 'http 503': 5 },
    });
    expect(hung.report()).toMatchObject({
      started: 5,
      succeeded: 0,
      failed: 5,
      statuses: {},
      failures: { 'curl 28': 5 },
    });
  });

  it('runs out of ephemeral ports deterministically: EADDRNOTAVAIL once 64 connections sit in TIME_WAIT', () => {
    const runOnce = () => {
      const { sim, a, b } = twoHosts('exhaustion');
      httpServer(b, { port: 8000, routes: { '/sante': { body: 'ok\n' } } });
      const sysctl = exec(a, 'sysctl -w net.ipv4.ip_local_port_range="32768 32831"');
      expect(sysctl.stdout).toBe('net.ipv4.ip_local_port_range = 32768 32831\n');
      const load = loadGenerator(a, { target: '10.0.0.2:8000', path: '/sante', rate: 200, durationMs: 1000 });
      sim.run(2e9);
      return {
        report: load.report(),
        timeWait: [...a.tcp.sockets()].filter((s) => s.state === 'TIME_WAIT').length,
      };
    };
    const first = runOnce();
    expect(first.timeWait).toBe(64);
    expect(first.report.succeeded).toBe(64);
    expect(first.report.connections).toBe(64);
    expect(first.report.failures).toEqual({ EADDRNOTAVAIL: first.report.started - 64 });
    expect(first.report.started).toBeGreaterThan(150);
    expect(runOnce()).toEqual(first);
  });
});

describe('loadGenerator, idle-held connections', () => {
  it('with idleCloseMs each connection stays open, idle, that long after its answer, then the client closes it', () => {
    const { sim, a, b } = twoHosts('idle');
    httpServer(b, { port: 8000, routes: { '/sante': { body: 'ok\n' } } });
    const load = loadGenerator(a, {
      target: '10.0.0.2:8000',
      path: '/sante',
      rate: 100,
      arrivals: 'uniform',
      durationMs: 100,
      idleCloseMs: 500,
    });
    const states = () => {
      const count: Record<string, number> = {};
      for (const s of a.tcp.sockets()) count[s.state] = (count[s.state] ?? 0) + 1;
      return count;
    };
    sim.run(400e6);
    // Ten answered requests, ten connections still open.
    expect(load.report()).toMatchObject({ started: 10, succeeded: 10, connections: 10 });
    expect(states()).toEqual({ ESTABLISHED: 10 });
    sim.run(300e6);
    // 500 ms after its answer each one was closed by the client: TIME_WAIT on its side.
    expect(states()).toEqual({ TIME_WAIT: 10 });
  });
});

describe('loadGenerator, closed loop', () => {
  it('keeps C clients busy and reuses their connections through the keep-alive pool', () => {
    const { sim, a, b } = twoHosts('load');
    const server = httpServer(b, { port: 8000, routes: { '/sante': { body: 'ok\n', delayMs: 4 } } });
    const load = loadGenerator(a, {
      target: '10.0.0.2:8000',
      path: '/sante',
      concurrency: 4,
      keepAlive: true,
      durationMs: 100,
    });
    sim.run(1e9);
    // Each client: 4 ms of answer, 1 ms of think time, so 20 requests in 100 ms.
    expect(load.report()).toMatchObject({
      request: 'GET /sante (keep-alive)',
      loop: 'closed 4',
      started: 80,
      succeeded: 80,
      connections: 4,
      latencyMs: { p50: 4, p90: 4, p99: 4, max: 4 },
    });
    expect(server.stats.connections).toBe(4);
  });

  it('opens plain TCP connections and counts refusals by errno', () => {
    const { sim, a, b } = twoHosts('load');
    httpServer(b, { port: 8000, routes: {} });
    const open = loadGenerator(a, { target: '10.0.0.2:8000', connect: true, concurrency: 2, durationMs: 10 });
    const closed = loadGenerator(a, {
      target: '10.0.0.2:8001',
      connect: true,
      concurrency: 2,
      durationMs: 10,
    });
    sim.run(1e9);
    expect(open.report()).toMatchObject({
      request: 'connect',
      started: 20,
      succeeded: 20,
      connections: 20,
      failures: {},
    });
    expect(closed.report()).toMatchObject({ started: 20, succeeded: 0, failures: { ECONNREFUSED: 20 } });
  });

  it('stops starting requests when told to', () => {
    const { sim, a, b } = twoHosts('load');
    httpServer(b, { port: 8000, routes: { '/': { body: 'ok\n' } } });
    const load = loadGenerator(a, {
      target: '10.0.0.2:8000',
      rate: 100,
      arrivals: 'uniform',
      durationMs: 1000,
    });
    sim.run(95e6);
    load.stop();
    sim.run(1e9);
    expect(load.report().started).toBe(10);
  });

  it('refuses a target that is not ADDR:PORT and a run without rate or concurrency', () => {
    const { a } = twoHosts('load');
    expect(() => loadGenerator(a, { target: 'web:80', rate: 1, durationMs: 1 })).toThrow(/ADDR:PORT/);
    expect(() => loadGenerator(a, { target: '10.0.0.2:80', durationMs: 1 })).toThrow(/rate/);
  });
});
