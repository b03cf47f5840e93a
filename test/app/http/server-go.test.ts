// packetlab's httpServer compared with the server it mirrors: Go's net/http (Debian 12's Go 1.19) running
// test/app/http/go-server/main.go with the same routes. Each case sends the same bytes to both and compares every
// byte of the answer and whether the server closed the connection; only the Date field's value differs.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpServer } from '../../../src/app/http/server.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import type { Simulation } from '../../../src/netns/simulation.ts';
import { requireTool } from '../../support/tools.ts';
import { rawClient, twoHosts } from './topology.ts';

const GET = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const CHUNKED_POST = (path: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${body}`;

const CASES: [name: string, request: string][] = [
  ['a small body', GET('/sante')],
  ['a large body (chunked by Go)', GET('/rapport')],
  ['a large body with the handler’s Content-Length', GET('/rapport-cl')],
  ['a flushed body', GET('/flux')],
  ['a chosen status, type and field', GET('/json')],
  ['an empty body', GET('/empty')],
  ['http.Error 503', GET('/sick')],
  ['an unknown path', GET('/nope')],
  ['HEAD of a small body', 'HEAD /sante HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['HEAD of a large body', 'HEAD /rapport HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['Connection: close', GET('/sante', 'Connection: close\r\n')],
  ['HTTP/1.0', 'GET /sante HTTP/1.0\r\n\r\n'],
  ['HTTP/1.0 with keep-alive', 'GET /sante HTTP/1.0\r\nConnection: keep-alive\r\n\r\n'],
  ['HTTP/1.0 with a large body', 'GET /rapport HTTP/1.0\r\n\r\n'],
  ['two pipelined requests', GET('/sante') + GET('/json')],
  ['a query string', GET('/sante?x=1')],
  ['bare LF line ends', 'GET /sante HTTP/1.1\nHost: x\n\n'],
  ['a request line without a version', 'GET /sante\r\n\r\n'],
  ['a bad method', 'G(T /sante HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['a bad version', 'GET / HTTX/1.1\r\nHost: x\r\n\r\n'],
  ['HTTP/2.0 as text', 'GET / HTTP/2.0\r\nHost: x\r\n\r\n'],
  ['a target without a slash', 'GET sante HTTP/1.1\r\nHost: x\r\n\r\n'],
  ['an empty line first', `\r\n${GET('/sante')}`],
  ['a field without a colon', 'GET / HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n'],
  ['no Host', 'GET / HTTP/1.1\r\n\r\n'],
  ['a bad Content-Length', 'POST /sante HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n'],
  ['an unknown transfer coding', 'POST /sante HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n'],
  ['a head beyond MaxHeaderBytes + 4096', GET('/sante', `X-Big: ${'a'.repeat(6000)}\r\n`)],
  ['a head just within it', GET('/sante', `X-Big: ${'a'.repeat(4000)}\r\n`)],
  ['a body with Content-Length', 'POST /sante HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc'],
  [
    'a chunked body with an extension and a trailer',
    CHUNKED_POST('/sante', '3;e=1\r\nabc\r\n0\r\nT: 1\r\n\r\n'),
  ],
  ['a chunk size that is not hexadecimal', CHUNKED_POST('/sante', 'zz\r\nabc\r\n')],
  ['an empty chunk size', CHUNKED_POST('/sante', '\r\nabc\r\n')],
  ['a chunk not followed by CRLF', CHUNKED_POST('/sante', '3\r\nabcXY')],
];

/** What a server answered: every byte, and whether it closed its side. */
interface Answer {
  readonly received: string;
  readonly ended: boolean;
}

const normaliseDate = (text: string) => text.replace(/Date: [^\r]*\r\n/g, 'Date: D\r\n');

/** Sends `request` to Go on 127.0.0.1:port and collects until it closes or stays quiet for 300 ms. */
function askGo(port: number, request: string): Promise<Answer> {
  return new Promise((resolve) => {
    let received = '';
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(Buffer.from(request, 'latin1')));
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received, ended });
    };
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(done, 300);
    };
    socket.on('data', (data) => {
      received += data.toString('latin1');
      quiet();
    });
    socket.on('end', () => {
      ended = true;
      done();
    });
    socket.on('error', done);
    quiet();
  });
}

/** The same routes on packetlab: /sick on a second, unhealthy server (one health switch per server). */
function packetlab(): { sim: Simulation; a: Namespace } {
  const { sim, a, b } = twoHosts('go');
  const routes = {
    '/sante': { body: 'ok\n' },
    '/rapport': { bodyBytes: 200_000 },
    '/rapport-cl': { bodyBytes: 200_000, chunked: false },
    '/flux': { body: 'abcdefghij', chunked: true, chunkBytes: 4 },
    '/json': { status: 201, body: '{}', contentType: 'application/json', headers: { 'X-Pod': 'web-1' } },
    '/empty': {},
  };
  httpServer(b, { port: 8000, routes, maxHeaderBytes: 1024 });
  httpServer(b, { port: 8001, routes: { '/sick': { health: true } } }).setHealthy(false);
  return { sim, a };
}

describe("httpServer against Go's net/http", () => {
  let go: ChildProcess | undefined;
  let goPort = 0;
  let buildDir = '';

  beforeAll(async () => {
    if (!requireTool('go')) return;
    buildDir = mkdtempSync(join(tmpdir(), 'plab-go-'));
    const env = {
      ...process.env,
      GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'plab-gocache'),
      HOME: process.env.HOME ?? tmpdir(),
      GOTOOLCHAIN: 'local',
      GOFLAGS: '',
    };
    const binary = join(buildDir, 'server');
    const build = spawnSync(
      'go',
      ['build', '-o', binary, fileURLToPath(new URL('./go-server/main.go', import.meta.url))],
      {
        env,
        encoding: 'utf8',
      },
    );
    if (build.status !== 0) throw new Error(`go build: ${build.stderr}`);
    const child = spawn(binary, [], { stdio: ['ignore', 'pipe', 'pipe'] });
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

  it.each(CASES)('%s', async (_name, request) => {
    if (go === undefined) return;
    const theirs = await askGo(goPort, request);
    const { sim, a } = packetlab();
    const { state } = rawClient(a, request.includes('/sick') ? 8001 : 8000, [request]);
    sim.run(2e9);
    expect({ received: normaliseDate(state.received), ended: state.ended }).toEqual({
      received: normaliseDate(theirs.received),
      ended: theirs.ended,
    });
  });

  it('answers /sick on Go too', async () => {
    if (go === undefined) return;
    const theirs = await askGo(goPort, GET('/sick'));
    expect(theirs.received).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
  });
});
