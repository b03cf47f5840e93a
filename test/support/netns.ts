// Real network namespaces for comparing packetlab with the kernel: created with a unique prefix, never linked to
// the machine's own interfaces, always deleted. Skips locally without root; CI (root, Linux) must run them.

import { execFileSync, spawnSync } from 'node:child_process';

let checked: boolean | undefined;

/** True when this process may create network namespaces (root on Linux with iproute2). */
export function canUseNetns(): boolean {
  if (checked !== undefined) return checked;
  try {
    const name = `plabprobe-${process.pid}`;
    execFileSync('ip', ['netns', 'add', name], { stdio: 'ignore' });
    execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
    checked = true;
  } catch {
    checked = false;
  }
  return checked;
}

/** Like requireTool: false with a notice locally, an error in CI. */
export function requireNetns(test?: { skip(note?: string): void }): boolean {
  if (canUseNetns()) return true;
  if (process.env.CI)
    throw new Error('network namespaces are not available, but CI must run the kernel comparisons');
  console.warn('notice: cannot create network namespaces (not root?): skipping the kernel comparisons');
  test?.skip('no network namespaces');
  return false;
}

/** Runs a command and returns stdout, stderr and the exit code without throwing. */
export function run(command: string, args: string[]): { stdout: string; stderr: string; exitCode: number } {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { stdout: result.stdout ?? '', stderr: result.stderr ?? '', exitCode: result.status ?? 1 };
}

/** A set of namespaces named PREFIX-NAME, deleted by `cleanup()` (call it in a finally or afterEach). */
export class RealNamespaces {
  readonly prefix = `plab${process.pid.toString(36)}${Math.floor(performance.now()).toString(36)}`;
  private readonly created: string[] = [];

  name(short: string): string {
    return `${this.prefix}-${short}`;
  }

  add(short: string): string {
    const name = this.name(short);
    execFileSync('ip', ['netns', 'add', name]);
    this.created.push(name);
    execFileSync('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
    return name;
  }

  /** `ip -n NS ARGS...` (throws on failure: set-up must not half-apply). */
  ip(short: string, ...args: string[]): void {
    execFileSync('ip', ['-n', this.name(short), ...args]);
  }

  /** Runs a command inside a namespace. */
  exec(short: string, command: string, args: string[]): { stdout: string; stderr: string; exitCode: number } {
    return run('ip', ['netns', 'exec', this.name(short), command, ...args]);
  }

  cleanup(): void {
    for (const name of this.created.splice(0)) run('ip', ['netns', 'del', name]);
  }
}
