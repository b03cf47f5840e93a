// Two namespaces on a veth for the application tests: a client `a` (10.0.0.1) and a server `b` (10.0.0.2).

import { latin1, latin1Bytes } from '../../../src/app/http/message.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { execOrThrow } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import { twoHosts as hosts, type TwoHosts } from '../../support/two-hosts.ts';

export function run(ns: Namespace, line: string): void {
  execOrThrow(ns, line);
}

export function twoHosts(seed = 'http'): TwoHosts {
  return hosts(seed, { loopback: true });
}

/** A raw TCP client on a → b:port that sends `chunks` one after the other and records what comes back. */
export function rawClient(a: Namespace, port: number, chunks: readonly (string | Uint8Array)[]) {
  const state = { received: '', ended: false, closed: false, error: undefined as string | undefined };
  const connected = a.tcp.connect({ dst: parseIpv4('10.0.0.2')!, dstPort: port });
  if (!connected.ok) throw new Error(connected.error);
  const socket = connected.socket;
  socket.onConnect = (s) => {
    for (const chunk of chunks) s.write(typeof chunk === 'string' ? latin1Bytes(chunk) : chunk);
  };
  socket.onData = (_s, data) => {
    state.received += latin1(data);
  };
  socket.onEnd = () => {
    state.ended = true;
  };
  socket.onClose = (_s, error) => {
    state.closed = true;
    state.error = error;
  };
  return { state, socket };
}
