// The local-ports step of ports-peer.mjs on packetlab's sockets, on virtual time: the same raw lines (normalised by
// ports-lines.ts), Node's behaviour included (its listeners set SO_REUSEADDR, a plain connect() binds nothing, the
// server ends a connection when its client does).

import { NS_PER_MS } from '../core/scheduler.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import type { TcpSocket } from '../socket/tcp/socket.ts';
import type { TcpListener } from '../socket/tcp/table.ts';
import { parseIpv4 } from '../wire/address.ts';
import type { CommandOutput } from './observed.ts';
import { normalisePortLines, portsLabel, portsRawLines } from './ports-lines.ts';
import type { TrafficStep } from './scenario.ts';

export function portsExchange(
  sim: Simulation,
  nsOf: (name: string) => Namespace,
  step: Extract<TrafficStep, { kind: 'ports' }>,
): CommandOutput {
  const scheduler = sim.scheduler;
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

  const listeners: TcpListener[] = [];
  if (step.server !== undefined)
    for (const port of step.server.ports) {
      const listener = nsOf(step.server.ns).tcp.listen(0, port, (socket) => {
        socket.onEnd = (s) => s.end();
      });
      if (listener === 'EADDRINUSE') throw new Error(`ports step: server port ${port} taken`);
      listeners.push(listener);
    }

  const client = nsOf(step.client);
  const lines: string[] = [];
  const open = new Set<TcpSocket>();
  const udpBound: number[] = [];
  const closeAll = () => {
    const closing = [...open];
    open.clear();
    let left = closing.length;
    for (const socket of closing) {
      socket.onClose = () => left--;
      socket.end();
    }
    runUntil(() => left === 0, 5_000);
  };

  for (const action of step.actions) {
    switch (action.kind) {
      case 'connect': {
        const dst = parseIpv4(action.dst);
        if (dst === undefined) throw new Error(`ports step: bad address ${action.dst}`);
        for (let i = 0; i < action.count; i++) {
          const result = client.tcp.connect({ dst, dstPort: action.port });
          if (!result.ok) {
            lines.push(portsRawLines.connect(action.port, { error: result.error }));
            continue;
          }
          const socket = result.socket;
          let outcome: { port: number } | { error: string } | undefined;
          socket.onConnect = () => {
            outcome = { port: socket.localPort };
          };
          socket.onClose = (_s, error) => {
            outcome ??= { error: error ?? 'closed' };
          };
          if (!runUntil(() => outcome !== undefined, action.timeoutMs)) {
            socket.abort();
            outcome = { error: 'timeout' };
          }
          if ('port' in outcome!) open.add(socket);
          lines.push(portsRawLines.connect(action.port, outcome!));
        }
        break;
      }
      case 'close':
        lines.push(portsRawLines.closed(open.size));
        closeAll();
        break;
      case 'listen0': {
        const listener = client.tcp.listen(0, 0, () => {});
        if (listener === 'EADDRINUSE') lines.push(portsRawLines.listen0({ error: 'EADDRINUSE' }));
        else {
          lines.push(portsRawLines.listen0({ port: listener.port }));
          listener.close();
        }
        break;
      }
      case 'udp0':
        for (let i = 0; i < action.count; i++) {
          const port = client.udp.autobind(0, () => {});
          if (port === 'EADDRINUSE') lines.push(portsRawLines.udp0({ error: 'EADDRINUSE' }));
          else {
            lines.push(portsRawLines.udp0({ port }));
            udpBound.push(port);
          }
        }
        break;
      case 'sysctl': {
        const written = client.sysctls.set(action.key, action.value);
        if (!written.ok)
          throw new Error(`ports step: sysctl ${action.key}=${action.value}: ${written.error}`);
        break;
      }
      case 'wait':
        runUntil(() => false, action.ms);
        break;
      default:
        action satisfies never;
    }
  }
  closeAll();
  for (const listener of listeners) listener.close();
  for (const port of udpBound) client.udp.unbind(0, port);
  return {
    label: portsLabel(step),
    stdout: normalisePortLines(lines.map((line) => `${line}\n`).join(''), step),
    stderr: '',
    exitCode: 0,
  };
}
