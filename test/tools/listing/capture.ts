// Captures the listing fixture from the real kernel and iproute2: run as root with `npx tsx test/tools/listing/capture.ts`.
// It creates three throw-away namespaces (plabfmt-a/b/c) with IPv6 disabled (packetlab has no IPv6), runs STEPS in
// them, writes session.json next to this file, and deletes the namespaces whatever happens.

import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NAMESPACES, STEPS } from './steps.ts';

interface Recorded {
  readonly ns?: string;
  readonly cmd?: string;
  readonly compare?: string;
  readonly sleepSeconds?: number;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly exitCode?: number;
}

function sh(args: string[]): string {
  return execFileSync(args[0]!, args.slice(1), { encoding: 'utf8' }).trim();
}

const names = Object.values(NAMESPACES);
const recorded: Recorded[] = [];
try {
  for (const name of names) {
    sh(['ip', 'netns', 'add', name]);
    sh([
      'ip',
      'netns',
      'exec',
      name,
      'sysctl',
      '-qw',
      'net.ipv6.conf.all.disable_ipv6=1',
      'net.ipv6.conf.default.disable_ipv6=1',
    ]);
  }
  for (const step of STEPS) {
    if ('sleepSeconds' in step) {
      spawnSync('sleep', [String(step.sleepSeconds)]);
      recorded.push({ sleepSeconds: step.sleepSeconds });
      continue;
    }
    const words = step.cmd.split(' ');
    const result = spawnSync('ip', ['netns', 'exec', NAMESPACES[step.ns], ...words], {
      encoding: 'utf8',
    });
    recorded.push({
      ns: step.ns,
      cmd: step.cmd,
      ...(step.compare !== undefined ? { compare: step.compare } : {}),
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode: result.status ?? -1,
    });
  }
  const fixture = {
    captured: `${sh(['ip', '-V'])}; ${sh(['bridge', '-V'])}; Linux ${sh(['uname', '-r'])}; ${sh(['nproc'])} CPUs`,
    steps: recorded,
  };
  writeFileSync(join(import.meta.dirname, 'session.json'), `${JSON.stringify(fixture, null, 1)}\n`);
} finally {
  for (const name of names) spawnSync('ip', ['netns', 'del', name]);
}
