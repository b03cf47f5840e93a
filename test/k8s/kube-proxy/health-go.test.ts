// kube-proxy's health answers against Go 1.19's net/http writing the same handlers (go-health/main.go): the same
// status lines, fields in the same order, the same bodies, the times in Go's time.Time.String format. Dates and the
// times themselves differ (wall clock there, virtual here) and are normalised; skipped without `go`.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeProxyHealth } from '../../../src/k8s/kube-proxy/health.ts';
import { exec } from '../../../src/tools/exec.ts';
import { requireTool } from '../../support/tools.ts';
import { twoHosts } from '../../support/two-hosts.ts';
import { must, port, service, slice, storeOf } from '../services-fixture.ts';

const GO_TIME = /"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d*[1-9])? \+0000 UTC(?: m=\+\d+\.\d{9})?)"/g;

function normalise(response: string): string {
  return response
    .replace(/^Date: .*$/m, 'Date: D')
    .replace(/^Content-Length: \d+$/m, 'Content-Length: N')
    .replace(GO_TIME, (_all, time: string) => (time.startsWith('0001-') ? `"${time}"` : '"T"'));
}

/** One GET over a fresh connection, read until Go closes (Connection: close). */
function askGo(goPort: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(goPort, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nConnection: close\r\n\r\n`,
    );
  });
}

/** packetlab's answers for the same cases, by curl -si from the other host. */
function packetlab(): Record<string, string> {
  const { a, b, sim } = twoHosts('kube-proxy-health-go');
  const store = storeOf(sim);
  must(
    store.create(
      service('signalements', {
        type: 'LoadBalancer',
        clusterIP: '10.96.40.12',
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: 32000,
        ports: [port(80, 8000, { nodePort: 30080 })],
      }),
    ),
  );
  must(
    store.create(
      slice('signalements', [{ addr: '10.244.1.9', node: 'w' }], [{ name: '', port: 8000, protocol: 'TCP' }]),
    ),
  );
  const health = kubeProxyHealth(b, store, { nodeName: 'w', syncs: 'manual' });
  health.synced();
  sim.run(1.25e9);
  const get = (url: string) => exec(a, `curl -si -H 'Connection: close' ${url}`).stdout;
  const answers: Record<string, string> = {
    '/healthz': get('http://10.0.0.2:10256/healthz'),
    '/svc': get('http://10.0.0.2:32000/'),
  };
  // Never synced, an update queued 61 s ago: the zero lastUpdated of a kube-proxy that has not synced yet.
  const stale = twoHosts('kube-proxy-health-go-stale');
  const staleHealth = kubeProxyHealth(stale.b, storeOf(stale.sim), { nodeName: 'w', syncs: 'manual' });
  staleHealth.queuedUpdate();
  stale.sim.run(61e9);
  answers['/stale'] = exec(stale.a, `curl -si -H 'Connection: close' http://10.0.0.2:10256/healthz`).stdout;
  must(store.delete('EndpointSlice', 'default', 'signalements-abcde'));
  health.synced();
  answers['/svc-none'] = get('http://10.0.0.2:32000/');
  return answers;
}

describe("kube-proxy's health answers against Go's net/http", () => {
  let go: ChildProcess | undefined;
  let goPort = 0;
  let buildDir = '';

  beforeAll(async () => {
    if (!requireTool('go')) return;
    buildDir = mkdtempSync(join(tmpdir(), 'plab-go-health-'));
    const binary = join(buildDir, 'health');
    const build = spawnSync(
      'go',
      ['build', '-o', binary, fileURLToPath(new URL('./go-health/main.go', import.meta.url))],
      {
        env: {
          ...process.env,
          GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'plab-gocache'),
          HOME: process.env.HOME ?? tmpdir(),
          GOTOOLCHAIN: 'local',
          GOFLAGS: '',
        },
        encoding: 'utf8',
      },
    );
    if (build.status !== 0) throw new Error(`go build: ${build.stderr}`);
    const child = spawn(binary, [], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TZ: 'UTC' },
    });
    go = child;
    goPort = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the Go server printed no port within 10 s')), 10_000);
      child.stdout?.once('data', (chunk: Buffer) => {
        clearTimeout(timer);
        resolve(Number(chunk.toString('utf8').trim()));
      });
    });
  }, 180_000);

  afterAll(() => {
    go?.kill('SIGKILL');
    if (buildDir !== '') rmSync(buildDir, { recursive: true, force: true });
  });

  it('the same heads and bodies for /healthz, a stale /healthz, and a Service with and without local endpoints', async () => {
    if (go === undefined) return;
    const ours = packetlab();
    for (const path of ['/healthz', '/stale', '/svc', '/svc-none']) {
      const theirs = await askGo(goPort, path);
      expect(normalise(ours[path]!), path).toBe(normalise(theirs));
    }
    // The times themselves: Go's monotonic reading, and packetlab's at 1.25 s (trailing zeros trimmed).
    expect(ours['/healthz']).toContain('"lastUpdated": "2023-11-14 22:13:21.25 +0000 UTC m=+1.250000000"');
    expect(await askGo(goPort, '/healthz')).toMatch(
      /"currentTime": "\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC m=\+\d+\.\d{9}"/,
    );
  }, 30_000);
});
