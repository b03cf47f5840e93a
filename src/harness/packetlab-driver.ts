// Runs a harness scenario on packetlab: its namespaces and segments through the API, its commands through the command
// façade (`exec`), captures with the façade's tcpdump, UDP through the namespaces' sockets, crafted frames with
// packetSend; all on virtual time.

import { httpServer } from '../app/http/server.ts';
import { readPcap } from '../capture/pcap.ts';
import { NS_PER_MS } from '../core/scheduler.ts';
import { runPlan } from '../k8s/run-plan.ts';
import { packetSend } from '../link/packet-socket.ts';
import type { Namespace } from '../netns/namespace.ts';
import { Simulation } from '../netns/simulation.ts';
import { spawn } from '../tools/exec.ts';
import { formatIpv4, parseIpv4 } from '../wire/address.ts';
import { REFERENCE_MAX_HEADER_BYTES, REFERENCE_ROUTES } from './http-routes.ts';
import {
  type CaptureResult,
  type CommandOutput,
  commandLabel,
  framesLabel,
  framesLines,
  type Observed,
  udpLabels,
  udpLines,
} from './observed.ts';
import { portsExchange } from './packetlab-ports.ts';
import { tcpExchange } from './packetlab-tcp.ts';
import type { Command, Scenario, TrafficStep } from './scenario.ts';

export interface PacketlabRun extends Observed {
  /** The simulation, left as the scenario ended it, for tests that look further. */
  readonly sim: Simulation;
}

/** Quotes a word for the façade's shell-words parser when it needs it. */
function quote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export function runPacketlab(scenario: Scenario, options: { seed?: string } = {}): PacketlabRun {
  const sim = new Simulation({ seed: options.seed ?? scenario.name });
  const runner = runPlan(
    sim,
    { namespaces: scenario.namespaces, segments: scenario.segments, commands: [] },
    { fileDir: '/harness/' },
  ).runner;
  const nsOf = (name: string): Namespace => runner.nsOf(name);
  const run = (command: Command): CommandOutput => ({ label: commandLabel(command), ...runner.run(command) });

  const setup = scenario.setup.map(run);

  const running = scenario.captures.map((capture, i) => {
    const path = `/harness/capture-${i}.pcap`;
    const filter = capture.filter === '' ? '' : ` ${quote(capture.filter)}`;
    const promiscuous = capture.promiscuous ? '' : ' -p';
    const line = `tcpdump -n${promiscuous} -i ${capture.iface} -w ${path}${filter}`;
    return { capture, path, process: spawn(nsOf(capture.ns), line) };
  });

  const monitors = scenario.monitors.map((command) => {
    const line = runner.argv(command).map(quote).join(' ');
    return { command, process: spawn(nsOf(command.ns), line) };
  });

  const traffic: CommandOutput[] = [];
  for (const step of scenario.traffic) {
    switch (step.kind) {
      case 'command':
        traffic.push(run(step.command));
        break;
      case 'udp':
        traffic.push(...udpExchange(sim, nsOf, step));
        break;
      case 'frames':
        traffic.push(craftedFrames(sim, nsOf, step));
        break;
      case 'tcp':
        traffic.push(...tcpExchange(sim, nsOf, step, run));
        break;
      case 'ports':
        traffic.push(portsExchange(sim, nsOf, step));
        break;
      case 'http': {
        // The reference routes on httpServer; curl drives the simulation to the transfer's end, then the close lands.
        const server = httpServer(nsOf(step.server.ns), {
          port: step.server.port,
          ...(step.server.bind !== '0.0.0.0' ? { addr: step.server.bind } : {}),
          routes: REFERENCE_ROUTES,
          maxHeaderBytes: REFERENCE_MAX_HEADER_BYTES,
        });
        traffic.push(run(step.client));
        sim.run(step.lingerMs * NS_PER_MS);
        server.close();
        break;
      }
      case 'wait':
        sim.run(step.ms * NS_PER_MS);
        break;
      default:
        step satisfies never;
    }
  }

  const captures: CaptureResult[] = running.map(({ capture, path, process }) => {
    const label = `${capture.ns}/${capture.iface}`;
    if (!('stop' in process)) return { label, linkType: 0, frames: [], error: process.stderr.trim() };
    process.stop();
    const bytes = sim.files.get(path);
    if (bytes === undefined) return { label, linkType: 0, frames: [], error: 'tcpdump wrote no file' };
    const read = readPcap(bytes);
    if (!read.ok) return { label, linkType: 0, frames: [], error: read.error };
    return {
      label,
      linkType: read.file.linkType,
      frames: read.file.records.map((record) => record.data),
      timesNs: read.file.records.map((record) => record.timeNs),
    };
  });

  const monitored: CommandOutput[] = monitors.map(({ command, process }) => ({
    label: commandLabel(command),
    ...('stop' in process ? process.stop() : process),
  }));
  const observe = [...scenario.observe.map(run), ...monitored];
  return { side: 'packetlab', sim, setup, traffic, captures, observe };
}

/** Crafted frames through packetSend (an AF_PACKET socket's sendto), each followed by what it causes at that instant. */
function craftedFrames(
  sim: Simulation,
  nsOf: (name: string) => Namespace,
  step: Extract<TrafficStep, { kind: 'frames' }>,
): CommandOutput {
  const dev = nsOf(step.ns).byName(step.iface);
  if (dev === undefined) throw new Error(`${framesLabel(step)}: no device`);
  let sent = 0;
  let bytes = 0;
  let failed = 0;
  for (const frame of step.frames) {
    const result = packetSend(dev, frame);
    if (result.ok) {
      sent++;
      bytes += frame.length;
    } else failed++;
    // The kernel's softirq runs before sendto returns: the frame's consequences come before the next frame.
    sim.run(0);
  }
  const lines = [framesLines.sent(sent, bytes), ...(failed > 0 ? [framesLines.failed(failed)] : [])];
  return {
    label: framesLabel(step),
    stdout: lines.map((line) => `${line}\n`).join(''),
    stderr: '',
    exitCode: 0,
  };
}

/** The UDP exchange of udp-peer.mjs, on packetlab's sockets: same lines, same order. */
function udpExchange(
  sim: Simulation,
  nsOf: (name: string) => Namespace,
  step: Extract<TrafficStep, { kind: 'udp' }>,
): CommandOutput[] {
  const labels = udpLabels(step);
  const server = nsOf(step.server.ns);
  const client = nsOf(step.client.ns);
  const serverBind = parseIpv4(step.server.bind);
  const clientBind = parseIpv4(step.client.bind);
  const dst = parseIpv4(step.dst);
  if (serverBind === undefined || clientBind === undefined || dst === undefined)
    throw new Error(`bad address in ${labels.client}`);
  const serverLines: string[] = [];
  const clientLines: string[] = [];
  let answered = false;
  const decoder = new TextDecoder('latin1');
  const serverBound = server.udp.bind(serverBind, step.server.port, (datagram) => {
    serverLines.push(
      udpLines.received(formatIpv4(datagram.srcAddr), datagram.srcPort, decoder.decode(datagram.payload)),
    );
    server.udp.send({
      dst: datagram.srcAddr,
      dstPort: datagram.srcPort,
      srcPort: step.server.port,
      ...(serverBind !== 0 ? { src: serverBind } : {}),
      payload: datagram.payload.slice(),
    });
  });
  const clientBound = client.udp.bind(clientBind, step.client.port, (datagram) => {
    clientLines.push(
      udpLines.reply(formatIpv4(datagram.srcAddr), datagram.srcPort, decoder.decode(datagram.payload)),
    );
    answered = true;
  });
  if (!serverBound || !clientBound) throw new Error(`${labels.client}: a port is taken`);
  const scheduler = sim.scheduler;
  for (let n = 1; n <= step.count; n++) {
    answered = false;
    const sent = client.udp.send({
      dst,
      dstPort: step.dstPort,
      srcPort: step.client.port,
      ...(clientBind !== 0 ? { src: clientBind } : {}),
      payload: new TextEncoder().encode(udpLines.payload(step.payload, n)),
    });
    if (!sent.ok) clientLines.push(`send error ${sent.error}`);
    const deadline = scheduler.now + step.timeoutMs * NS_PER_MS;
    while (!answered) {
      const next = scheduler.nextTime();
      if (next === undefined || next > deadline) break;
      scheduler.runNext();
    }
    if (!answered) {
      scheduler.runUntil(deadline);
      clientLines.push(udpLines.timeout(n));
    }
  }
  client.udp.unbind(clientBind, step.client.port);
  server.udp.unbind(serverBind, step.server.port);
  const output = (label: string, lines: string[]): CommandOutput => ({
    label,
    stdout: lines.map((line) => `${line}\n`).join(''),
    stderr: '',
    exitCode: 0,
  });
  return [output(labels.client, clientLines), output(labels.server, serverLines)];
}
