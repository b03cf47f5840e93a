// The fixtures against the nft installed on this machine, in a throw-away network namespace: if the real tool
// (CI installs Debian's nftables) prints something else than the captured fixtures, these fail first.

import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';
import { RealNamespaces, requireNetns } from '../../support/netns.ts';
import { requireTool } from '../../support/tools.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixtureDir = join(here, 'fixtures');
const fixture = (name: string): string => readFileSync(join(fixtureDir, name), 'utf8');

describe('packetlab nft against the real nft', () => {
  const real = new RealNamespaces();
  let ready = false;

  beforeAll(() => {
    if (!requireNetns() || !requireTool('nft')) return;
    real.add('n');
    ready = true;
  });

  afterAll(() => real.cleanup());

  it.each([
    'kube-proxy',
    'sets',
    'workaround',
    'trace-setup',
    'set-options',
    'kube-proxy-overall',
    'intervals',
  ])('%s.nft lists the same', (name) => {
    if (!ready) return;
    expect(real.exec('n', 'nft', ['flush', 'ruleset']).exitCode).toBe(0);
    const loaded = real.exec('n', 'nft', ['-f', join(fixtureDir, `${name}.nft`)]);
    expect(loaded.stderr).toBe('');
    const theirs = real.exec('n', 'nft', ['list', 'ruleset']).stdout;
    const netfilter = { store: new RulesetStore() };
    runNft(netfilter, fixture(`${name}.nft`), { file: `${name}.nft` });
    expect(runNft(netfilter, 'list ruleset').stdout).toBe(theirs);
  });

  it('errors read the same', () => {
    if (!ready) return;
    const cases: { input: string }[] = JSON.parse(fixture('errors.json'));
    real.exec('n', 'nft', ['flush', 'ruleset']);
    expect(real.exec('n', 'nft', ['-f', join(fixtureDir, 'baseline.nft')]).exitCode).toBe(0);
    const file = join(tmpdir(), `plab-nft-${process.pid}.nft`);
    for (const c of cases.filter((_, i) => i % 4 === 0)) {
      writeFileSync(file, c.input);
      const theirs = real.exec('n', 'nft', ['-c', '-f', file]);
      const netfilter = { store: new RulesetStore() };
      runNft(netfilter, fixture('baseline.nft'), { file: 'baseline.nft' });
      const ours = runNft(netfilter, c.input, { file, check: true });
      expect(ours.stderr).toBe(theirs.stderr);
      expect(ours.exitCode).toBe(theirs.exitCode);
    }
    unlinkSync(file);
  });
});
