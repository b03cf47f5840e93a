import { describe, expect, it } from 'vitest';
import { httpServer } from '../../../src/app/http/server.ts';
import { spawn } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import {
  emitProxyV2,
  PROXY_TRANSPORT_STREAM,
  ProxyV2View,
  proxyV2HeaderLen,
} from '../../../src/wire/proxy-v2.ts';
import { rawClient, twoHosts } from './topology.ts';

const ROUTES = {
  '/sante': { body: 'ok\n', health: true },
  '/rapport': { bodyBytes: 200_000 },
  '/flux': { body: 'abcdefghij', chunked: true, chunkBytes: 4 },
  '/lent': { body: 'late\n', delayMs: 25 },
  '/json': { status: 201, body: '{}', contentType: 'application/json', headers: { 'X-Pod': 'web-1' } },
};

function setup(
  options: { proxyProtocol?: boolean; trustForwardedFor?: boolean; maxHeaderBytes?: number } = {},
) {
  const hosts = twoHosts();
  const server = httpServer(hosts.b, { port: 8000, routes: ROUTES, ...options });
  return { ...hosts, server };
}

const GET = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 10.0.0.2:8000\r\n${extra}\r\n`;
const DATE0 = 'Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n';
/** Go's answer to a request it cannot read. */
const goError = (status: string, body = status) =>
  `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${body}`;

describe('httpServer routes', () => {
  it('answers a small route with the head Go writes: Date, Content-Length, sniffed Content-Type', () => {
    const { sim, a, server } = setup();
    const { state } = rawClient(a, 8000, [GET('/sante')]);
    sim.run(1e9);
    expect(state.received).toBe(
      `HTTP/1.1 200 OK\r\n${DATE0}Content-Length: 3\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nok\n`,
    );
    expect(state.ended).toBe(false);
    expect(server.stats.requests).toBe(1);
    expect(server.stats.responses).toEqual({ 200: 1 });
  });

  it('sends a large route chunked, in one chunk, as Go frames a body beyond its 2048-byte buffer', () => {
    const { sim, a } = setup();
    const { state } = rawClient(a, 8000, [GET('/rapport')]);
    sim.run(5e9);
    const head = `HTTP/1.1 200 OK\r\n${DATE0}Content-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n30d40\r\n`;
    expect(state.received.slice(0, head.length)).toBe(head);
    expect(state.received.length).toBe(head.length + 200_000 + '\r\n0\r\n\r\n'.length);
    expect(state.received.slice(head.length, head.length + 18)).toBe('packetlab filler: ');
  });

  it('writes as Go does on a TCP_NODELAY socket: a segment per Flush, a 4096-byte buffer written when full', () => {
    const hosts = twoHosts();
    httpServer(hosts.b, {
      port: 8000,
      routes: { '/flux': ROUTES['/flux'], '/cinq': { bodyBytes: 5000 } },
    });
    const payloads = (path: string) => {
      const capture = spawn(hosts.b, 'tcpdump -nn -i eth0 tcp src port 8000');
      if (!('stop' in capture)) throw new Error(capture.stderr);
      rawClient(hosts.a, 8000, [GET(path)]);
      hosts.sim.run(1e9);
      return [...capture.stop().stdout.matchAll(/length (\d+)/g)]
        .map((m) => Number(m[1]))
        .filter((n) => n > 0);
    };
    // The head with `4\r\nabcd\r\n`, then `4\r\nefgh\r\n`, then `2\r\nij\r\n0\r\n\r\n` (as on Linux with Go).
    expect(payloads('/flux')).toEqual([134, 9, 12]);
    // Head and chunk size fill the buffer with the body's start (4096, cut at the MSS); the rest is the last write.
    expect(payloads('/cinq')).toEqual([1448, 1448, 1200, 1042]);
  });

  it('sends Content-Length first when the route sets it itself', () => {
    const hosts = twoHosts();
    httpServer(hosts.b, { port: 8000, routes: { '/rapport': { bodyBytes: 200_000, chunked: false } } });
    const { state } = rawClient(hosts.a, 8000, [GET('/rapport')]);
    hosts.sim.run(5e9);
    const head = `HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n${DATE0}Content-Type: text/plain; charset=utf-8\r\n\r\n`;
    expect(state.received.slice(0, head.length)).toBe(head);
    expect(state.received.length).toBe(head.length + 200_000);
  });

  it('writes handler headers sorted, then Date and Content-Length; a chosen status and type', () => {
    const { sim, a } = setup();
    const { state } = rawClient(a, 8000, [GET('/json')]);
    sim.run(1e9);
    expect(state.received).toBe(
      `HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-Pod: web-1\r\n${DATE0}Content-Length: 2\r\n\r\n{}`,
    );
  });

  it('answers an unknown path as http.NotFound', () => {
    const { sim, a } = setup();
    const { state } = rawClient(a, 8000, [GET('/nope')]);
    sim.run(1e9);
    expect(state.received).toBe(
      `HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n${DATE0}Content-Length: 19\r\n\r\n404 page not found\n`,
    );
  });

  it('sends a chunked body in chunks of the chosen size, then the last chunk', () => {
    const { sim, a } = setup();
    const { state } = rawClient(a, 8000, [GET('/flux')]);
    sim.run(1e9);
    expect(state.received).toBe(
      `HTTP/1.1 200 OK\r\n${DATE0}Content-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n4\r\nefgh\r\n2\r\nij\r\n0\r\n\r\n`,
    );
  });

  it('answers a HEAD with the head only', () => {
    const { sim, a } = setup();
    const { state } = rawClient(a, 8000, ['HEAD /sante HTTP/1.1\r\nHost: x\r\n\r\n']);
    sim.run(1e9);
    expect(state.received).toBe(
      `HTTP/1.1 200 OK\r\n${DATE0}Content-Length: 3\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n`,
    );
  });

  it('answers after the route delay, in virtual time', () => {
    const { sim, a, server } = setup();
    const { state } = rawClient(a, 8000, [GET('/lent')]);
    sim.run(24e6);
    expect(state.received).toBe('');
    sim.run(2e6);
    expect(state.received).toMatch(/^HTTP\/1\.1 200 OK\r\n.*late\n$/s);
    expect(server.records[0]!.timeNs).toBe(25e6);
  });
});

describe('httpServer connections', () => {
  it('keeps a connection alive for several requests, pipelined ones included', () => {
    const { sim, a, server } = setup();
    const { state } = rawClient(a, 8000, [GET('/sante'), GET('/json') + GET('/sante')]);
    sim.run(1e9);
    expect(state.received.match(/HTTP\/1\.1 /g)).toHaveLength(3);
    expect(server.stats.connections).toBe(1);
    expect(server.stats.requests).toBe(3);
    expect(state.ended).toBe(false);
  });

  it('closes after answering a request with Connection: close, and says so', () => {
    const { sim, a } = setup();
    const { state } = rawClient(a, 8000, [GET('/sante', 'Connection: close\r\n')]);
    sim.run(1e9);
    expect(state.received).toBe(
      `HTTP/1.1 200 OK\r\n${DATE0}Content-Length: 3\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nok\n`,
    );
    expect(state.ended).toBe(true);
  });

  it('answers HTTP/1.0 in HTTP/1.0 and closes unless asked to keep alive', () => {
    const { sim, a } = setup();
    const closing = rawClient(a, 8000, ['GET /sante HTTP/1.0\r\n\r\n']);
    const kept = rawClient(a, 8000, ['GET /sante HTTP/1.0\r\nConnection: keep-alive\r\n\r\n']);
    sim.run(1e9);
    expect(closing.state.received).toBe(
      `HTTP/1.0 200 OK\r\n${DATE0}Content-Length: 3\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nok\n`,
    );
    expect(closing.state.ended).toBe(true);
    expect(kept.state.received).toMatch(/Connection: keep-alive\r\n\r\nok\n$/);
    expect(kept.state.ended).toBe(false);
  });

  it('closes when the client ends an idle connection', () => {
    const { sim, a } = setup();
    const { state, socket } = rawClient(a, 8000, [GET('/sante')]);
    sim.run(1e9);
    socket.end();
    sim.run(1e9);
    expect(state.ended).toBe(true);
    expect(state.closed).toBe(true);
  });

  it('answers 503 from a health route while unhealthy, 200 again once healthy', () => {
    const { sim, a, server } = setup();
    server.setHealthy(false);
    const sick = rawClient(a, 8000, [GET('/sante')]);
    sim.run(1e9);
    expect(sick.state.received).toBe(
      'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n' +
        'Date: Thu, 01 Jan 1970 00:00:00 GMT\r\nContent-Length: 20\r\n\r\nService Unavailable\n',
    );
    server.setHealthy(true);
    const well = rawClient(a, 8000, [GET('/sante')]);
    sim.run(1e9);
    expect(well.state.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(server.stats.responses).toEqual({ 200: 1, 503: 1 });
  });
});

describe('httpServer lifetime', () => {
  it('stops listening on close(): new connections are refused, open ones keep working', () => {
    const { sim, a, server } = setup();
    const open = rawClient(a, 8000, [GET('/sante')]);
    sim.run(1e9);
    server.close();
    open.socket.write(new TextEncoder().encode(GET('/json')));
    const late = rawClient(a, 8000, [GET('/sante')]);
    sim.run(1e9);
    expect(open.state.received.match(/HTTP\/1\.1 /g)).toHaveLength(2);
    expect(late.state).toMatchObject({ received: '', closed: true, error: 'ECONNREFUSED' });
  });

  it('refuses a port already in use (a programmer error)', () => {
    const { b } = setup();
    expect(() => httpServer(b, { port: 8000, routes: {} })).toThrow(/in use/);
  });
});

describe('httpServer access log', () => {
  it('logs one Common Log Format line per request with the peer it saw', () => {
    const { sim, a, b } = twoHosts();
    const lines: string[] = [];
    const server = httpServer(b, {
      port: 8000,
      routes: ROUTES,
      epochMs: Date.UTC(2026, 11, 1, 13, 30),
      onLog: (l) => lines.push(l),
    });
    rawClient(a, 8000, [GET('/sante'), GET('/nope')]);
    sim.run(1e9);
    rawClient(a, 8000, ['HEAD /sante HTTP/1.1\r\nHost: x\r\n\r\n']);
    sim.run(1e9);
    expect(server.accessLog).toEqual([
      '10.0.0.1 - - [01/Dec/2026:13:30:00 +0000] "GET /sante HTTP/1.1" 200 3',
      '10.0.0.1 - - [01/Dec/2026:13:30:00 +0000] "GET /nope HTTP/1.1" 404 19',
      '10.0.0.1 - - [01/Dec/2026:13:30:01 +0000] "HEAD /sante HTTP/1.1" 200 -',
    ]);
    expect(lines).toEqual(server.accessLog);
    expect(server.records[0]!.peerPort).toBeGreaterThanOrEqual(32768);
  });

  it('keeps at most logLimit lines and still hands every line to onLog', () => {
    const { sim, a, b } = twoHosts();
    const lines: string[] = [];
    const server = httpServer(b, { port: 8000, routes: ROUTES, logLimit: 2, onLog: (l) => lines.push(l) });
    rawClient(a, 8000, [GET('/sante') + GET('/sante') + GET('/sante')]);
    sim.run(1e9);
    expect(server.accessLog).toHaveLength(2);
    expect(server.records).toHaveLength(2);
    expect(lines).toHaveLength(3);
  });

  it('logs the first X-Forwarded-For address when told to trust it, the peer otherwise', () => {
    const trusted = setup({ trustForwardedFor: true });
    rawClient(trusted.a, 8000, [GET('/sante', 'X-Forwarded-For: 10.244.1.5, 10.0.0.1\r\n')]);
    trusted.sim.run(1e9);
    expect(trusted.server.accessLog[0]).toMatch(/^10\.244\.1\.5 - - /);
    expect(trusted.server.records[0]!.forwardedFor).toBe('10.244.1.5, 10.0.0.1');
    const untrusted = setup();
    rawClient(untrusted.a, 8000, [GET('/sante', 'X-Forwarded-For: 10.244.1.5\r\n')]);
    untrusted.sim.run(1e9);
    expect(untrusted.server.accessLog[0]).toMatch(/^10\.0\.0\.1 - - /);
  });
});

function proxyHeader(src: string, srcPort: number, options: { length?: number } = {}): Uint8Array {
  const repr = {
    command: 'proxy' as const,
    transport: PROXY_TRANSPORT_STREAM,
    addresses: {
      type: 'ipv4' as const,
      srcAddr: parseIpv4(src)!,
      dstAddr: parseIpv4('10.0.0.2')!,
      srcPort,
      dstPort: 8000,
    },
    tlvs: [],
  };
  const bytes = new Uint8Array(proxyV2HeaderLen(repr));
  const view = ProxyV2View.unchecked(bytes);
  emitProxyV2(repr, view);
  if (options.length !== undefined) view.length = options.length;
  return bytes;
}

describe('httpServer respond handlers', () => {
  it('tell the handler who asks, as the log names the client: the peer, or the PROXY v2 source', () => {
    const seen: string[] = [];
    const respond = (request: { client: string; method: string; target: string }) => {
      seen.push(`${request.client} ${request.method} ${request.target}`);
      return { status: 429, body: `quota ${request.client}\n`, headers: {} };
    };
    const plain = twoHosts();
    httpServer(plain.b, { port: 8000, routes: { '/api': { respond } } });
    const { state } = rawClient(plain.a, 8000, [GET('/api?x=1')]);
    plain.sim.run(1e9);
    expect(state.received).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n.*quota 10\.0\.0\.1\n$/s);
    const proxied = twoHosts();
    httpServer(proxied.b, { port: 8000, routes: { '/api': { respond } }, proxyProtocol: true });
    rawClient(proxied.a, 8000, [proxyHeader('203.0.113.7', 51000), GET('/api')]);
    proxied.sim.run(1e9);
    expect(seen).toEqual(['10.0.0.1 GET /api?x=1', '203.0.113.7 GET /api']);
  });
});

describe('httpServer with PROXY protocol v2', () => {
  it('reads the header, logs the proxied source and serves the stream after it', () => {
    const { sim, a, server } = setup({ proxyProtocol: true });
    const { state } = rawClient(a, 8000, [proxyHeader('203.0.113.7', 51000), GET('/sante')]);
    sim.run(1e9);
    expect(state.received).toMatch(/^HTTP\/1\.1 200 OK\r\n.*ok\n$/s);
    expect(server.accessLog[0]).toMatch(/^203\.0\.113\.7 - - /);
    expect(server.records[0]!.peerAddr).toBe(parseIpv4('10.0.0.1'));
    expect(server.stats.proxyHeaders).toBe(1);
  });

  it('keeps the peer as the client for a LOCAL command (a health check from the balancer itself)', () => {
    const { sim, a, server } = setup({ proxyProtocol: true });
    const repr = {
      command: 'local' as const,
      transport: 0,
      addresses: { type: 'raw' as const, family: 0, bytes: new Uint8Array(0) },
      tlvs: [],
    };
    const header = new Uint8Array(proxyV2HeaderLen(repr));
    emitProxyV2(repr, ProxyV2View.unchecked(header));
    const { state } = rawClient(a, 8000, [header, GET('/sante')]);
    sim.run(1e9);
    expect(state.received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(server.accessLog[0]).toMatch(/^10\.0\.0\.1 - - /);
  });

  it('waits for a header split across segments', () => {
    const { sim, a, server } = setup({ proxyProtocol: true });
    const header = proxyHeader('203.0.113.7', 51000);
    const { state } = rawClient(a, 8000, [
      header.subarray(0, 10),
      header.subarray(10, 20),
      header.subarray(20),
      GET('/sante'),
    ]);
    sim.run(1e9);
    expect(state.received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(server.stats.proxyRejected).toBe(0);
  });

  it('closes without an answer a connection that does not start with the signature', () => {
    const { sim, a, server } = setup({ proxyProtocol: true });
    const { state } = rawClient(a, 8000, [GET('/sante')]);
    sim.run(1e9);
    expect(state.received).toBe('');
    expect(state.ended).toBe(true);
    expect(server.stats.proxyRejected).toBe(1);
    expect(server.stats.requests).toBe(0);
  });

  it('closes a header whose length is too short for its IPv4 address block', () => {
    const { sim, a, server } = setup({ proxyProtocol: true });
    const { state } = rawClient(a, 8000, [proxyHeader('203.0.113.7', 51000, { length: 4 }), GET('/sante')]);
    sim.run(1e9);
    expect(state.received).toBe('');
    expect(state.ended).toBe(true);
    expect(server.stats.proxyRejected).toBe(1);
  });

  it('closes a header whose TLVs overrun its length', () => {
    const { sim, a, server } = setup({ proxyProtocol: true });
    const header = proxyHeader('203.0.113.7', 51000);
    const withTlv = new Uint8Array(header.length + 3);
    withTlv.set(header);
    withTlv.set([0x04, 0x00, 0x09], header.length); // a NOOP TLV claiming 9 bytes, none present
    ProxyV2View.unchecked(withTlv).length = 12 + 3;
    const { state } = rawClient(a, 8000, [withTlv, GET('/sante')]);
    sim.run(1e9);
    expect(state.received).toBe('');
    expect(server.stats.proxyRejected).toBe(1);
  });
});

describe('httpServer malformed requests (Go net/http answers, counted, never thrown)', () => {
  const cases: {
    name: string;
    send: string;
    answer: string;
    stat: keyof ReturnType<typeof setup>['server']['stats'];
  }[] = [
    {
      name: 'a request line without a version',
      send: 'GET /sante\r\n\r\n',
      answer: goError('400 Bad Request'),
      stat: 'badRequestLine',
    },
    {
      name: 'a request line with a bad method',
      send: 'G(T /sante HTTP/1.1\r\nHost: x\r\n\r\n',
      answer: goError('400 Bad Request'),
      stat: 'badRequestLine',
    },
    {
      name: 'a garbage version',
      send: 'GET / HTTX/1.1\r\nHost: x\r\n\r\n',
      answer: goError('400 Bad Request'),
      stat: 'badRequestLine',
    },
    {
      name: 'HTTP/2.0 in text',
      send: 'GET / HTTP/2.0\r\nHost: x\r\n\r\n',
      answer: goError('505 HTTP Version Not Supported: unsupported protocol version'),
      stat: 'unsupportedVersion',
    },
    {
      name: 'a header line without a colon',
      send: 'GET / HTTP/1.1\r\nHost: x\r\nnonsense\r\n\r\n',
      answer: goError('400 Bad Request'),
      stat: 'badHeader',
    },
    {
      name: 'HTTP/1.1 without Host',
      send: 'GET / HTTP/1.1\r\n\r\n',
      answer: goError('400 Bad Request: missing required Host header'),
      stat: 'missingHost',
    },
    {
      name: 'a bad Content-Length',
      send: 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n',
      answer: goError('400 Bad Request'),
      stat: 'badContentLength',
    },
    {
      name: 'an unknown transfer coding',
      send: 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n',
      answer: goError('501 Not Implemented', 'Unsupported transfer encoding'),
      stat: 'unsupportedTransferEncoding',
    },
    {
      name: 'a request line after an empty line',
      send: `\r\n${GET('/sante')}`,
      answer: goError('400 Bad Request'),
      stat: 'badRequestLine',
    },
  ];
  for (const c of cases)
    it(`answers ${c.name} and closes`, () => {
      const { sim, a, server } = setup();
      const { state } = rawClient(a, 8000, [c.send]);
      sim.run(1e9);
      expect(state.received).toBe(c.answer);
      expect(state.ended).toBe(true);
      expect(server.stats[c.stat]).toBe(1);
      expect(server.accessLog).toEqual([]);
    });

  it('answers 431 to a head beyond MaxHeaderBytes plus Go’s 4096 bytes and half-closes', () => {
    const { sim, a, b, server } = setup({ maxHeaderBytes: 1024 });
    const { state } = rawClient(a, 8000, [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(6000)}\r\n\r\n`]);
    sim.run(1e6);
    expect(state.received).toBe(goError('431 Request Header Fields Too Large'));
    expect(state.ended).toBe(true);
    expect(server.stats.headerTooLarge).toBe(1);
    sim.run(1e9);
    expect([...b.tcp.sockets()].map((socket) => socket.state)).toEqual(['FIN_WAIT2']);
  });

  it('accepts a head just inside the limit', () => {
    const { sim, a, server } = setup({ maxHeaderBytes: 1024 });
    const { state } = rawClient(a, 8000, [GET('/sante', `X-Big: ${'a'.repeat(4000)}\r\n`)]);
    sim.run(1e9);
    expect(state.received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(server.stats.headerTooLarge).toBe(0);
  });

  it('reads a chunked request body, extensions and trailers included, then answers', () => {
    const { sim, a, server } = setup();
    const { state } = rawClient(a, 8000, [
      'POST /sante HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n',
      '0\r\nX-Trailer: 1\r\n\r\n',
    ]);
    sim.run(1e9);
    expect(state.received).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(server.stats.badChunk).toBe(0);
  });

  it('answers a chunk size that is not hexadecimal as a handler reading its body does, and closes', () => {
    const { sim, a, server } = setup();
    const { state } = rawClient(a, 8000, [
      'POST /sante HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n',
    ]);
    sim.run(1e9);
    expect(state.received).toBe(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n' +
        `${DATE0}Content-Length: 29\r\nConnection: close\r\n\r\ninvalid byte in chunk length\n`,
    );
    expect(state.ended).toBe(true);
    expect(server.stats.badChunk).toBe(1);
    expect(server.stats.responses).toEqual({ 400: 1 });
  });

  it('counts a reset from the client', () => {
    const { sim, a, server } = setup();
    const { socket } = rawClient(a, 8000, [GET('/lent')]);
    sim.run(1e6);
    socket.abort();
    sim.run(1e9);
    expect(server.stats.resets).toBe(1);
    expect(server.stats.responses).toEqual({});
  });
});
