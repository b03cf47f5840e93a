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
    'set-declarations',
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

  it("replace rule keeps the replaced rule's handle, and a new rule after it takes the next one", () => {
    if (!ready) return;
    const steps = [
      'add table inet agent',
      'add chain inet agent pre { type filter hook prerouting priority -150; }',
      'add rule inet agent pre meta mark set 0x00010000',
      'add rule inet agent pre counter',
      'replace rule inet agent pre handle 2 meta mark set meta mark and 0xfffeffff or 0x00010000',
      'add rule inet agent pre accept',
    ];
    expect(real.exec('n', 'nft', ['flush', 'ruleset']).exitCode).toBe(0);
    const netfilter = { store: new RulesetStore() };
    for (const step of steps) {
      expect(real.exec('n', 'nft', step.split(' ')).stderr).toBe('');
      expect(runNft(netfilter, step).stderr).toBe('');
    }
    // The table's own handle counts every table this namespace ever had; the rules' handles are the point.
    const tableHandle = /^(table inet agent \{ # handle )\d+$/m;
    const theirs = real.exec('n', 'nft', ['-a', 'list', 'ruleset']).stdout.replace(tableHandle, '$1N');
    expect(theirs).toContain('meta mark set meta mark | 0x00010000 # handle 2');
    expect(runNft(netfilter, 'list ruleset', { handles: true }).stdout.replace(tableHandle, '$1N')).toBe(
      theirs,
    );
  });
});
