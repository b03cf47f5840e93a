// nsenter's command-line errors compared with util-linux's nsenter on this machine (2.38.1, as in kindest/node's
// Debian 12): argument vectors that fail before entering anything, and one that enters the test's own network
// namespace (a no-op) to reach the missing-program error. No namespace is created or changed.

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clusterExec } from '../../../src/k8s/commands/cluster-exec.ts';
import { run } from '../../support/netns.ts';
import { requireTool } from '../../support/tools.ts';
import { buildFixture } from './fixture.ts';

/** A PID that no process has on the machine now. */
function unusedPid(): number {
  for (let pid = 4_194_000; ; pid++) if (!existsSync(`/proc/${pid}`)) return pid;
}

describe('nsenter against util-linux 2.38.1', () => {
  const cases: readonly (readonly string[])[] = [
    ['-t', 'PID', '-n', 'ip', 'addr'],
    ['--target=PID', '--net', 'ip', 'addr'],
    ['--target', 'PID', '-n', '--', 'ip', 'addr'],
    ['-n', 'ip', 'addr'],
    ['-t', '0', '-n', 'ip'],
    ['-t', 'abc', '-n', 'ip'],
    ['-t', '12abc', '-n', 'ip'],
    ['--bogus'],
    ['-x'],
    ['-t'],
    ['--target'],
  ];
  it.each(cases)('nsenter %s', (...args) => {
    if (!requireTool('nsenter')) return;
    const pid = String(unusedPid());
    const argv = args.map((word) => word.replace('PID', pid));
    const real = run('nsenter', argv);
    const ours = clusterExec(buildFixture().ctx, `docker exec formation-worker nsenter ${argv.join(' ')}`);
    expect(ours).toEqual(real);
  });

  it('a missing program after entering: exit 127', (context) => {
    if (!requireTool('nsenter', context)) return;
    if (process.getuid?.() !== 0) return context.skip('nsenter -n needs root');
    const real = run('nsenter', ['-t', String(process.pid), '-n', 'nosuchcmd-packetlab']);
    const ours = clusterExec(
      buildFixture().ctx,
      'docker exec formation-worker nsenter -t 2388 -n nosuchcmd-packetlab',
    );
    expect(ours).toEqual(real);
  });
});
