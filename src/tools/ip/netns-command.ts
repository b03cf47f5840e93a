// `ip netns` (iproute2 6.1's ip/ipnetns.c): `exec NAME CMD...` runs a command of the façade in another namespace of
// the simulation, `list` (and `ip netns` alone) names them; not add/delete/attach/set/identify/pids/monitor, and
// `list` does not print the `(id: N)` of namespaces that have an id in the current one.

import type { Namespace } from '../../netns/namespace.ts';
import { isCommand } from '../exec.ts';
import { type CommandResult, fail, unsupported } from '../result.ts';
import { matches } from './ip.ts';

/** ipnetns.c's usage(), on stderr. */
const USAGE = `Usage:\tip netns list
\tip netns add NAME
\tip netns attach NAME PID
\tip netns set NAME NETNSID
\tip [-all] netns delete [NAME]
\tip netns identify [PID]
\tip netns pids NAME
\tip [-all] netns exec [NAME] cmd ...
\tip netns monitor
\tip netns list-id [target-nsid POSITIVE-INT] [nsid POSITIVE-INT]
NETNSID := auto | POSITIVE-INT
`;

/** Runs an argument vector as exec() would (the façade's command table), in a namespace. */
export type RunArgv = (ns: Namespace, argv: readonly string[], stdin: string) => CommandResult;

/** netns_list: /run/netns read in directory order, which on tmpfs is the newest first. */
function netnsList(ns: Namespace): CommandResult {
  const names = ns.sim
    .allNamespaces()
    .map((other) => other.name)
    .reverse();
  return { stdout: names.map((name) => `${name}\n`).join(''), stderr: '', exitCode: 0 };
}

/** netns_exec: the namespace, then the program and its arguments. */
function netnsExec(ns: Namespace, args: readonly string[], stdin: string, run: RunArgv): CommandResult {
  const [name, ...command] = args;
  if (name === undefined) return fail('No netns name specified\n', 1);
  if (!ns.sim.hasNamespace(name))
    return fail(`Cannot open network namespace "${name}": No such file or directory\n`, 255);
  if (command.length === 0) return fail('No command specified\n', 1);
  // execvp fails in the child, which says so and exits 1.
  if (!isCommand(command[0]!)) return fail(`exec of "${command[0]}" failed: No such file or directory\n`, 1);
  return run(ns.sim.namespace(name), command, stdin);
}

export function netnsCommand(
  ns: Namespace,
  args: readonly string[],
  stdin: string,
  run: RunArgv,
): CommandResult {
  const [verb, ...rest] = args;
  if (verb === undefined || matches(verb, 'list') || matches(verb, 'show') || matches(verb, 'lst'))
    return netnsList(ns);
  if (matches(verb, 'help')) return fail(USAGE, 255);
  if (matches(verb, 'exec')) return netnsExec(ns, rest, stdin, run);
  if (
    ['add', 'attach', 'set', 'delete', 'identify', 'pids', 'monitor', 'list-id'].some((v) => matches(verb, v))
  )
    return unsupported('ip', `netns ${verb}`);
  return fail(`Command "${verb}" is unknown, try "ip netns help".\n`, 255);
}
