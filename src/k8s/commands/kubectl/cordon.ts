// `kubectl cordon|uncordon NODE`: sets the Node's spec.unschedulable (the scheduler then leaves it out; pods already
// there stay). No `drain` (eviction), no -l selector, no --dry-run.
//
// mirrors staging/src/k8s.io/kubectl/pkg/cmd/drain/drain.go: RunCordonOrUncordon and its printed
// `node/NAME cordoned`, `node/NAME already cordoned`, `node/NAME uncordoned`, `node/NAME already uncordoned`.

import { type CommandResult, unsupported } from '../../../tools/result.ts';
import { kubectlError, notFound } from '../../store.ts';
import type { ClusterCommandContext } from '../context.ts';
import { type FlagSpec, parseFlags } from '../flags.ts';
import { flagError } from './usage.ts';
import { serverError, usageError } from './write-args.ts';

const CORDON_FLAGS: readonly FlagSpec[] = [
  { long: 'selector', short: 'l', takesValue: true },
  { long: 'dry-run', takesValue: true },
];

export function kubectlCordon(
  ctx: ClusterCommandContext,
  verb: 'cordon' | 'uncordon',
  argv: readonly string[],
): CommandResult {
  // -n is accepted and means nothing here: Nodes have no namespace.
  const parsed = parseFlags(argv, [...CORDON_FLAGS, { long: 'namespace', short: 'n', takesValue: true }], {
    interspersed: true,
  });
  if (!parsed.ok) return flagError(verb, parsed.message);
  const { values, args } = parsed.flags;
  for (const long of ['selector', 'dry-run']) {
    if (values.has(long)) return unsupported(`kubectl ${verb}`, `--${long}`);
  }
  if (args.length === 0) return usageError(verb, 'USAGE: cordon NODE [flags]'.replace('cordon', verb));
  const unschedulable = verb === 'cordon';
  const done = unschedulable ? 'cordoned' : 'uncordoned';
  let stdout = '';
  let errors = '';
  for (const name of args) {
    const node = ctx.store.get('Node', '', name);
    if (node === undefined) {
      const missing = notFound('Node', name);
      if (!missing.ok) errors += kubectlError(missing.error);
      continue;
    }
    if (node.spec.unschedulable === unschedulable) {
      stdout += `node/${name} already ${done}\n`;
      continue;
    }
    const updated = ctx.store.update<'Node'>({ ...node, spec: { ...node.spec, unschedulable } });
    if (!updated.ok) errors += serverError(updated.error).stderr;
    else stdout += `node/${name} ${done}\n`;
  }
  return { stdout, stderr: errors, exitCode: errors === '' ? 0 : 1 };
}
