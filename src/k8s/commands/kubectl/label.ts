// `kubectl label TYPE NAME... KEY=VALUE... [KEY-]... [--overwrite] [-n NS]` on any kind in the store (an update: a
// pod relabelled leaves or joins a Service's endpoints). No -l/--all, no --list, no --resource-version, no -o.
//
// mirrors staging/src/k8s.io/kubectl/pkg/cmd/label/label.go: parseLabels (KEY=VALUE adds, KEY- removes),
// validateNoOverwrites (`'KEY' already has a value (VALUE), and --overwrite is false`), labelFunc, and the printed
// `KIND/NAME labeled` or `KIND/NAME not labeled` when nothing changed (or `unlabeled` when only removing).

import { type CommandResult, unsupported } from '../../../tools/result.ts';
import type { KubeObject } from '../../objects.ts';
import { kubectlError, notFound } from '../../store.ts';
import type { ClusterCommandContext } from '../context.ts';
import { type FlagSpec, parseFlags } from '../flags.ts';
import { flagError } from './usage.ts';
import { kindString, kubectlFail, namespaceOf, serverError, targets, usageError } from './write-args.ts';

const LABEL_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'overwrite', takesValue: false },
  { long: 'selector', short: 'l', takesValue: true },
  { long: 'all', takesValue: false },
  { long: 'list', takesValue: false },
  { long: 'output', short: 'o', takesValue: true },
  { long: 'resource-version', takesValue: true },
];

/** validation.IsQualifiedName and IsValidLabelValue, reduced to their character rules and lengths. */
const NAME_PART = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const PREFIX = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?)$/;

/** validation.IsValidLabelValue's message (its two spaces after the commas kept). */
const LABEL_VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function validKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return NAME_PART.test(key);
  return PREFIX.test(key.slice(0, slash)) && NAME_PART.test(key.slice(slash + 1));
}

export function kubectlLabel(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  const parsed = parseFlags(argv, LABEL_FLAGS, { interspersed: true });
  if (!parsed.ok) return flagError('label', parsed.message);
  const { values, bools, args } = parsed.flags;
  for (const long of ['selector', 'all', 'list', 'output', 'resource-version']) {
    if (values.has(long) || bools.has(long)) return unsupported('kubectl label', `--${long}`);
  }
  // label.go Complete: the arguments with `=` or ending in `-` are labels, the rest name the objects.
  const resources = args.filter((arg) => !arg.includes('=') && !arg.endsWith('-'));
  const labelArgs = args.filter((arg) => arg.includes('=') || arg.endsWith('-'));
  if (labelArgs.length === 0) return kubectlFail('at least one label update is required');
  const add = new Map<string, string>();
  const remove: string[] = [];
  for (const arg of labelArgs) {
    if (arg.includes('=')) {
      const [key, value, ...more] = arg.split('=');
      if (more.length > 0 || !validKey(key!)) return kubectlFail(`invalid label spec: ${arg}`);
      if (!VALUE.test(value!)) return kubectlFail(`invalid label value: "${arg}": ${LABEL_VALUE_RULE}`);
      add.set(key!, value!);
    } else {
      remove.push(arg.slice(0, -1));
    }
  }
  for (const key of remove) {
    if (add.has(key)) return kubectlFail(`can not both modify and remove a label in the same command`);
  }
  if (resources.length === 0)
    return usageError(
      'label',
      'one or more resources must be specified as <resource> <name> or <resource>/<name>',
    );
  const found = targets(
    'label',
    resources,
    'one or more resources must be specified as <resource> <name> or <resource>/<name>',
  );
  if (!found.ok) return found.result;
  const namespace = found.kind === 'Node' ? '' : namespaceOf(values);
  let stdout = '';
  let errors = '';
  for (const name of found.names) {
    const current = ctx.store.get(found.kind, namespace, name) as KubeObject | undefined;
    if (current === undefined) {
      const missing = notFound(found.kind, name);
      if (!missing.ok) errors += kubectlError(missing.error);
      continue;
    }
    const labels: Record<string, string> = { ...current.metadata.labels };
    if (!bools.has('overwrite')) {
      // validateNoOverwrites' aggregate: one error as is, several inside brackets.
      const taken = [...add.keys()]
        .filter((key) => Object.hasOwn(labels, key))
        .map((key) => `'${key}' already has a value (${labels[key]}), and --overwrite is false`);
      if (taken.length > 0) {
        errors += `error: ${taken.length === 1 ? taken[0] : `[${taken.join(', ')}]`}\n`;
        continue;
      }
    }
    for (const [key, value] of add) labels[key] = value;
    for (const key of remove) delete labels[key];
    const changed =
      Object.keys(labels).length !== Object.keys(current.metadata.labels).length ||
      Object.entries(labels).some(([key, value]) => current.metadata.labels[key] !== value);
    const what = `${kindString(found.kind)}/${name}`;
    if (!changed) {
      stdout += `${what} not labeled\n`;
      continue;
    }
    const updated = ctx.store.update({ ...current, metadata: { ...current.metadata, labels } } as KubeObject);
    if (!updated.ok) {
      errors += serverError(updated.error).stderr;
      continue;
    }
    stdout += `${what} ${add.size === 0 ? 'unlabeled' : 'labeled'}\n`;
  }
  return { stdout, stderr: errors, exitCode: errors === '' ? 0 : 1 };
}
