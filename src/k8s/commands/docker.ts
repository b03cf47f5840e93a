// The docker CLI (v28) as a kind user drives it: `docker exec [-i] [-t] NODE CMD...` runs CMD in a node container.
// No other docker command, no -d, -e, -u, -w, --privileged; the node containers are the cluster's nodes.

import { type CommandResult, fail, unsupported } from '../../tools/result.ts';
import type { Capture } from '../../tools/tcpdump.ts';
import type { ClusterCommandContext, NodeProcess } from './context.ts';
import { type FlagSpec, parseFlags } from './flags.ts';
import { runOnNode, spawnOnNode } from './node-programs.ts';

const EXEC_USAGE = 'docker exec [OPTIONS] CONTAINER COMMAND [ARG...]';

/** cli/command/container/exec.go NewExecCommand's flags. */
const EXEC_FLAGS: readonly FlagSpec[] = [
  { long: 'interactive', short: 'i', takesValue: false },
  { long: 'tty', short: 't', takesValue: false },
  { long: 'detach', short: 'd', takesValue: false },
  { long: 'detach-keys', takesValue: true },
  { long: 'env', short: 'e', takesValue: true },
  { long: 'env-file', takesValue: true },
  { long: 'user', short: 'u', takesValue: true },
  { long: 'workdir', short: 'w', takesValue: true },
  { long: 'privileged', takesValue: false },
];

type Prepared =
  | { readonly ok: true; readonly proc: NodeProcess; readonly command: readonly string[] }
  | { readonly ok: false; readonly result: CommandResult };

/** Parses `docker ARGS` down to the node process and its command (flags stop at the container, SetInterspersed(false)). */
function prepare(ctx: ClusterCommandContext, args: readonly string[], stdin: string): Prepared {
  const [sub, ...rest] = args;
  if (sub !== 'exec') return { ok: false, result: unsupported('docker', sub ?? 'without a command') };
  const parsed = parseFlags(rest, EXEC_FLAGS, { interspersed: false });
  if (!parsed.ok) {
    // cobra's flag error: the message, the usage line, a hint; the CLI exits 125 on a usage error.
    return {
      ok: false,
      result: fail(
        `${parsed.message}\n\nUsage:  ${EXEC_USAGE}\n\nRun 'docker exec --help' for more information\n`,
        125,
      ),
    };
  }
  const { flags } = parsed;
  const positional = [...flags.args, ...(flags.afterDash ?? [])];
  if (positional.length < 2) {
    // cli/required.go RequiresMinArgs.
    return {
      ok: false,
      result: fail(
        `docker: 'docker exec' requires at least 2 arguments\n\nUsage:  ${EXEC_USAGE}\n\nSee 'docker exec --help' for more information\n`,
      ),
    };
  }
  for (const long of ['detach', 'detach-keys', 'env', 'env-file', 'user', 'workdir', 'privileged']) {
    if (flags.values.has(long) || flags.bools.has(long))
      return { ok: false, result: unsupported('docker exec', `--${long}`) };
  }
  const [container, ...command] = positional as [string, ...string[]];
  const ns = ctx.runtime.nodeNamespace(container);
  if (ns === undefined)
    return { ok: false, result: fail(`Error response from daemon: No such container: ${container}\n`) };
  const proc: NodeProcess = {
    nodeName: container,
    ns,
    stdin: flags.bools.has('interactive') ? stdin : '',
    tty: flags.bools.has('tty'),
  };
  return { ok: true, proc, command };
}

/** runc's exec failure for a missing program, as the daemon reports it (exit 127). */
function notFound(program: string): CommandResult {
  return fail(
    `OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in $PATH: unknown\n`,
    127,
  );
}

export function docker(ctx: ClusterCommandContext, args: readonly string[], stdin: string): CommandResult {
  const prepared = prepare(ctx, args, stdin);
  if (!prepared.ok) return prepared.result;
  const run = runOnNode(ctx, prepared.proc, prepared.command);
  return run.kind === 'ran' ? run.result : notFound(prepared.command[0]!);
}

/** `docker exec NODE tcpdump ...` left running: the same handle as the façade's spawn. */
export function spawnDocker(ctx: ClusterCommandContext, args: readonly string[]): Capture | CommandResult {
  const prepared = prepare(ctx, args, '');
  if (!prepared.ok) return prepared.result;
  const started = spawnOnNode(ctx, prepared.proc, prepared.command);
  return started === 'not-found' ? notFound(prepared.command[0]!) : started;
}
