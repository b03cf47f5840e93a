// The `packetlab` command as a user runs it: bin/packetlab.mjs with the scenario table, help, usage errors, exit codes.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function packetlab(...args: string[]) {
  const run = spawnSync(process.execPath, ['bin/packetlab.mjs', ...args], { encoding: 'utf8' });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

describe('the packetlab command', () => {
  it('lists every scenario of the table in its help', () => {
    const { stdout, status } = packetlab('help');
    expect(status).toBe(0);
    expect(stdout.split('\n').slice(0, 3)).toEqual(['usage: packetlab <command>', '', 'commands:']);
    for (const name of ['tour', 'lesson', 'traffic', 'help'])
      expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('refuses an unknown command with exit 2 and the help on stderr', () => {
    const { stderr, status } = packetlab('nope');
    expect(status).toBe(2);
    expect(stderr.split('\n')[0]).toBe("packetlab: unknown command 'nope'");
  });

  it("prints a scenario's usage for bad arguments, exit 2", () => {
    const { stderr, status } = packetlab('lesson', 'bridge', 'satellite');
    expect(status).toBe(2);
    expect(stderr).toBe('usage: packetlab lesson [bridge|routed] [vxlan|direct]\n');
  });

  it('runs the tour by default', () => {
    const { stdout, status } = packetlab();
    expect(status).toBe(0);
    expect(stdout).toContain('2 packets transmitted, 2 received');
  });
});
