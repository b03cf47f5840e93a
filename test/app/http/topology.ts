// Two namespaces on a veth for the application tests: a client `a` (10.0.0.1) and a server `b` (10.0.0.2).

import { latin1, latin1Bytes } from '../../../src/app/http/message.ts';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';

export function run(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${line}: ${result.stderr}`);
}

export function twoHosts(seed = 'http') {
  const sim = new Simulation({ seed });
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  run(a, 'ip link add eth0 type veth peer name eth0 netns b');
  run(a, 'ip addr add 10.0.0.1/24 dev eth0');
  run(b, 'ip addr add 10.0.0.2/24 dev eth0');
  run(a, 'ip link set eth0 up');
  run(b, 'ip link set eth0 up');
  run(a, 'ip link set lo up');
  run(b, 'ip link set lo up');
  return { sim, a, b };
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
