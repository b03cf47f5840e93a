// conntrack and the nf_conntrack sysctls compared live with conntrack-tools and procps in a fresh network namespace (the recorded copies are in conntrack-fixtures.ts, checked by conntrack.test.ts).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Namespace } from '../../src/netns/namespace.ts';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';
import { COMMAND_LINES, SYSCTL_CASES } from './conntrack-fixtures.ts';

/** The machine's conntrack must be the version packetlab reproduces. */
function realVersion(real: RealNamespaces): string {
  return real.exec('c', 'conntrack', ['--version']).stdout;
}

describe('conntrack against conntrack-tools in a real namespace (empty table)', () => {
  const real = new RealNamespaces();
  let ns: Namespace | undefined;

  beforeAll(() => {
    if (!requireNetns() || !requireTool('conntrack') || !requireTool('sysctl')) return;
    real.add('c');
    if (realVersion(real) !== 'conntrack v1.4.7 (conntrack-tools)\n') {
      console.warn('notice: conntrack is not 1.4.7 here: skipping the live comparison');
      return;
    }
    // Loads nf_conntrack (and its sysctls) if nothing had yet.
    real.exec('c', 'conntrack', ['-C']);
    ns = new Simulation({ seed: 'conntrack-real' }).addNamespace('c');
  });

  afterAll(() => real.cleanup());

  it.each(COMMAND_LINES.map((run) => run.cmd))('%s', (cmd) => {
    if (ns === undefined) return;
    const ours = exec(ns, cmd);
    const theirs = real.exec('c', 'bash', ['-c', cmd]);
    expect({ stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode }).toEqual(theirs);
  });

  it('sysctl net.netfilter.nf_conntrack_*, in order', () => {
    if (ns === undefined) return;
    for (const { cmd } of SYSCTL_CASES) {
      const ours = exec(ns, cmd);
      const theirs = real.exec('c', 'bash', ['-c', cmd]);
      expect({ cmd, stdout: ours.stdout, stderr: ours.stderr, exitCode: ours.exitCode }).toEqual({
        cmd,
        ...theirs,
      });
    }
  });
});
