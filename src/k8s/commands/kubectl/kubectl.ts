// The kubectl command a cluster's user types: `get`, `exec` and `debug` to read, and the writing verbs `delete`,
// `scale`, `label`, `cordon`, `uncordon`, `run`, `create deployment`, `expose` (other subcommands are known and not
// modelled). Before the subcommand: -n/--namespace, and --context/--kubeconfig/--cluster/--user (ignored: there is one
// cluster); other global flags are not supported.

import { type CommandResult, fail, unsupported } from '../../../tools/result.ts';
import type { Capture } from '../../../tools/tcpdump.ts';
import type { ClusterCommandContext } from '../context.ts';
import { kubectlCordon } from './cordon.ts';
import { kubectlCreate, kubectlRun } from './create.ts';
import { kubectlDelete } from './delete.ts';
import { kubectlDebug, kubectlExec, spawnKubectl } from './exec.ts';
import { kubectlExpose } from './expose.ts';
import { kubectlGet } from './get.ts';
import { kubectlLabel } from './label.ts';
import { kubectlScale } from './scale.ts';

/** kubectl's other commands (kubectl.go NewKubectlCommand's groups). */
const OTHER_COMMANDS = [
  'create',
  'expose',
  'run',
  'set',
  'explain',
  'edit',
  'delete',
  'rollout',
  'scale',
  'autoscale',
  'certificate',
  'cluster-info',
  'top',
  'cordon',
  'uncordon',
  'drain',
  'taint',
  'describe',
  'logs',
  'attach',
  'port-forward',
  'proxy',
  'cp',
  'auth',
  'events',
  'diff',
  'apply',
  'patch',
  'replace',
  'wait',
  'kustomize',
  'label',
  'annotate',
  'completion',
  'api-resources',
  'api-versions',
  'config',
  'plugin',
  'version',
  'options',
  'help',
  'alpha',
];

/** kubectl's persistent flags given before the subcommand: `-n NS` moves to the subcommand (cobra parses persistent
 * flags anywhere); `--context` and `--kubeconfig` name the one cluster there is and are ignored. */
function globalFlags(
  args: readonly string[],
): { ok: true; args: string[] } | { ok: false; result: CommandResult } {
  const moved: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) break;
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const takesValue = ['-n', '--namespace', '--context', '--kubeconfig', '--cluster', '--user'].includes(
      name,
    );
    if (!takesValue) return { ok: false, result: unsupported('kubectl', arg) };
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) return { ok: false, result: fail(`Error: flag needs an argument: ${name}\n`) };
    if (name === '-n' || name === '--namespace') moved.push('--namespace', value);
  }
  const [sub, ...rest] = args.slice(i);
  return { ok: true, args: sub === undefined ? [] : [sub, ...moved, ...rest] };
}

export function kubectl(ctx: ClusterCommandContext, argv: readonly string[], stdin: string): CommandResult {
  const global = globalFlags(argv);
  if (!global.ok) return global.result;
  const [sub, ...rest] = global.args;
  switch (sub) {
    case 'get':
      return kubectlGet(ctx, rest);
    case 'exec':
      return kubectlExec(ctx, rest, stdin);
    case 'debug':
      return kubectlDebug(ctx, rest, stdin);
    case 'delete':
      return kubectlDelete(ctx, rest);
    case 'scale':
      return kubectlScale(ctx, rest);
    case 'label':
      return kubectlLabel(ctx, rest);
    case 'cordon':
    case 'uncordon':
      return kubectlCordon(ctx, sub, rest);
    case 'run':
      return kubectlRun(ctx, rest);
    case 'create':
      return kubectlCreate(ctx, rest);
    case 'expose':
      return kubectlExpose(ctx, rest);
    case undefined:
      return unsupported('kubectl', 'without a command');
    default:
      if (sub.startsWith('-')) return unsupported('kubectl', sub);
      if (OTHER_COMMANDS.includes(sub)) return unsupported('kubectl', sub);
      return fail(`Error: unknown command "${sub}" for "kubectl"\n${suggestions(sub)}`);
  }
}

/** A long-running `kubectl exec|debug ... -- CMD`, as the façade's spawn. */
export function spawnKubectlCommand(
  ctx: ClusterCommandContext,
  args: readonly string[],
): Capture | CommandResult {
  const [sub, ...rest] = args;
  if (sub === 'exec' || sub === 'debug') return spawnKubectl(ctx, sub, rest);
  return fail(`packetlab: kubectl ${sub ?? ''} cannot run in the background\n`, 2);
}

/** cobra's SuggestionsFor (Levenshtein distance at most 2, or a prefix), as `Did you mean this?` prints them. */
function suggestions(typed: string): string {
  const all = ['get', 'exec', 'debug', ...OTHER_COMMANDS].filter(
    (name) => name !== 'help' && name !== 'alpha',
  );
  const found = all.filter(
    (name) => levenshtein(typed.toLowerCase(), name) <= 2 || name.startsWith(typed.toLowerCase()),
  );
  return found.length === 0 ? '' : `\nDid you mean this?\n${found.map((name) => `\t${name}\n`).join('')}\n`;
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = current;
  }
  return previous[b.length]!;
}
