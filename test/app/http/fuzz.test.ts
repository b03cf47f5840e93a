// Random bytes into both ends of HTTP: the server and the client count or fail, and never throw.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type HttpResult, httpGet } from '../../../src/app/http/client.ts';
import { latin1Bytes } from '../../../src/app/http/message.ts';
import { httpServer } from '../../../src/app/http/server.ts';
import { rawClient, twoHosts } from './topology.ts';

/** Bytes that look enough like HTTP to reach the deeper branches, or plain noise. */
const httpish = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'GET ',
          'POST ',
          '/sante',
          ' HTTP/1.1',
          ' HTTP/1.0',
          '\r\n',
          '\n',
          'Host: x',
          'Content-Length: ',
          '3',
          'zz',
        ),
        fc.constantFrom(
          'Transfer-Encoding: chunked',
          'Connection: close',
          ':',
          ';',
          ' ',
          'abc',
          '0\r\n\r\n',
          'HTTP/1.1 200 OK',
        ),
      ),
      { maxLength: 30 },
    )
    .map((words) => latin1Bytes(words.join(''))),
);

describe('HTTP under random input', () => {
  it('the server answers or closes, and never throws', () => {
    fc.assert(
      fc.property(httpish, fc.boolean(), (bytes, proxy) => {
        const { sim, a, b } = twoHosts('fuzz');
        const server = httpServer(b, {
          port: 8000,
          routes: { '/sante': { body: 'ok\n' } },
          proxyProtocol: proxy,
          maxHeaderBytes: 64,
        });
        rawClient(a, 8000, [bytes]);
        sim.run(2e9);
        const answered = Object.values(server.stats.responses).reduce((n, count) => n + count, 0);
        // One answer per request read, plus at most one error answer that ends the connection.
        expect(answered).toBeLessThanOrEqual(server.stats.requests + 1);
      }),
      { numRuns: 60 },
    );
  });

  it('the client ends every exchange with a result, and never throws', () => {
    fc.assert(
      fc.property(httpish, fc.boolean(), (reply, end) => {
        const { sim, a, b } = twoHosts('fuzz');
        const listener = b.tcp.listen(0, 8000, (socket) => {
          socket.onData = (s) => {
            s.write(reply);
            if (end) s.end();
          };
        });
        expect(listener).not.toBe('EADDRINUSE');
        let result: HttpResult | undefined;
        httpGet(
          a,
          '10.0.0.2:8000/',
          (r) => {
            result = r;
          },
          { maxTimeMs: 1000 },
        );
        sim.run(2e9);
        expect(result).toBeDefined();
        expect(result!.ok || result!.failure !== undefined).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
