// crictl v1.31 on a kind node, against containerd 1.7's CRI: `ps` (-a, --name, -p, --id, -s, -q, -l, -n, --no-trunc,
// -o json|table), `pods` (same filters), `inspect [-o json|go-template --template T] ID...` with containerd's
// status and info. Global flags: the endpoint ones (-r, -i, -t, -c), ignored. No images, logs, exec, stats; no label
// filters; `-o yaml` and `-v` are not supported.

import { type CommandResult, fail, ok, unsupported } from '../../tools/result.ts';
import type { ContainerRecord } from '../runtime.ts';
import type { ClusterCommandContext, NodeProcess } from './context.ts';
import { rfc3339Nano, unitsHumanDuration } from './durations.ts';
import { type Json, marshalIndent, sortedJson } from './go-json.ts';
import { executeTemplate } from './go-template.ts';
import { CRICTL_TABLE, formatTable } from './table.ts';

/** truncatedIDLen in crictl util.go. */
const TRUNCATED_ID_LEN = 13;

interface CliFlag {
  readonly name: string;
  readonly alias?: string;
  readonly takesValue: boolean;
  /** Known to crictl but not modelled here. */
  readonly unsupported?: boolean;
}

const PS_FLAGS: readonly CliFlag[] = [
  { name: 'verbose', alias: 'v', takesValue: false, unsupported: true },
  { name: 'id', takesValue: true },
  { name: 'name', takesValue: true },
  { name: 'pod', alias: 'p', takesValue: true },
  { name: 'image', takesValue: true, unsupported: true },
  { name: 'state', alias: 's', takesValue: true },
  { name: 'label', takesValue: true, unsupported: true },
  { name: 'quiet', alias: 'q', takesValue: false },
  { name: 'output', alias: 'o', takesValue: true },
  { name: 'all', alias: 'a', takesValue: false },
  { name: 'latest', alias: 'l', takesValue: false },
  { name: 'last', alias: 'n', takesValue: true },
  { name: 'no-trunc', takesValue: false },
  { name: 'resolve-image-path', alias: 'r', takesValue: false, unsupported: true },
];

const PODS_FLAGS: readonly CliFlag[] = [
  { name: 'id', takesValue: true },
  { name: 'name', takesValue: true },
  { name: 'namespace', takesValue: true },
  { name: 'state', alias: 's', takesValue: true },
  { name: 'label', takesValue: true, unsupported: true },
  { name: 'verbose', alias: 'v', takesValue: false, unsupported: true },
  { name: 'quiet', alias: 'q', takesValue: false },
  { name: 'output', alias: 'o', takesValue: true },
  { name: 'latest', alias: 'l', takesValue: false },
  { name: 'last', alias: 'n', takesValue: true },
  { name: 'no-trunc', takesValue: false },
];

const INSPECT_FLAGS: readonly CliFlag[] = [
  { name: 'output', alias: 'o', takesValue: true },
  { name: 'quiet', alias: 'q', takesValue: false },
  { name: 'template', takesValue: true },
  { name: 'name', takesValue: true, unsupported: true },
  { name: 'pod', alias: 'p', takesValue: true, unsupported: true },
  { name: 'image', takesValue: true, unsupported: true },
  { name: 'state', alias: 's', takesValue: true, unsupported: true },
  { name: 'label', takesValue: true, unsupported: true },
  { name: 'latest', alias: 'l', takesValue: false, unsupported: true },
  { name: 'last', alias: 'n', takesValue: true, unsupported: true },
  { name: 'all', alias: 'a', takesValue: false, unsupported: true },
];

/** crictl's other commands (main.go's app.Commands): known, not modelled. */
const OTHER_COMMANDS = [
  'attach',
  'checkpoint',
  'create',
  'exec',
  'version',
  'images',
  'image',
  'img',
  'imagefsinfo',
  'inspecti',
  'inspectp',
  'logs',
  'port-forward',
  'pull',
  'run',
  'runp',
  'rm',
  'rmi',
  'rmp',
  'pods',
  'ps',
  'stats',
  'statsp',
  'metricsp',
  'info',
  'start',
  'stop',
  'stopp',
  'update',
  'config',
  'events',
  'completion',
  'update-runtime-config',
  'help',
  'h',
];

/** crictl's global flags that only say how to reach containerd (main.go): their values change nothing here. */
const ENDPOINT_FLAGS = [
  '-r',
  '--runtime-endpoint',
  '-i',
  '--image-endpoint',
  '-t',
  '--timeout',
  '-c',
  '--config',
];

export function crictl(
  ctx: ClusterCommandContext,
  proc: NodeProcess,
  argv: readonly string[],
): CommandResult {
  let start = 0;
  while (start < argv.length && argv[start]!.startsWith('-')) {
    const arg = argv[start]!;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (!ENDPOINT_FLAGS.includes(name)) return unsupported('crictl', arg);
    start += arg.includes('=') ? 1 : 2;
  }
  const [command, ...rest] = argv.slice(start);
  if (command === undefined) return unsupported('crictl', 'without a command');
  switch (command) {
    case 'ps':
      return ps(ctx, proc, rest);
    case 'pods':
      return pods(ctx, proc, rest);
    case 'inspect':
      return inspect(ctx, proc, rest);
    default:
      if (OTHER_COMMANDS.includes(command)) return unsupported('crictl', command);
      // urfave/cli's help command for an unknown name: cli.Exit("No help topic for 'X'", 3).
      return fail(`No help topic for '${command}'\n`, 3);
  }
}

type CliParse =
  | {
      readonly ok: true;
      readonly values: Map<string, string>;
      readonly bools: Set<string>;
      readonly args: string[];
    }
  | { readonly ok: false; readonly result: CommandResult };

/** Go's flag package as urfave/cli v2 drives it (flags before arguments, `-x` or `--x`, `-x=v` or `-x v`), with
 * UseShortOptionHandling (`-aq` is `-a -q`). */
function parseCli(
  ctx: ClusterCommandContext,
  proc: NodeProcess,
  argv: readonly string[],
  flags: readonly CliFlag[],
): CliParse {
  const values = new Map<string, string>();
  const bools = new Set<string>();
  const find = (name: string) => flags.find((flag) => flag.name === name || flag.alias === name);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return { ok: true, values, bools, args: argv.slice(i + 1) };
    if (arg.length < 2 || arg[0] !== '-') return { ok: true, values, bools, args: argv.slice(i) };
    const body = arg.startsWith('--') ? arg.slice(2) : arg.slice(1);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    let names: CliFlag[];
    const exact = find(name);
    if (exact !== undefined) names = [exact];
    else if (!arg.startsWith('--') && eq < 0 && [...name].every((c) => find(c)?.takesValue === false)) {
      names = [...name].map((c) => find(c)!);
    } else {
      return { ok: false, result: fatal(ctx, proc, `flag provided but not defined: -${name}`) };
    }
    for (const flag of names) {
      if (flag.unsupported) return { ok: false, result: unsupported('crictl', `--${flag.name}`) };
      if (flag.takesValue) {
        const value = eq >= 0 ? body.slice(eq + 1) : argv[++i];
        if (value === undefined)
          return { ok: false, result: fatal(ctx, proc, `flag needs an argument: -${name}`) };
        values.set(flag.name, value);
      } else {
        bools.add(flag.name);
      }
    }
  }
  return { ok: true, values, bools, args: [] };
}

/** logrus.Fatal as crictl's main prints an error (mirrors logrus TextFormatter.Format): on a terminal printColored's
 * red `FATA[0000] ` and the message padded to 44 columns; otherwise logfmt `time=... level=fatal msg=...`. Exit 1. */
function fatal(ctx: ClusterCommandContext, proc: NodeProcess, message: string): CommandResult {
  if (proc.tty) return fail(`\x1b[31mFATA\x1b[0m[0000] ${message.padEnd(44)} \n`);
  const time = rfc3339Nano(ctx.epochMs ?? 0, Math.trunc(ctx.now() / 1e9) * 1e9);
  return fail(`time=${logfmtValue(time)} level=fatal msg=${logfmtValue(message)}\n`);
}

/** TextFormatter.needsQuoting: anything beyond letters, digits and -._/@^+ is printed %q. */
function logfmtValue(text: string): string {
  return /^[A-Za-z0-9\-._/@^+]*$/.test(text) ? text : JSON.stringify(text);
}

function truncated(id: string, prefix = ''): string {
  const bare = id.startsWith(prefix) ? id.slice(prefix.length) : id;
  return bare.slice(0, TRUNCATED_ID_LEN);
}

function compileRegex(pattern: string | undefined): RegExp | undefined | 'invalid' {
  if (pattern === undefined || pattern === '') return undefined;
  try {
    return new RegExp(pattern);
  } catch {
    return 'invalid';
  }
}

function stateName(state: ContainerRecord['state']): string {
  switch (state) {
    case 'CONTAINER_RUNNING':
      return 'Running';
    case 'CONTAINER_EXITED':
      return 'Exited';
  }
}

/** The image crictl's list sees: the kubelet's image ID when the runtime gives one (printed truncated), else the name. */
function listedImage(record: ContainerRecord, noTrunc: boolean): string {
  if (record.imageId === undefined) return record.image;
  return noTrunc ? record.imageId : truncated(record.imageId, 'sha256:');
}

/** mirrors container.go ListContainers + getContainersList (state, id, pod, name filters; newest first; -l/-n). */
function ps(ctx: ClusterCommandContext, proc: NodeProcess, argv: readonly string[]): CommandResult {
  const parsed = parseCli(ctx, proc, argv, PS_FLAGS);
  if (!parsed.ok) return parsed.result;
  if (parsed.args.length > 0) return unsupported('crictl', 'ps with arguments');
  const { values, bools } = parsed;
  const nameRe = compileRegex(values.get('name'));
  if (nameRe === 'invalid') {
    return fatal(
      ctx,
      proc,
      `listing containers: list containers: invalid regular expression ${JSON.stringify(values.get('name'))}`,
    );
  }
  const state = values.get('state')?.toLowerCase();
  if (state !== undefined && !['created', 'running', 'exited', 'unknown'].includes(state)) {
    return fatal(
      ctx,
      proc,
      'listing containers: list containers: --state should be one of created, running, exited or unknown',
    );
  }
  const last = Number(values.get('last') ?? '0');
  const latest = bools.has('latest');
  const wantState =
    latest || last > 0
      ? undefined
      : state !== undefined
        ? `CONTAINER_${state.toUpperCase()}`
        : bools.has('all')
          ? undefined
          : 'CONTAINER_RUNNING';
  const id = values.get('id');
  const pod = values.get('pod');
  let list = ctx.runtime
    .containers(proc.nodeName)
    .filter(
      (c) =>
        (wantState === undefined || c.state === wantState) &&
        (id === undefined || c.id.startsWith(id)) &&
        (pod === undefined || c.podSandboxId.startsWith(pod)) &&
        (nameRe === undefined || nameRe.test(c.name)),
    )
    .sort((a, b) => b.createdAt - a.createdAt);
  if (latest || last > 0) list = list.slice(0, last > 0 ? last : 1);
  const output = values.get('output') ?? 'table';
  const noTrunc = bools.has('no-trunc');
  switch (output) {
    case 'json':
      return ok(`${JSON.stringify({ containers: list.map((c) => containerJson(ctx, c)) }, null, 2)}\n`);
    case 'yaml':
      return unsupported('crictl', 'ps -o yaml');
    case 'table':
      break;
    default:
      return fatal(ctx, proc, `listing containers: unsupported output format ${JSON.stringify(output)}`);
  }
  if (bools.has('quiet')) return ok(list.map((c) => `${c.id}\n`).join(''));
  const now = ctx.now();
  const rows = [['CONTAINER', 'IMAGE', 'CREATED', 'STATE', 'NAME', 'ATTEMPT', 'POD ID', 'POD']];
  for (const c of list) {
    rows.push([
      noTrunc ? c.id : truncated(c.id),
      listedImage(c, noTrunc),
      `${unitsHumanDuration(now - c.createdAt)} ago`,
      stateName(c.state),
      c.name,
      String(c.attempt),
      noTrunc ? c.podSandboxId : truncated(c.podSandboxId),
      c.podName,
    ]);
  }
  return ok(formatTable(rows, CRICTL_TABLE));
}

/** The labels the kubelet puts on a container (kuberuntime_labels.go newContainerLabels). */
function containerLabels(ctx: ClusterCommandContext, c: ContainerRecord): Record<string, string> {
  return {
    'io.kubernetes.container.name': c.name,
    'io.kubernetes.pod.name': c.podName,
    'io.kubernetes.pod.namespace': c.podNamespace,
    'io.kubernetes.pod.uid': podUid(ctx, c),
  };
}

function podUid(ctx: ClusterCommandContext, c: ContainerRecord): string {
  return ctx.store.get('Pod', c.podNamespace, c.podName)?.metadata.uid ?? '';
}

/** A runtime.v1 Container as protojson prints it in ListContainersResponse (field order of api.proto). */
function containerJson(ctx: ClusterCommandContext, c: ContainerRecord): unknown {
  return {
    id: c.id,
    podSandboxId: c.podSandboxId,
    metadata: { name: c.name, attempt: c.attempt },
    image: { image: c.imageId ?? c.image, annotations: {}, userSpecifiedImage: '', runtimeHandler: '' },
    imageRef: c.imageId ?? c.image,
    state: c.state,
    createdAt: String(epochNs(ctx, c.createdAt)),
    labels: containerLabels(ctx, c),
    annotations: {},
  };
}

function epochNs(ctx: ClusterCommandContext, virtualNs: number): bigint {
  return BigInt(Math.trunc(ctx.epochMs ?? 0)) * 1_000_000n + BigInt(Math.trunc(virtualNs));
}

interface Sandbox {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  readonly createdAt: number;
  readonly ready: boolean;
}

/** The pod sandboxes of a node, as their containers name them (a sandbox is as old as its first container). */
function sandboxes(ctx: ClusterCommandContext, nodeName: string): Sandbox[] {
  const byId = new Map<string, Sandbox>();
  for (const c of ctx.runtime.containers(nodeName)) {
    const known = byId.get(c.podSandboxId);
    const ready = (known?.ready ?? false) || c.state === 'CONTAINER_RUNNING';
    byId.set(c.podSandboxId, {
      id: c.podSandboxId,
      name: c.podName,
      namespace: c.podNamespace,
      createdAt: Math.min(known?.createdAt ?? c.createdAt, c.createdAt),
      ready,
    });
  }
  return [...byId.values()];
}

/** mirrors sandbox.go ListPodSandboxes + OutputPodSandboxes (v1.31's columns). */
function pods(ctx: ClusterCommandContext, proc: NodeProcess, argv: readonly string[]): CommandResult {
  const parsed = parseCli(ctx, proc, argv, PODS_FLAGS);
  if (!parsed.ok) return parsed.result;
  if (parsed.args.length > 0) return unsupported('crictl', 'pods with arguments');
  const { values, bools } = parsed;
  const nameRe = compileRegex(values.get('name'));
  const nsRe = compileRegex(values.get('namespace'));
  if (nameRe === 'invalid' || nsRe === 'invalid')
    return fatal(ctx, proc, 'listing pod sandboxes: invalid regular expression');
  const state = values.get('state')?.toLowerCase();
  if (state !== undefined && state !== 'ready' && state !== 'notready') {
    return fatal(ctx, proc, 'listing pod sandboxes: --state should be ready or notready');
  }
  const id = values.get('id');
  const last = Number(values.get('last') ?? '0');
  let list = sandboxes(ctx, proc.nodeName)
    .filter(
      (s) =>
        (state === undefined || s.ready === (state === 'ready')) &&
        (id === undefined || s.id.startsWith(id)) &&
        (nameRe === undefined || nameRe.test(s.name)) &&
        (nsRe === undefined || nsRe.test(s.namespace)),
    )
    .sort((a, b) => b.createdAt - a.createdAt);
  if (bools.has('latest') || last > 0) list = list.slice(0, last > 0 ? last : 1);
  const output = values.get('output') ?? 'table';
  if (output !== 'table') return unsupported('crictl', `pods -o ${output}`);
  if (bools.has('quiet')) return ok(list.map((s) => `${s.id}\n`).join(''));
  const noTrunc = bools.has('no-trunc');
  const now = ctx.now();
  const rows = [['POD ID', 'CREATED', 'STATE', 'NAME', 'NAMESPACE', 'ATTEMPT', 'RUNTIME']];
  for (const s of list) {
    rows.push([
      noTrunc ? s.id : truncated(s.id),
      `${unitsHumanDuration(now - s.createdAt)} ago`,
      s.ready ? 'Ready' : 'NotReady',
      s.name,
      s.namespace,
      '0',
      '(default)',
    ]);
  }
  return ok(formatTable(rows, CRICTL_TABLE));
}

/** containerd's truncindex lookup: a full ID or a unique prefix of one. */
function findContainer(list: readonly ContainerRecord[], id: string): ContainerRecord | undefined {
  const matches = list.filter((c) => c.id.startsWith(id));
  return id !== '' && matches.length === 1 ? matches[0] : undefined;
}

/** mirrors container.go containerStatus + util.go outputStatusData: `{status, info}` re-marshalled through Go maps,
 * so every object's keys come out sorted. */
function inspect(ctx: ClusterCommandContext, proc: NodeProcess, argv: readonly string[]): CommandResult {
  const parsed = parseCli(ctx, proc, argv, INSPECT_FLAGS);
  if (!parsed.ok) return parsed.result;
  const { values, args } = parsed;
  if (args.length === 0) return unsupported('crictl', 'inspect without an ID');
  const output = values.get('output') ?? 'json';
  if (output === 'yaml' || output === 'table') return unsupported('crictl', `inspect -o ${output}`);
  if (output !== 'json' && output !== 'go-template') {
    return fatal(ctx, proc, `get the status of containers: unsupported format: ${JSON.stringify(output)}`);
  }
  const list = ctx.runtime.containers(proc.nodeName);
  const results: unknown[] = [];
  for (const id of args) {
    const record = findContainer(list, id);
    if (record === undefined) {
      return fatal(
        ctx,
        proc,
        `get the status of containers: get container status: rpc error: code = NotFound desc = an error occurred when try to find container ${JSON.stringify(id)}: not found`,
      );
    }
    results.push(inspectJson(ctx, record, list));
  }
  const data = sortedJson((results.length === 1 ? results[0] : results) as Json);
  if (output === 'json') return ok(`${marshalIndent(data, '', '  ')}\n`);
  const template = values.get('template') ?? '';
  const run = executeTemplate(template, data, 'tmplExecuteRawJSON');
  if (!run.ok) {
    if (run.message === 'unsupported') return unsupported('crictl', 'inspect --template beyond field chains');
    return fatal(
      ctx,
      proc,
      `get the status of containers: execute template: failed to template data: ${run.message}`,
    );
  }
  return ok(`${run.text}\n`);
}

/** The ContainerStatusResponse containerd 1.7 gives with verbose=true: `status` (runtime.v1 ContainerStatus) and
 * `info` (its containerInfo: sandboxID, pid, the OCI runtime spec's Linux namespaces). */
function inspectJson(
  ctx: ClusterCommandContext,
  c: ContainerRecord,
  all: readonly ContainerRecord[],
): unknown {
  const epoch = ctx.epochMs ?? 0;
  const created = rfc3339Nano(epoch, c.createdAt);
  const running = c.state === 'CONTAINER_RUNNING';
  // The pause container's PID: the sandbox's namespaces are the ones a container joins (containerd's
  // WithPodNamespaces: /proc/<sandbox pid>/ns/{ipc,uts,net}).
  const sandboxPid = c.sandboxPid ?? all.find((other) => other.podSandboxId === c.podSandboxId)?.pid ?? c.pid;
  const uid = podUid(ctx, c);
  return {
    status: {
      id: c.id,
      metadata: { attempt: c.attempt, name: c.name },
      state: c.state,
      createdAt: created,
      startedAt: created,
      finishedAt: '0001-01-01T00:00:00Z',
      exitCode: 0,
      image: { annotations: {}, image: c.image, runtimeHandler: '', userSpecifiedImage: '' },
      imageRef: c.imageId ?? c.image,
      reason: running ? '' : 'Completed',
      message: '',
      labels: containerLabels(ctx, c),
      annotations: {},
      mounts: [],
      logPath: `/var/log/pods/${c.podNamespace}_${c.podName}_${uid}/${c.name}/${c.attempt}.log`,
      resources: null,
      user: null,
      imageId: '',
    },
    info: {
      sandboxID: c.podSandboxId,
      pid: running ? c.pid : 0,
      removing: false,
      snapshotKey: c.id,
      snapshotter: 'overlayfs',
      runtimeType: 'io.containerd.runc.v2',
      runtimeOptions: { systemd_cgroup: true },
      runtimeSpec: {
        ociVersion: '1.1.0',
        linux: {
          namespaces: [
            { type: 'pid' },
            { type: 'ipc', path: `/proc/${sandboxPid}/ns/ipc` },
            { type: 'uts', path: `/proc/${sandboxPid}/ns/uts` },
            { type: 'mount' },
            { type: 'network', path: `/proc/${sandboxPid}/ns/net` },
            { type: 'cgroup' },
          ],
        },
      },
    },
  };
}
