// `kubectl run NAME --image=IMG [--labels=K=V,...] [--port=P] [-n NS]` and `kubectl create deployment NAME
// --image=IMG [--replicas=N] [--port=P] [-n NS]`: the objects kubectl's generators build, created through the store
// (the scheduler binds, the kubelet starts, the Deployment controller makes the pods). No --restart/--env/--command
// or `-- ARGS` for run, one --image for create deployment, no other `create` subcommand, no --dry-run/-o.
//
// mirrors staging/src/k8s.io/kubectl/pkg/cmd/run/run.go (NAME and --image required, labels run=NAME, container named
// after the pod, `pod/NAME created`) and cmd/create/create_deployment.go (labels app=NAME, the container named after
// the image's last path element without tag or digest, `deployment.apps/NAME created`).

import { type CommandResult, unsupported } from '../../../tools/result.ts';
import { deployment, pod } from '../../api/builders.ts';
import type { ClusterCommandContext } from '../context.ts';
import { type FlagSpec, parseFlags } from '../flags.ts';
import { flagError } from './usage.ts';
import { commandFailed, kubectlFail, namespaceOf, ok, serverError, usageError } from './write-args.ts';

const RUN_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'image', takesValue: true },
  { long: 'labels', short: 'l', takesValue: true },
  { long: 'port', takesValue: true },
  { long: 'restart', takesValue: true },
  { long: 'env', takesValue: true },
  { long: 'command', takesValue: false },
  { long: 'rm', takesValue: false },
  { long: 'stdin', short: 'i', takesValue: false },
  { long: 'tty', short: 't', takesValue: false },
  { long: 'dry-run', takesValue: true },
  { long: 'output', short: 'o', takesValue: true },
  { long: 'expose', takesValue: false },
  { long: 'overrides', takesValue: true },
];

const CREATE_DEPLOYMENT_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'image', takesValue: true },
  { long: 'replicas', short: 'r', takesValue: true },
  { long: 'port', takesValue: true },
  { long: 'dry-run', takesValue: true },
  { long: 'output', short: 'o', takesValue: true },
];

/** An integer flag's value, or pflag's error for it. */
function intFlag(verb: string, name: string, value: string): number | CommandResult {
  if (/^-?\d+$/.test(value)) return Number(value);
  return flagError(
    verb,
    `invalid argument "${value}" for "--${name}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`,
  );
}

/** generate.ParseLabels: `k=v,k2=v2`. */
function parseLabels(spec: string): Record<string, string> | undefined {
  const labels: Record<string, string> = {};
  for (const pair of spec.split(',')) {
    const parts = pair.split('=');
    if (parts.length !== 2 || parts[0] === '') return undefined;
    labels[parts[0]!] = parts[1]!;
  }
  return labels;
}

export function kubectlRun(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  // run's flags stop at the first argument after NAME (cobra: the command's args may follow `--`).
  const parsed = parseFlags(argv, RUN_FLAGS, { interspersed: true });
  if (!parsed.ok) return flagError('run', parsed.message);
  const { values, bools, args, afterDash } = parsed.flags;
  for (const long of [
    'restart',
    'env',
    'command',
    'rm',
    'stdin',
    'tty',
    'dry-run',
    'output',
    'expose',
    'overrides',
  ]) {
    if (values.has(long) || bools.has(long)) return unsupported('kubectl run', `--${long}`);
  }
  if (afterDash !== undefined || args.length > 1) return unsupported('kubectl run', 'container arguments');
  const image = values.get('image');
  if (image === undefined) return commandFailed(ctx, 'required flag(s) "image" not set');
  const name = args[0];
  if (name === undefined) return usageError('run', 'NAME is required for run');
  let labels: Record<string, string> = { run: name };
  const labelSpec = values.get('labels');
  if (labelSpec !== undefined) {
    const parsedLabels = parseLabels(labelSpec);
    if (parsedLabels === undefined) return kubectlFail(`invalid label spec: ${labelSpec}`);
    labels = parsedLabels;
  }
  const portValue = values.get('port');
  let ports: { containerPort: number }[] = [];
  if (portValue !== undefined) {
    // run's --port is a string the generator parses after asking the server.
    if (!/^\d+$/.test(portValue)) return unsupported('kubectl run', `--port=${portValue}`);
    if (Number(portValue) > 0) ports = [{ containerPort: Number(portValue) }];
  }
  const created = ctx.store.create<'Pod'>(
    pod({ name, namespace: namespaceOf(values), labels, image, ports }),
  );
  if (!created.ok) return serverError(created.error);
  return ok(`pod/${name} created\n`);
}

/** `kubectl create SUBCOMMAND`: only `deployment` (alias `deploy`). */
export function kubectlCreate(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  const [sub, ...rest] = argv;
  if (sub === 'deployment' || sub === 'deploy') return createDeployment(ctx, rest);
  if (sub === undefined || sub.startsWith('-'))
    return unsupported('kubectl create', sub ?? 'without a subcommand');
  return unsupported('kubectl create', sub);
}

/** create_deployment.go buildPodSpec: the image's last path element, without tag or digest, `_` made `-`. */
export function containerNameOf(image: string): string {
  let name = image.slice(image.lastIndexOf('/') + 1);
  if (name.includes(':')) name = name.slice(0, name.indexOf(':'));
  if (name.includes('@')) name = name.slice(0, name.indexOf('@'));
  return name.replaceAll('_', '-');
}

function createDeployment(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  const parsed = parseFlags(argv, CREATE_DEPLOYMENT_FLAGS, { interspersed: true });
  if (!parsed.ok) return flagError('create deployment', parsed.message);
  const { values, args } = parsed.flags;
  for (const long of ['dry-run', 'output']) {
    if (values.has(long)) return unsupported('kubectl create deployment', `--${long}`);
  }
  const image = values.get('image');
  if (image === undefined) return commandFailed(ctx, 'required flag(s) "image" not set');
  if (args.length !== 1)
    return usageError('create deployment', `exactly one NAME is required, got ${args.length}`);
  const name = args[0]!;
  let replicas = 1;
  const replicasValue = values.get('replicas');
  if (replicasValue !== undefined) {
    const parsedReplicas = intFlag('create deployment', 'replicas', replicasValue);
    if (typeof parsedReplicas !== 'number') return parsedReplicas;
    replicas = parsedReplicas;
  }
  let port = -1;
  const portValue = values.get('port');
  if (portValue !== undefined) {
    const parsedPort = intFlag('create deployment', 'port', portValue);
    if (typeof parsedPort !== 'number') return parsedPort;
    port = parsedPort;
  }
  const base = deployment({
    name,
    namespace: namespaceOf(values),
    labels: { app: name },
    replicas,
    image,
    ports: port >= 0 ? [{ containerPort: port }] : [],
  });
  // The container is named after the image, not the Deployment.
  const spec = base.spec.template.spec;
  const containers = spec.containers.map((container) => ({ ...container, name: containerNameOf(image) }));
  const created = ctx.store.create<'Deployment'>({
    ...base,
    spec: { ...base.spec, template: { ...base.spec.template, spec: { ...spec, containers } } },
  });
  if (!created.ok) return serverError(created.error);
  return ok(`deployment.apps/${name} created\n`);
}
