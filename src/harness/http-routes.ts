// The reference server's routes as packetlab's httpServer serves them: the same paths and bodies as
// test/app/http/go-server/main.go (Go's net/http), which the kernel side of an http step runs.

import type { HttpRoute } from '../app/http/server.ts';

export const REFERENCE_ROUTES: Readonly<Record<string, HttpRoute>> = {
  '/sante': { body: 'ok\n' },
  '/cinq': { bodyBytes: 5000 },
  '/rapport': { bodyBytes: 200_000 },
  '/rapport-cl': { bodyBytes: 200_000, chunked: false },
  '/flux': { body: 'abcdefghij', chunked: true, chunkBytes: 4 },
  '/json': { status: 201, body: '{}', contentType: 'application/json', headers: { 'X-Pod': 'web-1' } },
  '/empty': {},
};

/** The reference server's MaxHeaderBytes (main.go's http.Server). */
export const REFERENCE_MAX_HEADER_BYTES = 1024;
