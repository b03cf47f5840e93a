// ping's output compared with the real iputils ping on the real kernel, in two throw-away namespaces joined by a
// veth pair. Round-trip times and the elapsed time differ (packetlab's links have no latency); all else must match.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';

function normalise(text: string): string {
  return text
    .replace(/time=\d+(\.\d+)? ms/g, 'time=T ms')
    .replace(/time \d+ms/g, 'time Tms')
    .replace(/rtt min\/avg\/max\/mdev = [\d./]+ ms/g, 'rtt min/avg/max/mdev = R ms');
}

const CASES: [name: string, from: 'a' | 'b', args: string][] = [
  ['two echoes', 'a', '-c 2 -i 0.2 10.0.0.2'],
  ['the largest DF ping that fits', 'a', '-c 1 -M do -s 1472 10.0.0.2'],
  ['a DF ping one byte too big', 'a', '-c 1 -M do -s 1473 10.0.0.2'],
  ['an absent neighbour', 'a', '-c 1 10.0.0.9'],
  ['no route', 'a', '-c 1 -W 1 192.0.2.1'],
  ['a bad -M value', 'a', '-c 1 -M sometimes 10.0.0.2'],
  ['a TTL of 1 to a neighbour', 'b', '-c 1 -t 1 10.0.0.1'],
];

describe('ping against the real iputils ping', () => {
  const real = new RealNamespaces();
  let sim: Namespace[] = [];
  let ready = false;

  beforeAll(() => {
    if (!requireNetns() || !requireTool('ping')) return;
    real.add('a');
    real.add('b');
    real.ip('a', 'link', 'add', 'veth-a', 'type', 'veth', 'peer', 'name', 'veth-b', 'netns', real.name('b'));
    real.ip('a', 'addr', 'add', '10.0.0.1/24', 'dev', 'veth-a');
    real.ip('b', 'addr', 'add', '10.0.0.2/24', 'dev', 'veth-b');
    real.ip('a', 'link', 'set', 'veth-a', 'up');
    real.ip('b', 'link', 'set', 'veth-b', 'up');
    const simulation = new Simulation({ seed: 'ping' });
    const a = simulation.addNamespace('a');
    const b = simulation.addNamespace('b');
    for (const [ns, line] of [
      [a, 'ip link set lo up'],
      [b, 'ip link set lo up'],
      [a, 'ip link add veth-a type veth peer name veth-b netns b'],
      [a, 'ip addr add 10.0.0.1/24 dev veth-a'],
      [b, 'ip addr add 10.0.0.2/24 dev veth-b'],
      [a, 'ip link set veth-a up'],
      [b, 'ip link set veth-b up'],
    ] as const)
      expect(exec(ns, line).exitCode).toBe(0);
    sim = [a, b];
    ready = true;
  });

  afterAll(() => real.cleanup());

  it.each(CASES)('%s', (_name, from, args, ...rest) => {
    void rest;
    if (!ready) return;
    const ours = exec(from === 'a' ? sim[0]! : sim[1]!, `ping ${args}`);
    const theirs = real.exec(from, 'ping', args.split(' '));
    expect(normalise(ours.stdout)).toBe(normalise(theirs.stdout));
    expect(ours.stderr).toBe(theirs.stderr);
    expect(ours.exitCode).toBe(theirs.exitCode);
  });
});
