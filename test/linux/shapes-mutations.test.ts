// Bad input from real shapes: every rule line of the iptables-save fixtures (test/fixtures/shapes/) mutated in turn
// (cut in the middle; on some lines its last word dropped or its target misspelt), each mutated file through the real
// iptables-restore 1.8.9 in one real namespace (one shell script, the ruleset flushed between files) and through
// packetlab (a fresh namespace each): the same exit code and message, and the same tables left behind (iptables-restore
// commits table by table). packetlab must never throw. Prints the agreement.

import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { fixture } from '../shapes/shapes.ts';
import { RealNamespaces, requireNetns, run } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';

const FIXTURES = [
  'docker.iptables-save',
  'flannel.iptables-save',
  'tailscale.iptables-save',
  'calico.iptables-save',
] as const;

interface Mutation {
  readonly label: string;
  readonly text: string;
}

/** The fixture with line `index` replaced. */
function replaceLine(text: string, index: number, line: string): string {
  const lines = text.split('\n');
  lines[index] = line;
  return lines.join('\n');
}

function mutations(name: string): Mutation[] {
  const text = fixture(name);
  const out: Mutation[] = [];
  // Calico's 90 rules are sampled (every other line) to keep the case cheap; the others are taken whole.
  const every = name.startsWith('calico') ? 2 : 1;
  text.split('\n').forEach((line, i) => {
    if (!line.startsWith('-A ') || i % every !== 0) return;
    const words = line.split(' ');
    // A dropped last word mostly reads as `-j` without its target: every third line is enough.
    if (i % 3 === 0)
      out.push({
        label: `${name}:${i + 1} last word dropped`,
        text: replaceLine(text, i, words.slice(0, -1).join(' ')),
      });
    out.push({
      label: `${name}:${i + 1} cut in the middle`,
      text: replaceLine(text, i, line.slice(0, line.length >> 1)),
    });
    if (i % 4 === 0 && line.includes(' -j '))
      out.push({
        label: `${name}:${i + 1} target misspelt`,
        text: replaceLine(text, i, line.replace(/ -j (\S+)/, ' -j $1X')),
      });
  });
  return out;
}

interface Outcome {
  readonly exitCode: number;
  readonly output: string;
  readonly tables: string;
}

const withoutDates = (text: string) =>
  text
    .split('\n')
    .filter((line) => !/^# (Generated|Completed) /.test(line))
    .join('\n');

function onKernel(all: readonly Mutation[]): Outcome[] {
  const namespaces = new RealNamespaces();
  try {
    namespaces.add('mut');
    const dir = tmpdir();
    const ipsets = join(dir, `${namespaces.prefix}-ipsets`);
    writeFileSync(ipsets, fixture('calico.ipset'));
    // The outputs go to a file: all of them are past spawnSync's 1 MiB pipe buffer.
    const outFile = join(dir, `${namespaces.prefix}-mutations.out`);
    const lines = ['#!/bin/sh', `exec > ${outFile}`, `ipset restore < ${ipsets}`];
    all.forEach((mutation, i) => {
      const file = join(dir, `${namespaces.prefix}-mut-${i}`);
      writeFileSync(file, mutation.text);
      // Each output ends with a marker line of its own (a newline first: an output may not end with one).
      lines.push('nft flush ruleset');
      lines.push(`iptables-restore < ${file} 2>&1; printf '\\n@@R${i} %d\\n' $?`);
      lines.push(`iptables-save 2>/dev/null; printf '\\n@@S${i} %d\\n' $?`);
    });
    const script = join(dir, `${namespaces.prefix}-mutations.sh`);
    writeFileSync(script, `${lines.join('\n')}\n`);
    run('ip', ['netns', 'exec', namespaces.name('mut'), 'sh', script]);
    const chunks = readFileSync(outFile, 'utf8').split(/\n@@[RS]\d+ (\d+)\n/);
    const outcomes: Outcome[] = [];
    for (let i = 0; i + 3 < chunks.length; i += 4)
      outcomes.push({
        output: chunks[i]!,
        exitCode: Number(chunks[i + 1]),
        tables: withoutDates(chunks[i + 2]!),
      });
    return outcomes;
  } finally {
    namespaces.cleanup();
  }
}

function onPacketlab(mutation: Mutation): Outcome {
  const ns = new Simulation({ seed: 'mutations' }).addNamespace('mut');
  exec(ns, 'ipset restore', { stdin: fixture('calico.ipset') });
  const restore = exec(ns, 'iptables-restore', { stdin: mutation.text });
  return {
    exitCode: restore.exitCode,
    output: `${restore.stdout}${restore.stderr}`,
    tables: withoutDates(exec(ns, 'iptables-save').stdout),
  };
}

describe('mutated real shapes: iptables-restore as the real tool', () => {
  it('every mutation: the same exit code, message and tables left', (ctx) => {
    if (!requireNetns(ctx) || !requireTool('iptables-restore', ctx) || !requireTool('ipset', ctx)) return;
    const all = FIXTURES.flatMap(mutations);
    const kernel = onKernel(all);
    expect(kernel.length).toBe(all.length);
    const differences: string[] = [];
    all.forEach((mutation, i) => {
      const real = kernel[i]!;
      const ours = onPacketlab(mutation);
      if (ours.exitCode !== real.exitCode || ours.output !== real.output)
        differences.push(
          `${mutation.label}: linux ${real.exitCode} ${JSON.stringify(real.output)}, packetlab ${ours.exitCode} ${JSON.stringify(ours.output)}`,
        );
      else if (ours.tables !== real.tables)
        differences.push(
          `${mutation.label}: the tables left differ:\nlinux:\n${real.tables}\npacketlab:\n${ours.tables}`,
        );
    });
    const agree = all.length - differences.length;
    console.log(`mutated shapes: ${agree} of ${all.length} agree with iptables-restore 1.8.9`);
    expect(differences).toEqual([]);
  }, 120_000);
});
