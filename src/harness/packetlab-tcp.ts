// The TCP exchange of tcp-peer.mjs on packetlab's sockets, on virtual time: the same lines in the same order,
// Node's behaviour included (the server ends when the client does; an error is followed by "closed").

import { NS_PER_MS } from '../core/scheduler.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import type { TcpSocket } from '../socket/tcp/socket.ts';
import { formatIpv4, parseIpv4 } from '../wire/address.ts';
import { type CommandOutput, tcpLabels, tcpLines } from './observed.ts';
import type { Command, TrafficStep } from './scenario.ts';

const decoder = new TextDecoder('latin1');
const encoder = new TextEncoder();

function address(text: string, label: string): number {
  const addr = parseIpv4(text);
  if (addr === undefined) throw new Error(`bad address ${text} in ${label}`);
  return addr;
}

export function tcpExchange(
  sim: Simulation,
  nsOf: (name: string) => Namespace,
  step: Extract<TrafficStep, { kind: 'tcp' }>,
  run: (command: Command) => CommandOutput,
): CommandOutput[] {
  const labels = tcpLabels(step);
  const scheduler = sim.scheduler;
  const serverLines: string[] = [];
  const clientLines: string[] = [];

  /** Runs events until `done()` or `ms` of virtual time passed; true when done. */
  const runUntil = (done: () => boolean, ms: number): boolean => {
    const deadline = scheduler.now + ms * NS_PER_MS;
    while (!done()) {
      const next = scheduler.nextTime();
      if (next === undefined || next > deadline) {
        scheduler.runUntil(deadline);
        return done();
      }
      scheduler.runNext();
    }
    return true;
  };

  let listener: ReturnType<Namespace['tcp']['listen']> | undefined;
  let serverClosed = false;
  // tcp-peer.mjs's server lives until its connection closed, or this long when none completes.
  const serverDeadline =
    scheduler.now +
    ((step.count + 2) * step.timeoutMs + 2_000 + (step.readAfterMs ?? 0) + (step.idleMs ?? 0)) * NS_PER_MS;
  if (step.server !== undefined) {
    const server = step.server;
    listener = nsOf(server.ns).tcp.listen(address(server.bind, labels.server), server.port, (socket) => {
      serverLines.push(tcpLines.accepted(formatIpv4(socket.remoteAddr), socket.remotePort));
      if (listener !== undefined && listener !== 'EADDRINUSE') listener.close();
      let read = 0;
      if (step.bytes !== undefined) {
        // tcp-peer.mjs's pauseOnConnect, then resume() after readAfterMs.
        socket.pauseReading();
        scheduler.schedule((step.readAfterMs ?? 0) * NS_PER_MS, () => socket.resumeReading());
      }
      socket.onData = (s, data) => {
        if (step.bytes !== undefined) {
          read += data.length;
          return;
        }
        serverLines.push(tcpLines.data(decoder.decode(data)));
        s.write(data);
      };
      socket.onEnd = (s) => {
        if (step.bytes !== undefined) serverLines.push(tcpLines.read(read));
        serverLines.push(tcpLines.end);
        s.end();
      };
      socket.onClose = (_s, error) => {
        if (error !== undefined) serverLines.push(tcpLines.error(error));
        serverLines.push(tcpLines.close);
        serverClosed = true;
      };
    });
    if (listener === 'EADDRINUSE') serverLines.push(tcpLines.error('EADDRINUSE'));
  }
  // While the server listens and before the client connects (`ss -tln`).
  const listening = (step.whileListening ?? []).map(run);

  let connected = false;
  let closed = false;
  let replies = 0;
  const client = step.client;
  const result = nsOf(client.ns).tcp.connect({
    dst: address(step.dst, labels.client),
    dstPort: step.dstPort,
    ...(client.port !== 0 ? { srcPort: client.port } : {}),
    ...(client.bind !== '0.0.0.0' ? { src: address(client.bind, labels.client) } : {}),
    // libuv's uv__tcp_bind sets SO_REUSEADDR whenever Node binds a client (a port or an address given).
    reuseAddr: client.port !== 0 || client.bind !== '0.0.0.0',
  });
  if (!result.ok) {
    clientLines.push(tcpLines.error(result.error), tcpLines.closed);
    closed = true;
  } else {
    const socket: TcpSocket = result.socket;
    socket.onConnect = (s) => {
      connected = true;
      clientLines.push(tcpLines.connected);
      // Node's setKeepAlive(true, ms) (libuv's uv_tcp_keepalive): SO_KEEPALIVE, TCP_KEEPIDLE in whole
      // seconds, TCP_KEEPINTVL 1 and TCP_KEEPCNT 10.
      if (step.keepAliveMs !== undefined)
        s.setKeepAlive(true, {
          idle: Math.max(1, Math.floor(step.keepAliveMs / 1000)),
          interval: 1,
          count: 10,
        });
    };
    socket.onData = (_s, data) => {
      clientLines.push(tcpLines.reply(decoder.decode(data)));
      replies++;
    };
    socket.onClose = (_s, error) => {
      if (error !== undefined) clientLines.push(tcpLines.error(error));
      clientLines.push(tcpLines.closed);
      closed = true;
    };
    if (!runUntil(() => connected || closed, step.timeoutMs)) {
      clientLines.push(tcpLines.timeout('connect'));
      socket.destroy();
      clientLines.push(tcpLines.closed);
      closed = true;
    }
    if (step.bytes !== undefined && connected && !closed) {
      // tcp-peer.mjs waits 100 ms (BULK_DELAY_MS), then node's end(data): one write, then shutdown once it returned.
      runUntil(() => closed, 100);
      socket.write(new Uint8Array(step.bytes).fill(0x78));
      socket.end();
      runUntil(() => closed, (step.readAfterMs ?? 0) + step.timeoutMs);
    }
    for (let n = 1; n <= step.count && connected && !closed && step.bytes === undefined; n++) {
      const before = replies;
      socket.write(encoder.encode(`${step.payload} ${n}`));
      if (!runUntil(() => replies > before || closed, step.timeoutMs)) clientLines.push(tcpLines.timeout(n));
    }
    if (step.keepAliveMs !== undefined && !closed) runUntil(() => closed, step.idleMs ?? 0);
    if (!closed) socket.end();
  }
  // The kernel side waits for the server to end: its connection closed, or its lifetime over.
  if (step.server !== undefined && listener !== 'EADDRINUSE')
    runUntil(() => serverClosed, Math.max(0, serverDeadline - scheduler.now) / NS_PER_MS);
  if (listener !== undefined && listener !== 'EADDRINUSE') listener.close();

  const output = (label: string, lines: string[]): CommandOutput => ({
    label,
    stdout: lines.map((line) => `${line}\n`).join(''),
    stderr: '',
    exitCode: 0,
  });
  const outputs = [...listening, output(labels.client, clientLines)];
  if (step.server !== undefined) outputs.push(output(labels.server, serverLines));
  return outputs;
}
