// The first tour: two namespaces joined by a veth pair, a ping across, and every frame on the wire decoded.

import { formatLayers } from '../src/capture/layers.ts';
import { Simulation } from '../src/netns/simulation.ts';
import { exec } from '../src/tools/exec.ts';

export interface TourOutput {
  readonly lines: string[];
  readonly frames: { timeNs: number; dev: string; direction: 'rx' | 'tx'; frame: Uint8Array }[];
}

/** Builds the topology, runs `ping -c 2` from a to b, and returns what was printed and captured. */
export function runTwoNamespaces(seed: string | number = 'packetlab'): TourOutput {
  const sim = new Simulation({ seed });
  const lines: string[] = [];
  const frames: TourOutput['frames'] = [];
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  for (const [ns, command] of [
    [a, 'ip link add veth-a type veth peer name veth-b netns b'],
    [a, 'ip addr add 10.0.0.1/24 dev veth-a'],
    [b, 'ip addr add 10.0.0.2/24 dev veth-b'],
    [a, 'ip link set veth-a up'],
    [b, 'ip link set veth-b up'],
  ] as const) {
    const result = exec(ns, command);
    if (result.exitCode !== 0) throw new Error(`${command}: ${result.stderr}`);
  }
  const vethA = a.byName('veth-a')!;
  vethA.taps.push((dev, pkt, direction) => {
    frames.push({ timeNs: sim.now, dev: dev.name, direction, frame: pkt.frame().slice() });
  });
  lines.push('$ ip netns exec a ping -c 2 10.0.0.2');
  const result = exec(a, 'ping -c 2 10.0.0.2');
  lines.push(...result.stdout.trimEnd().split('\n'));
  lines.push('', 'What crossed veth-a, frame by frame, one line per layer:');
  frames.forEach(({ timeNs, direction, frame }, index) => {
    lines.push(
      `#${index + 1} ${formatTime(timeNs)} ${direction === 'tx' ? 'out of' : 'into'} veth-a, ${frame.length} bytes`,
    );
    for (const layer of formatLayers(frame)) lines.push(`    ${layer}`);
  });
  return { lines, frames };
}

function formatTime(timeNs: number): string {
  const seconds = Math.floor(timeNs / 1e9);
  const micros = Math.floor((timeNs % 1e9) / 1e3);
  const hh = String(Math.floor(seconds / 3600) % 24).padStart(2, '0');
  const mm = String(Math.floor(seconds / 60) % 60).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return `${hh}:${mm}:${ss}.${String(micros).padStart(6, '0')}`;
}
