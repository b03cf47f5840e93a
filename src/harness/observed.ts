// What a driver brings back from running a scenario: every command's output, the UDP peers' lines and the frames of
// each capture point. Both drivers fill the same shape, so the comparator never asks which side it reads.

import type { Command, TrafficStep, Word } from './scenario.ts';

export interface CommandOutput {
  /** `ns: argv...`, the same text on both sides. */
  readonly label: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

export interface CaptureResult {
  readonly label: string;
  /** The pcap link type (1 for an interface). */
  readonly linkType: number;
  readonly frames: readonly Uint8Array[];
  /** Each frame's capture time in nanoseconds (not compared: real and virtual clocks; a case may check gaps). */
  readonly timesNs?: readonly number[];
  /** Set when the capture could not start or its file could not be read. */
  readonly error?: string;
}

export interface Observed {
  readonly side: 'linux' | 'packetlab';
  readonly setup: readonly CommandOutput[];
  /** One entry per traffic command; a UDP step gives two (client, then server). */
  readonly traffic: readonly CommandOutput[];
  readonly captures: readonly CaptureResult[];
  readonly observe: readonly CommandOutput[];
}

/** How a word reads in labels: namespaces and files by their scenario names. */
export function wordText(word: Word): string {
  if (typeof word === 'string') return word;
  return 'ns' in word ? word.ns : `<${word.file}>`;
}

export function commandLabel(command: Command): string {
  return `${command.ns}: ${command.argv.map(wordText).join(' ')}`;
}

export function udpLabels(step: Extract<TrafficStep, { kind: 'udp' }>): { client: string; server: string } {
  const { client, server } = step;
  return {
    client: `${client.ns}: udp send ${client.bind}:${client.port} -> ${step.dst}:${step.dstPort} x${step.count}`,
    server: `${server.ns}: udp echo ${server.bind}:${server.port}`,
  };
}

/** The lines both UDP peers print (udp-peer.mjs and the packetlab driver). */
export const udpLines = {
  received: (addr: string, port: number, payload: string) =>
    `from ${addr}:${port} ${JSON.stringify(payload)}`,
  reply: (addr: string, port: number, payload: string) =>
    `reply from ${addr}:${port} ${JSON.stringify(payload)}`,
  timeout: (n: number) => `timeout ${n}`,
  payload: (base: string, n: number) => `${base} ${n}`,
};

export function framesLabel(step: Extract<TrafficStep, { kind: 'frames' }>): string {
  return `${step.ns}: send ${step.frames.length} crafted frames on ${step.iface}`;
}

/**
 * What a crafted-frames step reports on both sides: tcpreplay's "Actual: N packets (B bytes)" and
 * its failed count, without its timing statistics; packetlab counts the frames packetSend accepted.
 */
export const framesLines = {
  sent: (packets: number, bytes: number) => `sent ${packets} packets (${bytes} bytes)`,
  failed: (packets: number) => `failed ${packets} packets`,
};

export function tcpLabels(step: Extract<TrafficStep, { kind: 'tcp' }>): { client: string; server: string } {
  const { client, server } = step;
  return {
    client: `${client.ns}: tcp send ${client.bind}:${client.port} -> ${step.dst}:${step.dstPort} ${step.bytes !== undefined ? `${step.bytes} bytes` : `x${step.count}`}`,
    server: server === undefined ? '' : `${server.ns}: tcp echo ${server.bind}:${server.port}`,
  };
}

/** The lines both TCP peers print (tcp-peer.mjs and the packetlab driver). */
export const tcpLines = {
  accepted: (addr: string, port: number) => `accept ${addr}:${port}`,
  data: (payload: string) => `data ${JSON.stringify(payload)}`,
  read: (bytes: number) => `read ${bytes} bytes`,
  end: 'end',
  close: 'close',
  connected: 'connected',
  reply: (payload: string) => `reply ${JSON.stringify(payload)}`,
  error: (code: string) => `error ${code}`,
  timeout: (n: number | 'connect') => `timeout ${n}`,
  closed: 'closed',
};
