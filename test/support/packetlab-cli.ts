// The packetlab command for tests: started as a process (the unit project's bundle of it, cli-bundle.ts, or
// bin/packetlab.mjs where no bundle was built, a file run in another project), or main() in this process with its
// output captured (for errors found before anything runs: no second start).

import { spawnSync } from 'node:child_process';
import { inject, vi } from 'vitest';
import { type CommandScenario, main } from '../../src/cli/main.ts';

/** What one run of the command printed and its exit status. */
export interface CommandRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly status: number | null;
}

/** The script `node` runs as the packetlab command. */
export function packetlabScript(): string {
  return inject('packetlabCli') ?? 'bin/packetlab.mjs';
}

/** `packetlab ARGS...` as a process, without colour; `env` adds to the test's environment. */
export function runPacketlab(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): CommandRun {
  const run = spawnSync(process.execPath, [packetlabScript(), ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

/** main(args) over `scenarios` in this process, stdout and stderr captured. */
export async function mainInProcess(
  args: readonly string[],
  scenarios: readonly CommandScenario[],
): Promise<CommandRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => stdout.push(String(chunk)) > 0);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => stderr.push(String(chunk)) > 0);
  try {
    const status = await main(args, scenarios);
    return { stdout: stdout.join(''), stderr: stderr.join(''), status };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}
