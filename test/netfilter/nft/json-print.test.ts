// `nft -j list ruleset` as libnftables 1.0.6 prints it: fixtures/json.nft loaded, its JSON listing byte for byte
// (fixtures/json.list, captured from the real nft), checked again against the nft installed here when it can run;
// forms packetlab cannot print in JSON are refused, never printed wrong.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';
import { RealNamespaces, requireNetns } from '../../support/netns.ts';
import { requireTool } from '../../support/tools.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, 'fixtures');
const fixture = (name: string): string => readFileSync(join(fixtures, name), 'utf8');

function loaded() {
  const sim = new Simulation({ seed: 'nft-json' });
  sim.files.set('json.nft', new TextEncoder().encode(fixture('json.nft')));
  const ns = sim.addNamespace('n');
  expect(exec(ns, 'nft -f json.nft').stderr).toBe('');
  return ns;
}

describe('nft -j list ruleset', () => {
  const real = new RealNamespaces();
  let ready = false;
  beforeAll(() => {
    if (!requireNetns() || !requireTool('nft')) return;
    real.add('j');
    ready = true;
  });
  afterAll(() => real.cleanup());

  it('prints the JSON libnftables prints', () => {
    const ns = loaded();
    expect(exec(ns, 'nft -j list ruleset')).toEqual({
      stdout: fixture('json.list'),
      stderr: '',
      exitCode: 0,
    });
    const inet = JSON.parse(exec(ns, 'nft --json list ruleset inet').stdout);
    expect(inet.nftables.map((item: object) => Object.keys(item)[0])).toEqual([
      'metainfo',
      'table',
      'chain',
      'table',
      'chain',
      'rule',
      'rule',
    ]);
  });

  it("prints kube-proxy's nftables ruleset as the real nft does (fib, numgen, ct original, masquerade, binops)", () => {
    const sim = new Simulation({ seed: 'nft-json-kp' });
    sim.files.set('kp.nft', new TextEncoder().encode(fixture('kube-proxy.nft')));
    const ns = sim.addNamespace('n');
    expect(exec(ns, 'nft -f kp.nft').exitCode).toBe(0);
    expect(exec(ns, 'nft -j list ruleset').stdout).toBe(fixture('kube-proxy.json.list'));
  });

  it('matches the nft installed here', () => {
    if (!ready) return;
    expect(real.exec('j', 'nft', ['flush', 'ruleset']).exitCode).toBe(0);
    expect(real.exec('j', 'nft', ['-f', join(fixtures, 'json.nft')]).stderr).toBe('');
    expect(real.exec('j', 'nft', ['-j', 'list', 'ruleset']).stdout).toBe(fixture('json.list'));
  });

  it('refuses what it cannot print, and JSON input', () => {
    const ns = loaded();
    exec(ns, 'nft add rule ip t in log prefix "x"');
    expect(exec(ns, 'nft -j list ruleset')).toEqual({
      stdout: '',
      stderr: 'packetlab: nft -j list ruleset with log statements is not supported\n',
      exitCode: 1,
    });
    expect(exec(ns, 'nft -j -f rules.json').exitCode).toBe(1);
    expect(exec(ns, 'nft -j list tables').stderr).toBe('packetlab: nft -j list tables is not supported\n');
  });
});
