// `kubectl delete TYPE NAME... [--grace-period=N] [--now] [--force] [--ignore-not-found] [-n NS]` for pods (graceful,
// through the control plane's PodTermination), Services, Deployments (their pods follow) and DaemonSets. kubectl
// returns as with --wait=false: the command does not block while a pod terminates (see docs/deviations.md). No -f,
// no -l/--all, no --cascade, no -o name, no --dry-run.
//
// mirrors staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go: Complete (--now is --grace-period=1, 0 without
// --force becomes 1, --force alone is 0), Validate (the force warning), PrintObj (`KIND[.GROUP] "NAME" deleted`).

import { type CommandResult, fail, unsupported } from '../../../tools/result.ts';
import type { Kind } from '../../objects.ts';
import { type ApiResult, kubectlError } from '../../store.ts';
import type { ClusterCommandContext } from '../context.ts';
import { type FlagSpec, parseFlags } from '../flags.ts';
import { flagError } from './usage.ts';
import { kindString, kubectlFail, namespaceOf, targets } from './write-args.ts';

const DELETE_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'grace-period', takesValue: true },
  { long: 'now', takesValue: false },
  { long: 'force', takesValue: false },
  { long: 'wait', takesValue: false },
  { long: 'ignore-not-found', takesValue: false },
  { long: 'filename', short: 'f', takesValue: true },
  { long: 'selector', short: 'l', takesValue: true },
  { long: 'all', takesValue: false },
  { long: 'cascade', takesValue: true },
  { long: 'output', short: 'o', takesValue: true },
  { long: 'dry-run', takesValue: true },
];

/** Validate's warning, through printers.WarningPrinter (`Warning: ` prefix; the text is in the 1.32 client's binary). */
const FORCE_WARNING =
  'Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n';

export function kubectlDelete(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  const parsed = parseFlags(argv, DELETE_FLAGS, { interspersed: true });
  if (!parsed.ok) return flagError('delete', parsed.message);
  const { values, bools, args } = parsed.flags;
  for (const long of ['filename', 'selector', 'all', 'cascade', 'output', 'dry-run']) {
    if (values.has(long) || bools.has(long)) return unsupported('kubectl delete', `--${long}`);
  }
  let gracePeriod = -1;
  const given = values.get('grace-period');
  if (given !== undefined) {
    if (!/^-?\d+$/.test(given)) {
      return flagError(
        'delete',
        `invalid argument "${given}" for "--grace-period" flag: strconv.ParseInt: parsing "${given}": invalid syntax`,
      );
    }
    gracePeriod = Number(given);
  }
  const force = bools.has('force');
  if (bools.has('now')) {
    if (gracePeriod !== -1) return kubectlFail('--now and --grace-period cannot be specified together');
    gracePeriod = 1;
  }
  if (gracePeriod === 0 && !force) gracePeriod = 1;
  if (force && gracePeriod < 0) gracePeriod = 0;
  if (force && gracePeriod > 0)
    return kubectlFail('--force and --grace-period greater than 0 cannot be specified together');
  const warning = force && gracePeriod === 0 ? FORCE_WARNING : '';
  if (args.length === 0) {
    return fail(
      `${warning}error: You must provide one or more resources by argument or filename.\n` +
        'Example resource specifications include:\n' +
        "   '-f rsrc.yaml'\n" +
        "   '--filename=rsrc.json'\n" +
        "   '<resource> <name>'\n" +
        "   '<resource>'\n",
    );
  }
  const found = targets('delete', args, '');
  if (!found.ok) return { ...found.result, stderr: warning + found.result.stderr };
  const namespace = found.kind === 'Node' ? '' : namespaceOf(values);
  const operation = gracePeriod === 0 ? 'force deleted' : 'deleted';
  let stdout = '';
  let errors = '';
  for (const name of found.names) {
    const result = deleteOne(ctx, found.kind, namespace, name, gracePeriod);
    if (result.ok) {
      stdout += `${kindString(found.kind)} "${name}" ${operation}\n`;
    } else if (!(result.error.reason === 'NotFound' && bools.has('ignore-not-found'))) {
      // The builder visits every name and aggregates the errors (ContinueOnError); CheckErr prints them at the end.
      errors += kubectlError(result.error);
    }
  }
  return { stdout, stderr: warning + errors, exitCode: errors === '' ? 0 : 1 };
}

/** One DELETE request: a pod through graceful termination (grace -1 is the pod's own), others at once. */
function deleteOne(
  ctx: ClusterCommandContext,
  kind: Kind,
  namespace: string,
  name: string,
  gracePeriod: number,
): ApiResult<unknown> {
  if (kind === 'Pod' && ctx.controlPlane !== undefined) {
    return ctx.controlPlane.deletePod(namespace, name, gracePeriod < 0 ? undefined : gracePeriod);
  }
  return ctx.store.delete(kind, namespace, name);
}
