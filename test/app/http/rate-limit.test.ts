// The per-client rate limit (Traefik's RateLimit middleware over x/time/rate): the token bucket on a manual clock,
// Go's Duration.String for X-Retry-In, and the server's 429 answer keyed on the client the log shows.

import { describe, expect, it } from 'vitest';
import { ClientRateLimiter, goDuration } from '../../../src/app/http/rate-limit.ts';
import { httpServer } from '../../../src/app/http/server.ts';
import { rawClient, twoHosts } from './topology.ts';

const MS = 1e6;

describe('ClientRateLimiter', () => {
  it('starts full, serves the burst at once, delays within maxDelay and refuses beyond', () => {
    // 10 a second: maxDelay = 1 s / 20 = 50 ms; a token every 100 ms.
    const limiter = new ClientRateLimiter({ average: 10, burst: 2 });
    expect(limiter.take('a', 0)).toEqual({ kind: 'serve', delayNs: 0 });
    expect(limiter.take('a', 0)).toEqual({ kind: 'serve', delayNs: 0 });
    // The third at t=0 would wait 100 ms: refused, and the token is not taken.
    expect(limiter.take('a', 0)).toEqual({ kind: 'reject', delayNs: 100 * MS });
    // At 60 ms 0.6 token is back: the wait is 40 ms, within maxDelay: served late.
    expect(limiter.take('a', 60 * MS)).toEqual({ kind: 'serve', delayNs: 40 * MS });
    // Another source has its own bucket.
    expect(limiter.take('b', 60 * MS)).toEqual({ kind: 'serve', delayNs: 0 });
    // The debt of 'a' (-0.4 at 60 ms) is paid at 100 ms; at 300 ms 2 tokens are back (capped at burst).
    expect(limiter.take('a', 300 * MS)).toEqual({ kind: 'serve', delayNs: 0 });
    expect(limiter.take('a', 300 * MS)).toEqual({ kind: 'serve', delayNs: 0 });
    expect(limiter.take('a', 300 * MS).kind).toBe('reject');
  });

  it('below one request a second maxDelay is 500 ms', () => {
    const limiter = new ClientRateLimiter({ average: 1, periodMs: 2000 });
    expect(limiter.take('a', 0).kind).toBe('serve');
    // A token every 2 s: at 1.6 s the wait is 400 ms (served late), at 1.4 s it would be 600 ms (refused).
    const probe = new ClientRateLimiter({ average: 1, periodMs: 2000 });
    probe.take('a', 0);
    expect(probe.take('a', 1400 * MS)).toEqual({ kind: 'reject', delayNs: 600 * MS });
    // Float arithmetic as Go's: 0.8 token, debt -0.19999999999999996, 0.3999999999999999 s truncated.
    expect(limiter.take('a', 1600 * MS)).toEqual({ kind: 'serve', delayNs: 399_999_999 });
  });
});

describe('goDuration (Go time.Duration.String)', () => {
  it.each([
    [0, '0s'],
    [999, '999ns'],
    [1500, '1.5µs'],
    [100 * MS, '100ms'],
    [1_234_567, '1.234567ms'],
    [1.5e9, '1.5s'],
    [61e9, '1m1s'],
    [3_723_500_000_000, '1h2m3.5s'],
  ])('%d ns prints %s', (ns, text) => {
    expect(goDuration(ns)).toBe(text);
  });
});

describe('httpServer with a rate limit', () => {
  it('answers 429 with Retry-After and X-Retry-In once the client has used its burst', () => {
    const { sim, a, b } = twoHosts();
    const server = httpServer(b, {
      port: 8000,
      routes: { '/sante': { body: 'ok\n' } },
      rateLimit: { average: 1, burst: 2 },
    });
    const get = 'GET /sante HTTP/1.1\r\nHost: 10.0.0.2:8000\r\n\r\n';
    const { state } = rawClient(a, 8000, [get, get, get]);
    sim.run(1e9);
    const answers = state.received.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((answer) => answer.split('\r\n')[0])).toEqual([
      'HTTP/1.1 200 OK',
      'HTTP/1.1 200 OK',
      'HTTP/1.1 429 Too Many Requests',
    ]);
    // 1 a second: a token back in 1 s, beyond the 500 ms maxDelay.
    expect(answers[2]).toBe(
      'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nX-Retry-In: 1s\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\n' +
        'Content-Length: 17\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nToo Many Requests',
    );
    expect(server.stats.rateLimited).toBe(1);
    expect(server.accessLog.map((line) => line.split(' ').at(-2))).toEqual(['200', '200', '429']);
  });

  it('keys the limit on the client the log shows: X-Forwarded-For when trusted', () => {
    const { sim, a, b } = twoHosts();
    const server = httpServer(b, {
      port: 8000,
      routes: { '/sante': { body: 'ok\n' } },
      rateLimit: { average: 1, burst: 1 },
      trustForwardedFor: true,
    });
    const get = (client: string) =>
      `GET /sante HTTP/1.1\r\nHost: 10.0.0.2:8000\r\nX-Forwarded-For: ${client}\r\n\r\n`;
    rawClient(a, 8000, [get('192.0.2.1'), get('192.0.2.2'), get('192.0.2.1')]);
    sim.run(1e9);
    expect(server.accessLog.map((line) => `${line.split(' ')[0]} ${line.split(' ').at(-2)}`)).toEqual([
      '192.0.2.1 200',
      '192.0.2.2 200',
      '192.0.2.1 429',
    ]);
  });
});
