// The programs a kind node runs: the façade's tools (src/tools/exec.ts) in the node's namespace, plus `crictl`
// (which needs the node's container runtime) and `nsenter -t PID -n` (which moves into a container's namespace).

import { isCommand, runArgv, spawn } from '../../tools/exec.ts';
import type { CommandResult } from '../../tools/result.ts';
import type { Capture } from '../../tools/tcpdump.ts';
import type { ClusterCommandContext, NodeProcess } from './context.ts';
import { crictl } from './crictl.ts';
import { shellQuote } from './flags.ts';
import { noSuchPid, notExecutable, parseNsenter } from './nsenter.ts';

/** A program ran, or there is no such program on the node (each caller words that its own way). */
export type NodeRun =
  | { readonly kind: 'ran'; readonly result: CommandResult }
  | { readonly kind: 'not-found' };

/** The programs only a node has, beside the façade's. */
const NODE_PROGRAMS = ['crictl', 'nsenter'];

export function isNodeProgram(name: string): boolean {
  return NODE_PROGRAMS.includes(name) || isCommand(name);
}

/** Runs one argument vector on a node. */
export function runOnNode(ctx: ClusterCommandContext, proc: NodeProcess, argv: readonly string[]): NodeRun {
  const [name, ...args] = argv;
  if (name === undefined) return { kind: 'ran', result: { stdout: '', stderr: '', exitCode: 0 } };
  if (!isNodeProgram(name)) return { kind: 'not-found' };
  switch (name) {
    case 'crictl':
      return { kind: 'ran', result: crictl(ctx, proc, args) };
    case 'nsenter': {
      const entered = enter(ctx, proc, args);
      if (!entered.ok) return { kind: 'ran', result: entered.result };
      const run = runOnNode(ctx, entered.proc, entered.command);
      return run.kind === 'ran' ? run : { kind: 'ran', result: notExecutable(entered.command[0]!) };
    }
    default:
      return { kind: 'ran', result: runArgv(proc.ns, argv, proc.stdin) };
  }
}

/** Starts a long-running program on a node (tcpdump, conntrack -E, also through nsenter), as `spawn` does. */
export function spawnOnNode(
  ctx: ClusterCommandContext,
  proc: NodeProcess,
  argv: readonly string[],
): Capture | CommandResult | 'not-found' {
  const [name, ...args] = argv;
  if (name === undefined || !isNodeProgram(name)) return 'not-found';
  if (name === 'nsenter') {
    const entered = enter(ctx, proc, args);
    if (!entered.ok) return entered.result;
    const started = spawnOnNode(ctx, entered.proc, entered.command);
    return started === 'not-found' ? notExecutable(entered.command[0]!) : started;
  }
  return spawn(proc.ns, shellQuote(argv));
}

type Entered =
  | { readonly ok: true; readonly proc: NodeProcess; readonly command: readonly string[] }
  | { readonly ok: false; readonly result: CommandResult };

/** nsenter's setns: the network namespace of PID on this node, same node, same standard input. */
function enter(ctx: ClusterCommandContext, proc: NodeProcess, args: readonly string[]): Entered {
  const plan = parseNsenter(args);
  if (!plan.ok) return plan;
  const ns = ctx.runtime.namespaceOfPid(proc.nodeName, plan.pid);
  if (ns === undefined) return { ok: false, result: noSuchPid(plan.pid) };
  return { ok: true, proc: { ...proc, ns }, command: plan.command };
}
