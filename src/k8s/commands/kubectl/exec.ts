// `kubectl exec POD [-c C] [-n NS] -- CMD` and `kubectl debug POD -it --image=IMG [--target=C] [-c NAME] -- CMD`: the
// command runs in the pod's network namespace with the façade's tools (what an image holds is not modelled: every
// pod and debug image has them all). The ephemeral container is not added to the pod or the runtime; no --copy-to,
// no attach to a running process, no terminal (-t is accepted, nothing is printed about it).

import type { Namespace } from '../../../netns/namespace.ts';
import { isCommand, runArgv, spawn } from '../../../tools/exec.ts';
import { type CommandResult, fail, unsupported } from '../../../tools/result.ts';
import type { Capture } from '../../../tools/tcpdump.ts';
import type { Pod } from '../../objects.ts';
import type { ClusterCommandContext } from '../context.ts';
import { type FlagSpec, parseFlags, shellQuote } from '../flags.ts';
import { flagError } from './usage.ts';

const EXEC_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'container', short: 'c', takesValue: true },
  { long: 'stdin', short: 'i', takesValue: false },
  { long: 'tty', short: 't', takesValue: false },
  { long: 'quiet', short: 'q', takesValue: false },
  { long: 'filename', short: 'f', takesValue: true },
  { long: 'pod-running-timeout', takesValue: true },
];

const DEBUG_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'container', short: 'c', takesValue: true },
  { long: 'stdin', short: 'i', takesValue: false },
  { long: 'tty', short: 't', takesValue: false },
  { long: 'quiet', short: 'q', takesValue: false },
  { long: 'image', takesValue: true },
  { long: 'target', takesValue: true },
  { long: 'profile', takesValue: true },
  { long: 'image-pull-policy', takesValue: true },
  { long: 'copy-to', takesValue: true },
  { long: 'attach', takesValue: false },
  { long: 'env', takesValue: true },
  { long: 'share-processes', takesValue: false },
  { long: 'set-image', takesValue: true },
  { long: 'same-node', takesValue: false },
  { long: 'replace', takesValue: false },
  { long: 'arguments-only', takesValue: false },
  { long: 'custom', takesValue: true },
];

/** debug.go's profiles (pkg/cmd/debug/profiles.go). */
const PROFILES = ['legacy', 'general', 'baseline', 'netadmin', 'restricted', 'sysadmin'];

/** utilrand.String's alphabet (k8s.io/apimachinery/pkg/util/rand): no vowels, no look-alikes. */
const RAND_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

type Target =
  | {
      readonly ok: true;
      readonly ns: Namespace;
      readonly command: readonly string[];
      readonly stderr: string;
    }
  | { readonly ok: false; readonly result: CommandResult };

/** The pod named on the command line (`NAME` or `pod/NAME`) in its namespace, or kubectl's NotFound. */
function findPod(
  ctx: ClusterCommandContext,
  word: string,
  namespace: string,
): { ok: true; pod: Pod } | { ok: false; result: CommandResult } {
  let name = word;
  if (word.includes('/')) {
    const type = word.slice(0, word.indexOf('/'));
    if (type !== 'pod' && type !== 'pods' && type !== 'po')
      return { ok: false, result: unsupported('kubectl', `${type}/NAME`) };
    name = word.slice(word.indexOf('/') + 1);
  }
  const pod = ctx.store.get('Pod', namespace, name);
  if (pod === undefined)
    return { ok: false, result: fail(`Error from server (NotFound): pods "${name}" not found\n`) };
  return { ok: true, pod };
}

/** mirrors kubectl's exec.go Complete/Validate/Run up to the stream: pod, container, command. */
function execTarget(ctx: ClusterCommandContext, argv: readonly string[]): Target {
  const parsed = parseFlags(argv, EXEC_FLAGS, { interspersed: true });
  if (!parsed.ok) return { ok: false, result: flagError('exec', parsed.message) };
  const { values, bools, args, afterDash } = parsed.flags;
  if (values.has('filename')) return { ok: false, result: unsupported('kubectl exec', '-f') };
  if (values.has('pod-running-timeout'))
    return { ok: false, result: unsupported('kubectl exec', '--pod-running-timeout') };
  const [podWord, ...extra] = args;
  if (podWord === undefined)
    return { ok: false, result: fail('error: pod, type/name or --filename must be specified\n') };
  if (extra.length > 0) {
    return {
      ok: false,
      result: fail(
        "error: exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead\nSee 'kubectl exec -h' for help and examples\n",
      ),
    };
  }
  if (afterDash === undefined || afterDash.length === 0) {
    return { ok: false, result: fail('error: you must specify at least one command for the container\n') };
  }
  const found = findPod(ctx, podWord, values.get('namespace') ?? 'default');
  if (!found.ok) return found;
  const { pod } = found;
  if (pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed') {
    return {
      ok: false,
      result: fail(
        `error: cannot exec into a container in a completed pod; current phase is ${pod.status.phase}\n`,
      ),
    };
  }
  let stderr = '';
  let container = values.get('container');
  const names = pod.spec.containers.map((c) => c.name);
  if (container === undefined) {
    // podcmd.FindOrDefaultContainerByName: the annotated default, else the first, saying so when there are several.
    container = pod.metadata.annotations['kubectl.kubernetes.io/default-container'] ?? names[0] ?? '';
    if (
      names.length > 1 &&
      !bools.has('quiet') &&
      pod.metadata.annotations['kubectl.kubernetes.io/default-container'] === undefined
    ) {
      stderr = `Defaulted container "${container}" out of: ${names.join(', ')}\n`;
    }
  }
  const ns = ctx.runtime.podNamespace(pod.metadata.namespace, pod.metadata.name);
  if (!names.includes(container) || ns === undefined) {
    return {
      ok: false,
      result: fail(`${stderr}error: unable to upgrade connection: container not found ("${container}")\n`),
    };
  }
  return { ok: true, ns, command: afterDash, stderr };
}

/** mirrors kubectl debug.go (Complete, Validate, debugByEphemeralContainer's name and its messages). */
function debugTarget(
  ctx: ClusterCommandContext,
  argv: readonly string[],
): Target | { readonly ok: 'detached'; readonly result: CommandResult } {
  const parsed = parseFlags(argv, DEBUG_FLAGS, { interspersed: true });
  if (!parsed.ok) return { ok: false, result: flagError('debug', parsed.message) };
  const { values, bools, args, afterDash } = parsed.flags;
  for (const long of [
    'copy-to',
    'attach',
    'env',
    'share-processes',
    'set-image',
    'same-node',
    'replace',
    'arguments-only',
    'custom',
  ]) {
    if (values.has(long) || bools.has(long))
      return { ok: false, result: unsupported('kubectl debug', `--${long}`) };
  }
  const image = values.get('image') ?? '';
  if (image === '')
    return { ok: false, result: fail('error: you must specify --image when not using --copy-to.\n') };
  const [podWord, ...extra] = args;
  if (podWord === undefined)
    return { ok: false, result: fail('error: NAME or filename is required for debug\n') };
  if (extra.length > 0) return { ok: false, result: unsupported('kubectl debug', 'several names') };
  let stderr = '';
  const profile = values.get('profile');
  if (profile === undefined) {
    stderr +=
      '--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example "--profile=general".\n';
  } else if (!PROFILES.includes(profile)) {
    return { ok: false, result: fail(`error: unknown profile: ${profile}\n`) };
  }
  const found = findPod(ctx, podWord, values.get('namespace') ?? 'default');
  if (!found.ok) return found;
  const { pod } = found;
  const target = values.get('target');
  if (target !== undefined && !pod.spec.containers.some((c) => c.name === target)) {
    return {
      ok: false,
      result: fail(
        `${stderr}The Pod "${pod.metadata.name}" is invalid: spec.ephemeralContainers[0].targetContainerName: Not found: "${target}"\n`,
      ),
    };
  }
  if (!values.has('container')) {
    let suffix = '';
    for (let i = 0; i < 5; i++) suffix += RAND_ALPHABET[ctx.rng.int(RAND_ALPHABET.length)];
    if (!bools.has('quiet')) stderr += `Defaulting debug container name to debugger-${suffix}.\n`;
  }
  const ns = ctx.runtime.podNamespace(pod.metadata.namespace, pod.metadata.name);
  if (ns === undefined) {
    return {
      ok: false,
      result: fail(
        `${stderr}error: unable to upgrade connection: container not found ("${values.get('container') ?? 'debugger'}")\n`,
      ),
    };
  }
  // Without -i kubectl creates the container and returns: what it runs goes to the container's log.
  if (!bools.has('stdin')) return { ok: 'detached', result: { stdout: '', stderr, exitCode: 0 } };
  const command = afterDash ?? [];
  if (command.length === 0)
    return { ok: false, result: unsupported('kubectl debug', 'without a command (the image entrypoint)') };
  return { ok: true, ns, command, stderr };
}

/** runc's failure for a missing program, as the kubelet relays containerd's error to kubectl. */
function notFound(ctx: ClusterCommandContext, program: string, stderr: string): CommandResult {
  let execId = '';
  for (const byte of ctx.rng.bytes(32)) execId += byte.toString(16).padStart(2, '0');
  return fail(
    `${stderr}error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "${execId}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in $PATH: unknown\n`,
  );
}

/** Runs the command in the pod and reports a non-zero exit as kubectl does (`command terminated with exit code N`). */
function runInPod(ctx: ClusterCommandContext, target: Target & { ok: true }, stdin: string): CommandResult {
  const program = target.command[0]!;
  if (!isCommand(program)) return notFound(ctx, program, target.stderr);
  const result = runArgv(target.ns, target.command, stdin);
  const stderr = target.stderr + result.stderr;
  if (result.exitCode === 0) return { stdout: result.stdout, stderr, exitCode: 0 };
  return {
    stdout: result.stdout,
    stderr: `${stderr}command terminated with exit code ${result.exitCode}\n`,
    exitCode: result.exitCode,
  };
}

export function kubectlExec(
  ctx: ClusterCommandContext,
  argv: readonly string[],
  stdin: string,
): CommandResult {
  const target = execTarget(ctx, argv);
  if (!target.ok) return target.result;
  const interactive = parseFlags(argv, EXEC_FLAGS, { interspersed: true });
  const withStdin = interactive.ok && interactive.flags.bools.has('stdin');
  return runInPod(ctx, target, withStdin ? stdin : '');
}

export function kubectlDebug(
  ctx: ClusterCommandContext,
  argv: readonly string[],
  stdin: string,
): CommandResult {
  const target = debugTarget(ctx, argv);
  if (target.ok === 'detached' || !target.ok) return target.result;
  return runInPod(ctx, target, stdin);
}

/** `kubectl exec POD -- tcpdump ...` / `kubectl debug ... -- tcpdump ...` left running: spawn's handle. The lines kubectl
 * itself prints before the stream (Defaulting ...) are not part of the handle. */
export function spawnKubectl(
  ctx: ClusterCommandContext,
  subcommand: 'exec' | 'debug',
  argv: readonly string[],
): Capture | CommandResult {
  const target = subcommand === 'exec' ? execTarget(ctx, argv) : debugTarget(ctx, argv);
  if (target.ok === 'detached' || !target.ok) return target.result;
  const program = target.command[0]!;
  if (!isCommand(program)) return notFound(ctx, program, target.stderr);
  return spawn(target.ns, shellQuote(target.command));
}
