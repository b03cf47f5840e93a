// `kubectl scale deployment NAME... --replicas=N [-n NS]` through the control plane (the Deployment's spec.replicas;
// its controller adds or removes pods on the scheduler). No --current-replicas/--resource-version preconditions, no
// ReplicaSets or StatefulSets, no -l/--all, no --timeout waiting.
//
// mirrors staging/src/k8s.io/kubectl/pkg/cmd/scale/scale.go: the required --replicas flag, Validate's wording for a
// negative count, and the name printer's `deployment.apps/NAME scaled`.

import { type CommandResult, unsupported } from '../../../tools/result.ts';
import { notFound } from '../../store.ts';
import type { ClusterCommandContext } from '../context.ts';
import { type FlagSpec, parseFlags } from '../flags.ts';
import { flagError } from './usage.ts';
import { commandFailed, kindString, kubectlFail, namespaceOf, serverError, targets } from './write-args.ts';

const SCALE_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'replicas', takesValue: true },
  { long: 'current-replicas', takesValue: true },
  { long: 'resource-version', takesValue: true },
  { long: 'selector', short: 'l', takesValue: true },
  { long: 'all', takesValue: false },
  { long: 'filename', short: 'f', takesValue: true },
];

export function kubectlScale(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  const parsed = parseFlags(argv, SCALE_FLAGS, { interspersed: true });
  if (!parsed.ok) return flagError('scale', parsed.message);
  const { values, bools, args } = parsed.flags;
  for (const long of ['current-replicas', 'resource-version', 'selector', 'all', 'filename']) {
    if (values.has(long) || bools.has(long)) return unsupported('kubectl scale', `--${long}`);
  }
  const given = values.get('replicas');
  if (given === undefined) return commandFailed(ctx, 'required flag(s) "replicas" not set');
  if (!/^-?\d+$/.test(given)) {
    return flagError(
      'scale',
      `invalid argument "${given}" for "--replicas" flag: strconv.ParseInt: parsing "${given}": invalid syntax`,
    );
  }
  const replicas = Number(given);
  if (replicas < 0)
    return kubectlFail('The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0');
  const found = targets('scale', args, 'Required resource not specified.');
  if (!found.ok) return found.result;
  if (found.kind !== 'Deployment') return unsupported('kubectl scale', kindString(found.kind));
  const plane = ctx.controlPlane;
  const namespace = namespaceOf(values);
  let stdout = '';
  let errors = '';
  for (const name of found.names) {
    const result =
      plane === undefined
        ? scaleInStore(ctx, namespace, name, replicas)
        : plane.scale(namespace, name, replicas);
    if (result.ok) stdout += `deployment.apps/${name} scaled\n`;
    else errors += serverError(result.error).stderr;
  }
  return { stdout, stderr: errors, exitCode: errors === '' ? 0 : 1 };
}

/** Without controllers, the spec changes and nothing follows. */
function scaleInStore(ctx: ClusterCommandContext, namespace: string, name: string, replicas: number) {
  const current = ctx.store.get('Deployment', namespace, name);
  if (current === undefined) return notFound('Deployment', name);
  return ctx.store.update<'Deployment'>({ ...current, spec: { ...current.spec, replicas } });
}
