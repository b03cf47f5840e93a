// `kubectl get TYPE [NAME...] [-n NS] [-A] [-o wide|name|json|yaml] [-l SELECTOR] [--no-headers]` over the store, in
// kubectl v1.31's words. No -o jsonpath/custom-columns/go-template, no --watch, no set-based selectors, one type at a time.

import { type CommandResult, fail, unsupported } from '../../../tools/result.ts';
import { isNamespaced, type Kind, type KubeObject } from '../../objects.ts';
import { RESOURCE_NAMES } from '../../store.ts';
import { type ClusterCommandContext, KIND_NODE_INFO } from '../context.ts';
import { type FlagSpec, parseFlags } from '../flags.ts';
import { formatTable, KUBECTL_TABLE } from '../table.ts';
import { apiList, apiObject, printJson } from './api-json.ts';
import { COLUMNS, NAME_PREFIX, printRow } from './printers.ts';
import { flagError } from './usage.ts';
import { printYaml } from './yaml.ts';

const GET_FLAGS: readonly FlagSpec[] = [
  { long: 'namespace', short: 'n', takesValue: true },
  { long: 'all-namespaces', short: 'A', takesValue: false },
  { long: 'output', short: 'o', takesValue: true },
  { long: 'selector', short: 'l', takesValue: true },
  { long: 'no-headers', takesValue: false },
  { long: 'watch', short: 'w', takesValue: false },
  { long: 'show-labels', takesValue: false },
  { long: 'sort-by', takesValue: true },
  { long: 'field-selector', takesValue: true },
];

/** The names kubectl's discovery resolves for each kind (plural, singular, short names). */
const RESOURCE_ALIASES: Readonly<Record<string, Kind>> = {
  pods: 'Pod',
  pod: 'Pod',
  po: 'Pod',
  services: 'Service',
  service: 'Service',
  svc: 'Service',
  nodes: 'Node',
  node: 'Node',
  no: 'Node',
  endpointslices: 'EndpointSlice',
  endpointslice: 'EndpointSlice',
  'endpointslices.discovery.k8s.io': 'EndpointSlice',
  deployments: 'Deployment',
  deployment: 'Deployment',
  deploy: 'Deployment',
  'deployments.apps': 'Deployment',
  daemonsets: 'DaemonSet',
  daemonset: 'DaemonSet',
  ds: 'DaemonSet',
  'daemonsets.apps': 'DaemonSet',
};

const OUTPUT_FORMATS =
  'custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml';

/** Resolves a resource word (`po`, `svc`, `pods`) to its kind. */
export function resolveKind(word: string): Kind | undefined {
  return Object.hasOwn(RESOURCE_ALIASES, word.toLowerCase())
    ? RESOURCE_ALIASES[word.toLowerCase()]
    : undefined;
}

export function kubectlGet(ctx: ClusterCommandContext, argv: readonly string[]): CommandResult {
  const parsed = parseFlags(argv, GET_FLAGS, { interspersed: true });
  if (!parsed.ok) return flagError('get', parsed.message);
  const { values, bools, args } = parsed.flags;
  for (const long of ['watch', 'show-labels', 'sort-by', 'field-selector']) {
    if (values.has(long) || bools.has(long)) return unsupported('kubectl get', `--${long}`);
  }
  const [typeWord, ...names] = [...args, ...(parsed.flags.afterDash ?? [])];
  if (typeWord === undefined) {
    return fail(
      'You must specify the type of resource to get. Use "kubectl api-resources" for a complete list of supported resources.\n\n' +
        'error: Required resource not specified.\n' +
        'Use "kubectl explain <resource>" for a detailed description of that resource (e.g. kubectl explain pods).\n' +
        "See 'kubectl get -h' for help and examples\n",
    );
  }
  if (typeWord.includes(',')) return unsupported('kubectl get', 'several resource types');
  let typeName = typeWord;
  if (typeWord.includes('/')) {
    typeName = typeWord.slice(0, typeWord.indexOf('/'));
    names.unshift(typeWord.slice(typeWord.indexOf('/') + 1));
  }
  const kind = resolveKind(typeName);
  if (kind === undefined) return fail(`error: the server doesn't have a resource type "${typeName}"\n`);
  const output = values.get('output') ?? '';
  if (
    output.startsWith('jsonpath') ||
    output.startsWith('custom-columns') ||
    output.startsWith('go-template')
  ) {
    return unsupported('kubectl get', `-o ${output}`);
  }
  if (!['', 'wide', 'name', 'json', 'yaml'].includes(output)) {
    return fail(
      `error: unable to match a printer suitable for the output format "${output}", allowed formats are: ${OUTPUT_FORMATS}\n`,
    );
  }
  const selector = parseSelector(values.get('selector'));
  if (!selector.ok) return fail(`error: ${selector.message}\n`);
  const allNamespaces = bools.has('all-namespaces') && names.length === 0;
  const namespace = values.get('namespace') ?? 'default';
  const namespaced = isNamespaced(kind);

  let objects: KubeObject[];
  let stderr = '';
  if (names.length > 0) {
    objects = [];
    for (const name of names) {
      const object = ctx.store.get(kind, namespaced ? namespace : '', name);
      if (object === undefined)
        stderr += `Error from server (NotFound): ${RESOURCE_NAMES[kind]} "${name}" not found\n`;
      else objects.push(object);
    }
  } else {
    objects = ctx.store
      .list(kind, namespaced && !allNamespaces ? namespace : undefined)
      .filter((object) => selector.matches(object.metadata.labels));
    // The API server lists in key order (namespace, then name).
    objects.sort((a, b) =>
      a.metadata.namespace === b.metadata.namespace
        ? compare(a.metadata.name, b.metadata.name)
        : compare(a.metadata.namespace, b.metadata.namespace),
    );
  }
  const exitCode = stderr === '' ? 0 : 1;
  if (output === 'json' || output === 'yaml') {
    if (objects.length === 0 && names.length > 0) return fail(stderr, exitCode);
    const info = ctx.nodeInfo ?? KIND_NODE_INFO;
    const items = objects.map((object) => apiObject(object, ctx.epochMs ?? 0, info));
    // printGeneric: one object named alone prints as itself, anything else as a List.
    const document = names.length === 1 && items.length === 1 ? items[0]! : apiList(items);
    return { stdout: output === 'json' ? printJson(document) : printYaml(document), stderr, exitCode };
  }
  if (objects.length === 0) {
    if (names.length > 0) return fail(stderr, exitCode);
    const none =
      allNamespaces || !namespaced
        ? 'No resources found\n'
        : `No resources found in ${namespace} namespace.\n`;
    return { stdout: '', stderr: none, exitCode: 0 };
  }
  if (output === 'name') {
    return {
      stdout: objects.map((o) => `${NAME_PREFIX[kind]}/${o.metadata.name}\n`).join(''),
      stderr,
      exitCode,
    };
  }
  const wide = output === 'wide';
  const withNamespace = allNamespaces && namespaced;
  const columns = COLUMNS[kind];
  const rows: string[][] = [];
  if (!bools.has('no-headers')) {
    rows.push([...(withNamespace ? ['NAMESPACE'] : []), ...columns.headers, ...(wide ? columns.wide : [])]);
  }
  const options = { now: ctx.now(), wide, nodeInfo: ctx.nodeInfo ?? KIND_NODE_INFO };
  for (const object of objects) {
    rows.push([...(withNamespace ? [object.metadata.namespace] : []), ...printRow(object, options)]);
  }
  return { stdout: formatTable(rows, KUBECTL_TABLE), stderr, exitCode };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Selector =
  | { readonly ok: true; readonly matches: (labels: Readonly<Record<string, string>>) => boolean }
  | { readonly ok: false; readonly message: string };

/** Equality-based label selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`, comma-separated), as labels.Parse reads them. */
function parseSelector(text: string | undefined): Selector {
  if (text === undefined || text === '') return { ok: true, matches: () => true };
  const tests: ((labels: Readonly<Record<string, string>>) => boolean)[] = [];
  for (const term of text.split(',')) {
    const t = term.trim();
    const m = /^(!?)([A-Za-z0-9._/-]+)\s*(?:(==|=|!=)\s*([A-Za-z0-9._-]*))?$/.exec(t);
    if (m === null)
      return { ok: false, message: `unable to parse requirement: found '${t}', expected: identifier` };
    const [, not, key, op, value] = m as unknown as [
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    if (not === '!' && op !== undefined)
      return {
        ok: false,
        message: `unable to parse requirement: found '${op}', expected: ',' or end of string`,
      };
    if (not === '!') tests.push((labels) => !Object.hasOwn(labels, key));
    else if (op === undefined) tests.push((labels) => Object.hasOwn(labels, key));
    else if (op === '!=') tests.push((labels) => labels[key] !== value);
    else tests.push((labels) => Object.hasOwn(labels, key) && labels[key] === value);
  }
  return { ok: true, matches: (labels) => tests.every((test) => test(labels)) };
}
