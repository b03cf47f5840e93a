// The scenario veth: two namespaces joined by a veth pair, a ping across, and every frame on the wire decoded.

import { formatLayers } from '../src/capture/layers.ts';
import type { Namespace } from '../src/netns/namespace.ts';
import { Simulation } from '../src/netns/simulation.ts';
import { Story, type StoryResult, transcript } from '../src/story/story.ts';
import { execOrThrow } from '../src/tools/exec.ts';

export interface TourOutput {
  readonly lines: string[];
  readonly frames: { timeNs: number; dev: string; direction: 'rx' | 'tx'; frame: Uint8Array }[];
  readonly story: StoryResult;
}

/** Builds the topology, runs `ping -c 2` from a to b, and returns what was printed and captured. */
export function runTwoNamespaces(seed: string | number = 'packetlab'): TourOutput {
  const sim = new Simulation({ seed });
  const story = new Story('veth', seed);
  story.attach(sim);
  const frames: TourOutput['frames'] = [];
  const { a } = twoNamespaces(sim);
  const vethA = a.byName('veth-a')!;
  vethA.taps.push((dev, pkt, direction) => {
    frames.push({ timeNs: sim.now, dev: dev.name, direction, frame: pkt.frame().slice() });
  });
  const ping = story.run('$ ip netns exec a', a, 'ping -c 2 10.0.0.2');
  story.expectThat(
    'both echo requests are answered',
    '2 received',
    ping.stdout.trimEnd().split('\n').at(-2) ?? '',
    ping.stdout.includes('2 packets transmitted, 2 received'),
  );
  const decoded = ['', 'What crossed veth-a, frame by frame, one line per layer:'];
  frames.forEach(({ timeNs, direction, frame }, index) => {
    decoded.push(
      `#${index + 1} ${formatTime(timeNs)} ${direction === 'tx' ? 'out of' : 'into'} veth-a, ${frame.length} bytes`,
    );
    for (const layer of formatLayers(frame)) decoded.push(`    ${layer}`);
  });
  story.show(decoded.join('\n'));
  story.expectEqual('ARP first, then two echo exchanges: six frames on veth-a', 6, frames.length);
  const result = story.result();
  return { lines: transcript(result), frames, story: result };
}

/** Namespaces a (10.0.0.1 on veth-a) and b (10.0.0.2 on veth-b) joined by a veth pair, both ends up. */
export function twoNamespaces(sim: Simulation): { readonly a: Namespace; readonly b: Namespace } {
  const a = sim.addNamespace('a');
  const b = sim.addNamespace('b');
  for (const [ns, command] of [
    [a, 'ip link add veth-a type veth peer name veth-b netns b'],
    [a, 'ip addr add 10.0.0.1/24 dev veth-a'],
    [b, 'ip addr add 10.0.0.2/24 dev veth-b'],
    [a, 'ip link set veth-a up'],
    [b, 'ip link set veth-b up'],
  ] as const) {
    execOrThrow(ns, command);
  }
  return { a, b };
}

function formatTime(timeNs: number): string {
  const seconds = Math.floor(timeNs / 1e9);
  const micros = Math.floor((timeNs % 1e9) / 1e3);
  const hh = String(Math.floor(seconds / 3600) % 24).padStart(2, '0');
  const mm = String(Math.floor(seconds / 60) % 60).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return `${hh}:${mm}:${ss}.${String(micros).padStart(6, '0')}`;
}
