// What kubectl's writing verbs share: their error wordings (cmdutil.CheckErr's `error: ...`, cmdutil.UsageErrorf's
// `See 'kubectl VERB -h'` hint), the namespace flag, and the `TYPE NAME...` / `TYPE/NAME` argument forms
// (resource.Builder ResourceTypeOrNameArgs). No several types at once, no -f files, no label selectors.

import { type CommandResult, fail, unsupported } from '../../../tools/result.ts';
import type { Kind } from '../../objects.ts';
import { type ApiError, kubectlError } from '../../store.ts';
import type { ClusterCommandContext } from '../context.ts';
import { resolveKind } from './get.ts';

/** cmdutil.CheckErr on a plain error: `error: MESSAGE`. */
export function kubectlFail(message: string): CommandResult {
  return fail(`error: ${message}\n`);
}

/** cmdutil.UsageErrorf: the message, then the hint naming the command's help. */
export function usageError(verb: string, message: string): CommandResult {
  return fail(`error: ${message}\nSee 'kubectl ${verb} -h' for help and examples\n`);
}

/**
 * An error cobra returns past kubectl's flag-error hook (a required flag not set): component-base's cli.run logs it
 * through klog, `E1201 17:53:54.831070   21131 run.go:72] "command failed" err="..."` (checked against kubectl on
 * this machine). The time is the virtual clock on the wall clock at ctx.epochMs; the pid is drawn from ctx.rng.
 */
export function commandFailed(ctx: ClusterCommandContext, message: string): CommandResult {
  const wallNs = BigInt(Math.trunc(ctx.epochMs ?? 0)) * 1_000_000n + BigInt(Math.trunc(ctx.now()));
  const date = new Date(Number(wallNs / 1_000_000n));
  const two = (n: number) => String(n).padStart(2, '0');
  const micros = String((wallNs / 1000n) % 1_000_000n).padStart(6, '0');
  const stamp = `${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}.${micros}`;
  const pid = String(ctx.rng.intBetween(1000, 32767)).padStart(7);
  const quoted = JSON.stringify(message);
  return fail(`E${stamp} ${pid} run.go:72] "command failed" err=${quoted}\n`);
}

/** A refusal from the API server, as kubectl prints it. */
export function serverError(error: ApiError): CommandResult {
  return fail(kubectlError(error));
}

export function ok(stdout: string, stderr = ''): CommandResult {
  return { stdout, stderr, exitCode: 0 };
}

/** The namespace a command acts in: -n/--namespace, else the kubeconfig context's (`default` on kind). */
export function namespaceOf(values: ReadonlyMap<string, string>): string {
  return values.get('namespace') ?? 'default';
}

export type Targets =
  | { readonly ok: true; readonly kind: Kind; readonly names: readonly string[] }
  | { readonly ok: false; readonly result: CommandResult };

/**
 * `TYPE NAME...` or `TYPE/NAME...` (one type), with kubectl's errors for an unknown type (discovery's wording) and
 * for a type without names.
 */
export function targets(verb: string, args: readonly string[], emptyMessage: string): Targets {
  const [first, ...rest] = args;
  if (first === undefined) return { ok: false, result: usageError(verb, emptyMessage) };
  if (first.includes('/')) {
    const names: string[] = [];
    let kind: Kind | undefined;
    for (const arg of args) {
      const slash = arg.indexOf('/');
      if (slash < 0) {
        return {
          ok: false,
          result: kubectlFail(
            `there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'`,
          ),
        };
      }
      const word = arg.slice(0, slash);
      const found = resolveKind(word);
      if (found === undefined) return { ok: false, result: unknownType(word) };
      if (kind !== undefined && found !== kind)
        return { ok: false, result: unsupported(`kubectl ${verb}`, 'several resource types') };
      kind = found;
      names.push(arg.slice(slash + 1));
    }
    return { ok: true, kind: kind!, names };
  }
  const kind = resolveKind(first);
  if (kind === undefined) return { ok: false, result: unknownType(first) };
  if (rest.length === 0) {
    return {
      ok: false,
      result: kubectlFail('resource(s) were provided, but no name was specified'),
    };
  }
  return { ok: true, kind, names: rest };
}

/** The RESTMapper's refusal of a word it cannot resolve. */
export function unknownType(word: string): CommandResult {
  return fail(`error: the server doesn't have a resource type "${word}"\n`);
}

/** What kubectl's name printer writes for a kind: `pod`, `service`, `deployment.apps`, `node`. */
export function kindString(kind: Kind): string {
  switch (kind) {
    case 'Pod':
      return 'pod';
    case 'Service':
      return 'service';
    case 'Node':
      return 'node';
    case 'EndpointSlice':
      return 'endpointslice.discovery.k8s.io';
    case 'Deployment':
      return 'deployment.apps';
    case 'DaemonSet':
      return 'daemonset.apps';
  }
}
