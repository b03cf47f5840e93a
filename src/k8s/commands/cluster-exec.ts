// The cluster-level command entry: what a user types on the machine that runs the kind cluster — `docker exec NODE
// CMD` (CMD on a node, where crictl and nsenter also exist) and `kubectl get|exec|debug` — with the same shell-word
// parsing as the façade's exec, and a long-running form returning spawn's handle. No pipes, no redirections.

import type { CommandResult } from '../../tools/result.ts';
import { fail } from '../../tools/result.ts';
import { shellWords } from '../../tools/shell-words.ts';
import type { Capture } from '../../tools/tcpdump.ts';
import type { ClusterCommandContext } from './context.ts';
import { docker, spawnDocker } from './docker.ts';
import { kubectl, spawnKubectlCommand } from './kubectl/kubectl.ts';

export interface ClusterExecOptions {
  /** Standard input (`docker exec -i`, `kubectl exec -i`). */
  readonly stdin?: string;
}

/** Runs one command line against the cluster and returns what the real tool prints. */
export function clusterExec(
  ctx: ClusterCommandContext,
  line: string,
  options: ClusterExecOptions = {},
): CommandResult {
  const words = shellWords(line);
  if (!words.ok) return fail(`sh: 1: Syntax error: ${words.message}\n`, 2);
  const [name, ...args] = words.words;
  switch (name) {
    case undefined:
      return { stdout: '', stderr: '', exitCode: 0 };
    case 'docker':
      return docker(ctx, args, options.stdin ?? '');
    case 'kubectl':
      return kubectl(ctx, args, options.stdin ?? '');
    default:
      return fail(`sh: 1: ${name}: not found\n`, 127);
  }
}

/**
 * Starts a long-running command (`docker exec formation-worker tcpdump -ni any ...`, also through nsenter or kubectl
 * exec/debug) and returns the façade's spawn handle; a command that fails at start returns its error result.
 */
export function clusterSpawn(ctx: ClusterCommandContext, line: string): Capture | CommandResult {
  const words = shellWords(line);
  if (!words.ok) return fail(`sh: 1: Syntax error: ${words.message}\n`, 2);
  const [name, ...args] = words.words;
  switch (name) {
    case 'docker':
      return spawnDocker(ctx, args);
    case 'kubectl':
      return spawnKubectlCommand(ctx, args);
    default:
      return fail(`packetlab: ${name ?? ''} cannot run in the background\n`, 2);
  }
}
