// What a local-ports step shows on both sides: the peers print the ports they got (`connect 8080 port 40062`),
// which differ between the kernel (keyed with a per-boot secret) and packetlab (the seed); this keeps what both
// must agree on: each port's parity (not for UDP, whose first port is uniformly random), that it lies in ip_local_port_range and is not already in use, the errors,
// and on request whether successive ports stepped by +2 to +16 (the perturbation table's advance when no port is
// taken: `max(i, get_random_u32_below(8) * 2) + 2`).

import type { TrafficStep } from './scenario.ts';

type PortsStep = Extract<TrafficStep, { kind: 'ports' }>;

export function portsLabel(step: PortsStep): string {
  return `${step.client}: ports ${step.actions.map((action) => action.kind).join(',')}`;
}

/** The raw line of a connect() outcome and of a listen(0). */
export const portsRawLines = {
  connect: (dstPort: number, outcome: { port: number } | { error: string }) =>
    `connect ${dstPort} ${'port' in outcome ? `port ${outcome.port}` : `error ${outcome.error}`}`,
  closed: (count: number) => `closed ${count}`,
  listen0: (outcome: { port: number } | { error: string }) =>
    `listen0 ${'port' in outcome ? `port ${outcome.port}` : `error ${outcome.error}`}`,
  udp0: (outcome: { port: number } | { error: string }) =>
    `udp0 ${'port' in outcome ? `port ${outcome.port}` : `error ${outcome.error}`}`,
};

/** Raw peer output → the compared lines: the actions in order, each consuming the lines it printed. */
export function normalisePortLines(raw: string, step: PortsStep): string {
  const [low, high] = step.range;
  const lines = raw.split('\n').filter((line) => line !== '' && line !== 'ready');
  const out: string[] = [];
  let at = 0;
  const describe = (port: number) =>
    `${port % 2 === 0 ? 'even' : 'odd'} ${port < low || port > high ? 'out of range' : 'in range'}`;
  for (const action of step.actions) {
    switch (action.kind) {
      case 'connect': {
        const ports: number[] = [];
        for (let i = 0; i < action.count; i++) {
          const line = lines[at++] ?? 'missing';
          const match = /^connect (\d+) port (\d+)$/.exec(line);
          if (match === null) {
            out.push(line);
            continue;
          }
          const port = Number(match[2]);
          out.push(`connect ${match[1]} ${describe(port)}`);
          ports.push(port);
        }
        out.push(
          `connect ${action.port}: ${ports.length} of ${action.count} connected, ${new Set(ports).size} ports`,
        );
        if (action.steps === true && ports.length > 1) {
          const steps = ports.slice(1).map((port, i) => port - ports[i]!);
          const small = steps.every((value) => value >= 2 && value <= 16 && value % 2 === 0);
          out.push(`connect ${action.port}: steps ${small ? 'all +2..+16' : `other ${steps.join(' ')}`}`);
        }
        break;
      }
      case 'listen0': {
        const line = lines[at++] ?? 'missing';
        const match = /^listen0 port (\d+)$/.exec(line);
        out.push(match === null ? line : `listen0 ${describe(Number(match[1]))}`);
        break;
      }
      case 'udp0': {
        const ports: number[] = [];
        for (let i = 0; i < action.count; i++) {
          const line = lines[at++] ?? 'missing';
          const match = /^udp0 port (\d+)$/.exec(line);
          if (match === null) out.push(line);
          else {
            out.push(`udp0 ${describe(Number(match[1]))}`.replace(/^udp0 (even|odd) /, 'udp0 '));
            ports.push(Number(match[1]));
          }
        }
        out.push(`udp0: ${ports.length} of ${action.count} bound, ${new Set(ports).size} ports`);
        break;
      }
      case 'close':
        out.push(lines[at++] ?? 'missing');
        break;
      case 'sysctl':
      case 'wait':
        break;
      default:
        action satisfies never;
    }
  }
  out.push(...lines.slice(at));
  return out.map((line) => `${line}\n`).join('');
}
