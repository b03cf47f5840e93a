// Bad input gets nft's own error records (file, line, column range, the source line and the caret line), as
// `nft -c -f` printed them on the real machine (fixtures/errors.json), and a file with any error changes nothing.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { printRuleset, runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

const here = dirname(fileURLToPath(import.meta.url));
const baseline = readFileSync(join(here, 'fixtures', 'baseline.nft'), 'utf8');
const cases: { input: string; exitCode: number; stderr: string }[] = JSON.parse(
  readFileSync(join(here, 'fixtures', 'errors.json'), 'utf8'),
);

function loaded(): { store: RulesetStore } {
  const netfilter = { store: new RulesetStore() };
  expect(runNft(netfilter, baseline, { file: 'baseline.nft' }).exitCode).toBe(0);
  return netfilter;
}

describe('nft -c -f with bad input', () => {
  it.each(cases.map((c) => [c.input.split('\n')[0]!, c] as const))('%s', (_name, c) => {
    const netfilter = loaded();
    const result = runNft(netfilter, c.input, { file: 'case.nft', check: true });
    expect(result.stderr).toBe(c.stderr);
    expect(result.exitCode).toBe(c.exitCode);
  });
});

describe('atomic loading', () => {
  it.each(cases.filter((c) => c.exitCode !== 0).map((c) => [c.input.split('\n')[0]!, c] as const))(
    'nft -f %s changes nothing',
    (_name, c) => {
      const netfilter = loaded();
      const before = netfilter.store.ruleset;
      const text = printRuleset(before, { handles: true });
      const result = runNft(netfilter, c.input, { file: 'case.nft' });
      expect(result.exitCode).toBe(1);
      expect(netfilter.store.ruleset).toBe(before);
      expect(printRuleset(netfilter.store.ruleset, { handles: true })).toBe(text);
    },
  );

  it('a later error undoes the earlier commands of the same file (real nft printed this)', () => {
    const netfilter = loaded();
    const before = printRuleset(netfilter.store.ruleset);
    const result = runNft(
      netfilter,
      'add table ip fresh\nadd chain ip fresh c\nadd rule ip filter input accept\nadd rule ip filter input jump nowhere\n',
      { file: 'late.nft' },
    );
    expect(result.stderr).toBe(
      'late.nft:4:31-37: Error: Could not process rule: No such file or directory\n' +
        'add rule ip filter input jump nowhere\n' +
        '                              ^^^^^^^\n',
    );
    expect(printRuleset(netfilter.store.ruleset)).toBe(before);
  });

  it('nft -c checks without changing anything', () => {
    const netfilter = loaded();
    const before = netfilter.store.ruleset;
    expect(
      runNft(netfilter, 'flush ruleset\nadd table ip x\n', { file: 'ok.nft', check: true }).exitCode,
    ).toBe(0);
    expect(netfilter.store.ruleset).toBe(before);
  });

  it('command-line input has no file prefix and errors point past its end', () => {
    const netfilter = loaded();
    expect(runNft(netfilter, 'add rule ip filter input tcp dport').stderr).toBe(
      'Error: syntax error, unexpected newline\nadd rule ip filter input tcp dport\n                                  ^\n',
    );
    expect(runNft(netfilter, 'add rule ip filtr input accept').stderr).toBe(
      'Error: No such file or directory; did you mean table ‘filter’ in family ip?\n' +
        'add rule ip filtr input accept\n            ^^^^^\n',
    );
  });
});
