// The nft rule corpus (corpus/nft-rules.ts) through the real nft 1.0.6 in a real namespace (one shell script) and
// through packetlab: each line added on its own with `nft add rule`, the same exit code and message expected, and
// each accepted rule listed the same by `nft list ruleset`. Prints the agreement rate, over every line and over the
// lines packetlab claims (those it does not answer with "not supported by packetlab").

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns, run } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';
import { type NftCorpusRule, nftCorpus } from './corpus/nft-rules.ts';

const SETUP = ['ip', 'inet'].flatMap((family) => [
  `nft add table ${family} t`,
  `nft add chain ${family} t c`,
  `nft add chain ${family} t c2`,
  `nft 'add chain ${family} t pre { type nat hook prerouting priority dstnat; }'`,
  `nft 'add chain ${family} t post { type nat hook postrouting priority srcnat; }'`,
  `nft add counter ${family} t cnt`,
  `nft 'add quota ${family} t q { 100 bytes }'`,
  `nft 'add limit ${family} t lim { rate 1/second }'`,
]);

function commandLine(rule: NftCorpusRule): string {
  return `nft add rule ${rule.family} t ${rule.chain} '${rule.rule.replaceAll("'", "'\\''")}'`;
}

interface Outcome {
  readonly exitCode: number;
  readonly output: string;
}

interface Side {
  readonly rules: Outcome[];
  readonly listing: string;
}

function onKernel(rules: readonly NftCorpusRule[]): Side {
  const namespaces = new RealNamespaces();
  try {
    namespaces.add('corpus');
    const lines = ['#!/bin/sh', ...SETUP];
    for (const rule of rules) lines.push(`${commandLine(rule)} 2>&1; echo "@@rc=$?"`);
    lines.push('nft list ruleset 2>&1; echo "@@rc=$?"');
    const script = join(tmpdir(), `${namespaces.prefix}-nft-corpus.sh`);
    writeFileSync(script, `${lines.join('\n')}\n`);
    const result = run('ip', ['netns', 'exec', namespaces.name('corpus'), 'sh', script]);
    const chunks = result.stdout.split(/@@rc=(\d+)\n/);
    const outcomes: Outcome[] = [];
    for (let i = 0; i + 1 < chunks.length; i += 2)
      outcomes.push({ output: chunks[i]!, exitCode: Number(chunks[i + 1]) });
    return { rules: outcomes.slice(0, rules.length), listing: outcomes[rules.length]?.output ?? '' };
  } finally {
    namespaces.cleanup();
  }
}

function onPacketlab(rules: readonly NftCorpusRule[]): Side {
  const ns = new Simulation({ seed: 'nft-corpus' }).addNamespace('corpus');
  for (const line of SETUP) exec(ns, line);
  const outcomes = rules.map((rule) => {
    const result = exec(ns, commandLine(rule));
    return { exitCode: result.exitCode, output: `${result.stdout}${result.stderr}` };
  });
  return { rules: outcomes, listing: exec(ns, 'nft list ruleset').stdout };
}

/** The rule lines of each chain of a listing, by `family/chain`. */
function chainRules(listing: string): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  let family = '';
  let current: string[] | undefined;
  for (const line of listing.split('\n')) {
    const table = /^table (\w+) t \{$/.exec(line);
    if (table !== null) family = table[1]!;
    const chain = /^\tchain (\w+) \{$/.exec(line);
    if (chain !== null) {
      current = [];
      chains.set(`${family}/${chain[1]}`, current);
      continue;
    }
    if (line === '\t}') current = undefined;
    else if (current !== undefined && line.startsWith('\t\t') && !line.startsWith('\t\ttype '))
      current.push(line.slice(2));
  }
  return chains;
}

/** Each accepted rule's listed line, in corpus order (undefined for refused ones). */
function listedLines(rules: readonly NftCorpusRule[], side: Side): (string | undefined)[] {
  const chains = chainRules(side.listing);
  const next = new Map<string, number>();
  return rules.map((rule, i) => {
    if (side.rules[i]!.exitCode !== 0) return undefined;
    const key = `${rule.family}/${rule.chain}`;
    const at = next.get(key) ?? 0;
    next.set(key, at + 1);
    return chains.get(key)?.[at] ?? '(missing)';
  });
}

const indent = (text: string): string => text.trimEnd().replaceAll('\n', '\n      ');

describe('differential: the nft rule corpus', () => {
  it('accepts and refuses what nft 1.0.6 does, with its messages, and lists the same rules', (ctx) => {
    if (!requireNetns(ctx) || !requireTool('nft', ctx)) return;
    const corpus = nftCorpus();
    const kernel = onKernel(corpus);
    const packetlab = onPacketlab(corpus);
    expect(kernel.rules).toHaveLength(corpus.length);
    const linuxListed = listedLines(corpus, kernel);
    const ourListed = listedLines(corpus, packetlab);
    const differing: string[] = [];
    let claimed = 0;
    let claimedAgree = 0;
    corpus.forEach((rule, i) => {
      const linux = kernel.rules[i]!;
      const ours = packetlab.rules[i]!;
      const isClaimed = !ours.output.includes('packetlab');
      if (isClaimed) claimed++;
      const same =
        linux.exitCode === ours.exitCode && linux.output === ours.output && linuxListed[i] === ourListed[i];
      if (same) {
        if (isClaimed) claimedAgree++;
        return;
      }
      if (!isClaimed) return;
      const listed =
        linuxListed[i] === ourListed[i]
          ? ''
          : `\n    listed: linux ${linuxListed[i]}\n            ours  ${ourListed[i]}`;
      differing.push(
        `${commandLine(rule)}\n    linux (${linux.exitCode}): ${indent(linux.output)}\n    packetlab (${ours.exitCode}): ${indent(ours.output)}${listed}`,
      );
    });
    const accepted = kernel.rules.filter((outcome) => outcome.exitCode === 0).length;
    const agree = corpus.filter(
      (_, i) =>
        kernel.rules[i]!.exitCode === packetlab.rules[i]!.exitCode &&
        kernel.rules[i]!.output === packetlab.rules[i]!.output &&
        linuxListed[i] === ourListed[i],
    ).length;
    const rate = claimedAgree / claimed;
    console.log(
      `nft corpus: ${corpus.length} lines (${accepted} accepted by nft 1.0.6), ${agree} agree (${((agree / corpus.length) * 100).toFixed(1)}%); ` +
        `packetlab claims ${claimed}, ${claimedAgree} of them agree (${(rate * 100).toFixed(1)}%)`,
    );
    if (differing.length > 0) console.log(differing.join('\n'));
    // Measured 2026-12-01: 2600 lines, 2486 claimed, 2478 of those agree (99.7%; 95.3% of all lines; 57.8% of the
    // claimed lines before this session's work). What is left is listed in docs/deviations.md (nft): `ct original
    // saddr` with a prefix and no `ip`, counters beyond 2^53.
    expect(rate).toBeGreaterThanOrEqual(0.995);
  });
});
