// Whether this machine can run a kernel plan, and if not the one line that says why: Linux, root, network
// namespaces, every program the plan starts on PATH, the peers the traffic steps run (next to the driver in a checkout,
// in dist/ once built) and, for HTTP steps, the Go reference server's source (a checkout only). Not a sandbox check.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { kernelPrograms } from '../../harness/programs.ts';
import type { Scenario, TrafficStep } from '../../harness/scenario.ts';
import { GO_SERVER, PORTS_PEER, TCP_PEER, UDP_PEER } from './linux-driver.ts';

/** What the check reads of the machine (the real one by default; tests pass their own). */
export interface Machine {
  readonly platform: string;
  /** The effective user id, undefined where there is none (Windows). */
  readonly uid: number | undefined;
  /** PATH's directories, as in the environment. */
  readonly path: string;
  /** Whether a network namespace can be created and deleted: undefined when it can, the error otherwise. */
  canCreateNamespace(): string | undefined;
}

export function thisMachine(): Machine {
  return {
    platform: process.platform,
    uid: process.geteuid?.(),
    path: process.env['PATH'] ?? '',
    canCreateNamespace,
  };
}

/** `ip netns add` and `del` of a namespace in the harness's family (plh<pid>x...), so a crash leaves it swept. */
function canCreateNamespace(): string | undefined {
  const name = `plh${process.pid.toString(36)}xprobe`;
  const added = spawnSync('ip', ['netns', 'add', name], { encoding: 'utf8' });
  if (added.status !== 0) return (added.stderr || String(added.error ?? 'failed')).trim().split('\n')[0];
  spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  return undefined;
}

function onPath(program: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The files a step kind runs on the kernel side, beyond programs on PATH. */
const STEP_FILES: Partial<Record<TrafficStep['kind'], readonly string[]>> = {
  udp: [UDP_PEER],
  tcp: [TCP_PEER],
  ports: [PORTS_PEER],
  http: [GO_SERVER],
};

/** Why `scenario` cannot run on this machine's kernel, in one line, or undefined when it can. */
export function kernelBlocker(scenario: Scenario, machine: Machine = thisMachine()): string | undefined {
  if (machine.platform !== 'linux')
    return `packetlab verify needs Linux (network namespaces), not ${machine.platform}`;
  if (machine.uid !== 0) return 'packetlab verify needs root to create network namespaces (try sudo)';
  for (const program of kernelPrograms(scenario))
    if (!onPath(program, machine.path)) return `packetlab verify needs ${program} on PATH`;
  for (const step of scenario.traffic)
    for (const file of STEP_FILES[step.kind] ?? [])
      if (!existsSync(file))
        return step.kind === 'http'
          ? `packetlab verify: an http step needs ${file} (the Go reference server, in a packetlab checkout only)`
          : `packetlab verify needs ${file} (the kernel side's ${step.kind} peer; npm run build copies it into dist/)`;
  const refused = machine.canCreateNamespace();
  if (refused !== undefined) return `packetlab verify cannot create a network namespace: ${refused}`;
  return undefined;
}
