// Smoke test of bench/suites/scale.ts: a 3-node, 10-Service cluster builds through the k8s layer, its ruleset dumps
// and the traced ClusterIP request crosses nodes to a backend (the suite throws otherwise); figures well formed.

import { describe, expect, it } from 'vitest';
import suite from '../../bench/suites/scale.ts';
import { runSuite } from '../../src/cli/bench/suite.ts';
import { expectWellFormed } from '../support/bench.ts';

describe('bench suite scale', () => {
  it.each(['iptables', 'nftables'])(
    'builds a tiny cluster in %s mode and traces a request in it',
    async (mode) => {
      const lines: string[] = [];
      const result = await runSuite(suite, {
        quick: true,
        args: { mode },
        progress: (line) => lines.push(line),
      });
      expectWellFormed(result);
      const metric = (name: string) => result.metrics.find((m) => m.name === name)?.value;
      expect(metric('nodes')).toBe(3);
      expect(metric('services')).toBe(10);
      expect(metric('pods')).toBe(31);
      expect(metric('traced request: namespaces reached')).toBeGreaterThanOrEqual(3);
      expect(
        metric(
          mode === 'iptables' ? 'iptables-save lines on a worker' : 'nft list ruleset lines on a worker',
        ),
      ).toBeGreaterThan(10);
      expect(result.goals.map((goal) => goal.name)).toEqual([
        'resident memory <= 8 GiB',
        'build <= 10 minutes',
      ]);
      expect(lines.some((line) => line.includes('kube-proxy sync'))).toBe(true);
    },
  );
});
