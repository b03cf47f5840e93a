import { describe, expect, it } from 'vitest';
import { type HttpResult, httpGet, httpRequest } from '../../../src/app/http/client.ts';
import { latin1, latin1Bytes } from '../../../src/app/http/message.ts';
import { httpServer } from '../../../src/app/http/server.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import { twoHosts } from './topology.ts';

/** A server on b:port that records each request and sends `reply` (then ends when `end`). */
function fixedServer(b: Namespace, port: number, reply: string, options: { end?: boolean } = {}) {
  const requests: string[] = [];
  const listener = b.tcp.listen(0, port, (socket) => {
    socket.onData = (s, data) => {
      requests.push(latin1(data));
      s.write(latin1Bytes(reply));
      if (options.end) s.end();
    };
    socket.onEnd = (s) => s.end();
  });
  if (listener === 'EADDRINUSE') throw new Error('port taken');
  return requests;
}

function get(ns: Namespace, target: string, run: () => void): HttpResult {
  let result: HttpResult | undefined;
  httpGet(ns, target, (r) => {
    result = r;
  });
  run();
  if (result === undefined) throw new Error('no result');
  return result;
}

describe('httpRequest', () => {
  it('returns the status, fields, body, endpoints and timings in virtual time', () => {
    const { sim, a, b } = twoHosts();
    httpServer(b, { port: 8000, routes: { '/lent': { body: 'late\n', delayMs: 30 } } });
    const result = get(a, 'http://10.0.0.2:8000/lent', () => sim.run(1e9));
    expect(result).toMatchObject({
      ok: true,
      failure: undefined,
      status: 200,
      reason: 'OK',
      bodyBytes: 5,
      expectedBytes: 5,
      remoteAddr: parseIpv4('10.0.0.2'),
      remotePort: 8000,
      localAddr: parseIpv4('10.0.0.1'),
      connects: 1,
      startNs: 0,
      connectNs: 0,
      firstByteNs: 30e6,
      endNs: 30e6,
    });
    expect(latin1(result.body)).toBe('late\n');
    expect(result.headerBytes).toBe(result.head.length);
    expect(result.socket?.state).toBe('ESTABLISHED');
  });

  it('sends its default fields', () => {
    const { sim, a, b } = twoHosts();
    const requests = fixedServer(b, 8020, 'HTTP/1.1 204 No Content\r\n\r\n');
    const result = get(a, '10.0.0.2:8020', () => sim.run(1e9));
    expect(requests).toEqual([
      'GET / HTTP/1.1\r\nHost: 10.0.0.2:8020\r\nUser-Agent: packetlab\r\nAccept: */*\r\n\r\n',
    ]);
    expect(result).toMatchObject({ ok: true, status: 204, bodyBytes: 0 });
  });

  it('reuses a kept-alive connection: no new connect, the same local port', () => {
    const { sim, a, b } = twoHosts();
    const server = httpServer(b, { port: 8000, routes: { '/sante': { body: 'ok\n' } } });
    const first = get(a, '10.0.0.2:8000/sante', () => sim.run(1e9));
    let second: HttpResult | undefined;
    httpRequest(a, { dst: first.remoteAddr, port: 8000, path: '/sante', socket: first.socket! }, (r) => {
      second = r;
    });
    sim.run(1e9);
    expect(second).toMatchObject({ ok: true, status: 200, connects: 0, localPort: first.localPort });
    expect(server.stats.connections).toBe(1);
    expect(server.stats.requests).toBe(2);
  });

  it('does not offer a connection the server closes, and reads a body until the close', () => {
    const { sim, a, b } = twoHosts();
    fixedServer(b, 8021, 'HTTP/1.1 200 OK\r\n\r\nuntil the end', { end: true });
    const result = get(a, '10.0.0.2:8021', () => sim.run(1e9));
    expect(result).toMatchObject({ ok: true, bodyBytes: 13, expectedBytes: -1, socket: undefined });
  });

  it('skips interim 1xx answers and counts their bytes', () => {
    const { sim, a, b } = twoHosts();
    const interim = 'HTTP/1.1 100 Continue\r\n\r\n';
    const final = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n';
    fixedServer(b, 8022, `${interim}${final}ok`);
    const result = get(a, '10.0.0.2:8022', () => sim.run(1e9));
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      headerBytes: interim.length + final.length,
      bodyBytes: 2,
    });
    expect(result.head).toBe(final);
  });

  it('keeps no body when told not to, and counts it all the same', () => {
    const { sim, a, b } = twoHosts();
    httpServer(b, { port: 8000, routes: { '/rapport': { bodyBytes: 50_000 } } });
    let result: HttpResult | undefined;
    httpRequest(a, { dst: parseIpv4('10.0.0.2')!, port: 8000, path: '/rapport', keepBody: false }, (r) => {
      result = r;
    });
    sim.run(1e9);
    expect(result).toMatchObject({ ok: true, bodyBytes: 50_000 });
    expect(result!.body.length).toBe(0);
  });

  it.each([
    ['HTTP/1.1 2x0 OK\r\n\r\n', { kind: 'bad-status-code' }],
    ['HTTP/1.2 200 OK\r\n\r\n', { kind: 'unsupported-version', version: '1.2' }],
    ['HTTP/x 200 OK\r\n\r\n', { kind: 'weird' }],
    ['HTTP/1.1 200 OK\r\nno colon\r\n\r\n', { kind: 'header-without-colon' }],
  ])('refuses the status line of %j as curl does', (reply, failure) => {
    const { sim, a, b } = twoHosts();
    fixedServer(b, 8023, reply);
    expect(get(a, '10.0.0.2:8023', () => sim.run(1e9)).failure).toEqual(failure);
  });

  it('takes a head cut short after its status line as the whole answer, as curl 7.88 does', () => {
    const { sim, a, b } = twoHosts();
    fixedServer(b, 8024, 'HTTP/1.1 200 OK\r\nContent-Le', { end: true });
    const result = get(a, '10.0.0.2:8024', () => sim.run(1e9));
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      head: 'HTTP/1.1 200 OK\r\n',
      keptAlive: true,
      socket: undefined,
    });
  });

  it('is silent once cancelled', () => {
    const { sim, a, b } = twoHosts();
    httpServer(b, { port: 8000, routes: { '/lent': { body: 'late\n', delayMs: 30 } } });
    let called = false;
    const exchange = httpGet(a, '10.0.0.2:8000/lent', () => {
      called = true;
    });
    sim.run(10e6);
    exchange.cancel();
    sim.run(1e9);
    expect(called).toBe(false);
    expect(exchange.done).toBe(true);
  });

  it('refuses a target that is not an address', () => {
    const { a } = twoHosts();
    expect(() => httpGet(a, 'http://web/sante', () => {})).toThrow(/not an http/);
  });
});
