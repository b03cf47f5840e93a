// A scenario written as data (the YAML or JSON of `packetlab run FILE`, docs/scenario-file.schema.json): a kind-like
// cluster, pods (optionally serving HTTP), Services, traffic lines typed as at `packetlab shell`'s prompt, and checks
// (`reachable`, `sourceSeenAs`, `dropsAt`, `command`) computed from what ran. It gets the parsed object, never a file:
// validation names the path of every unknown key and bad value. Not here: Deployments, DaemonSets, load balancers.

import { httpServer } from '../app/http/server.ts';
import { DROP_REASONS, type DropReason } from '../core/drop-reason.ts';
import type { DropEvent } from '../core/trace.ts';
import { service } from '../k8s/api/builders.ts';
import { type CniName, cluster } from '../k8s/cluster.ts';
import type { ImageRunner } from '../k8s/kubelet/kubelet.ts';
import { ShellSession } from './shell-session.ts';
import { clusterWorld } from './shell-worlds.ts';
import { Story, type StoryResult } from './story.ts';

/** Where an error is in the document: keys and indexes from its root. */
export type LabPath = readonly (string | number)[];

export interface LabError {
  readonly path: LabPath;
  readonly message: string;
  /** The error is about the key that ends the path (an unknown key), not its value. */
  readonly key?: true;
}

const CNIS = ['kindnet', 'flannel-vxlan', 'flannel-host-gw'] as const;
const PROXIES = ['iptables', 'nftables', 'none'] as const;
const SERVICE_TYPES = ['ClusterIP', 'NodePort'] as const;
const POLICIES = ['Cluster', 'Local'] as const;

export interface LabCluster {
  readonly name: string;
  readonly workers: number;
  readonly cni: CniName;
  readonly kubeProxy: (typeof PROXIES)[number];
  readonly seed: string | undefined;
}

export interface LabPod {
  readonly name: string;
  readonly node: string;
  readonly ip: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** An HTTP server in the pod: its port and each path's body. */
  readonly http: { readonly port: number; readonly routes: Readonly<Record<string, string>> } | undefined;
}

export interface LabServicePort {
  readonly name: string | undefined;
  readonly port: number;
  readonly targetPort: number;
  readonly nodePort: number | undefined;
}

export interface LabService {
  readonly name: string;
  readonly type: (typeof SERVICE_TYPES)[number];
  readonly clusterIP: string | undefined;
  readonly selector: Readonly<Record<string, string>>;
  readonly ports: readonly LabServicePort[];
  readonly externalTrafficPolicy: (typeof POLICIES)[number] | undefined;
}

export type LabStep =
  | { readonly kind: 'say'; readonly text: string }
  | { readonly kind: 'run'; readonly line: string }
  | { readonly kind: 'sleep'; readonly duration: string };

/** Where a check's request starts: `host` (the Docker host), a node's name, or a pod's. */
export interface LabRequest {
  readonly from: string;
  /** `http://ADDRESS[:PORT]/PATH` (curl) or an address (one ping). */
  readonly to: string;
}

export type LabCheck =
  | {
      readonly kind: 'reachable';
      readonly name: string | undefined;
      readonly request: LabRequest;
      readonly expect: boolean;
    }
  | {
      readonly kind: 'sourceSeenAs';
      readonly name: string | undefined;
      readonly request: LabRequest;
      readonly expect: string;
    }
  | {
      readonly kind: 'dropsAt';
      readonly name: string | undefined;
      readonly request: LabRequest;
      readonly netns: string;
      readonly reason: DropReason | undefined;
    }
  | {
      readonly kind: 'command';
      readonly name: string | undefined;
      readonly line: string;
      readonly contains: string | undefined;
      readonly exitCode: number | undefined;
    };

export interface Lab {
  readonly scenario: string | undefined;
  readonly cluster: LabCluster;
  readonly pods: readonly LabPod[];
  readonly services: readonly LabService[];
  readonly traffic: readonly LabStep[];
  readonly checks: readonly LabCheck[];
}

/** "pods[0].http.port". */
export function formatPath(path: LabPath): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
}

// ---- validation ------------------------------------------------------------------------------------------------

type Json = unknown;

class Reader {
  readonly errors: LabError[] = [];

  error(path: LabPath, message: string, key?: true): undefined {
    this.errors.push(key === undefined ? { path, message } : { path, message, key });
    return undefined;
  }

  /** An object with only `allowed` keys (each unknown key is an error); undefined when not an object. */
  object(value: Json, path: LabPath, allowed: readonly string[]): Record<string, Json> | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return this.error(path, `must be a mapping, got ${describe(value)}`);
    const record = value as Record<string, Json>;
    for (const key of Object.keys(record))
      if (!allowed.includes(key))
        this.error([...path, key], `unknown key (expected one of ${allowed.join(', ')})`, true);
    return record;
  }

  list(value: Json, path: LabPath): readonly Json[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.error(path, `must be a list, got ${describe(value)}`);
      return [];
    }
    return value;
  }

  string(value: Json, path: LabPath, required = false): string | undefined {
    if (value === undefined) return required ? this.error(path, 'is required') : undefined;
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string' || value === '')
      return this.error(path, `must be a non-empty string, got ${describe(value)}`);
    return value;
  }

  oneOf<T extends string>(value: Json, path: LabPath, choices: readonly T[]): T | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !choices.includes(value as T))
      return this.error(path, `must be one of ${choices.join(', ')}, got ${describe(value)}`);
    return value as T;
  }

  integer(value: Json, path: LabPath, min: number, max: number): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      return this.error(path, `must be an integer from ${min} to ${max}, got ${describe(value)}`);
    return value;
  }

  address(value: Json, path: LabPath): string | undefined {
    const text = this.string(value, path);
    if (text === undefined) return undefined;
    const parts = text.split('.');
    if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255))
      return this.error(path, `must be an IPv4 address, got ${describe(value)}`);
    return text;
  }

  labels(value: Json, path: LabPath): Record<string, string> {
    if (value === undefined) return {};
    const record = this.object(value, path, Object.keys((value ?? {}) as object));
    const labels: Record<string, string> = {};
    for (const [key, label] of Object.entries(record ?? {})) {
      const text = this.string(label, [...path, key], true);
      if (text !== undefined) labels[key] = text;
    }
    return labels;
  }
}

function describe(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value) ?? String(value);
}

function readCluster(r: Reader, value: Json): LabCluster {
  const path = ['cluster'];
  const record =
    value === undefined ? {} : (r.object(value, path, ['name', 'workers', 'cni', 'kubeProxy', 'seed']) ?? {});
  return {
    name: r.string(record['name'], [...path, 'name']) ?? 'kind',
    workers: r.integer(record['workers'], [...path, 'workers'], 0, 16) ?? 2,
    cni: r.oneOf(record['cni'], [...path, 'cni'], CNIS) ?? 'kindnet',
    kubeProxy: r.oneOf(record['kubeProxy'], [...path, 'kubeProxy'], PROXIES) ?? 'iptables',
    seed: r.string(record['seed'], [...path, 'seed']),
  };
}

function readPod(r: Reader, value: Json, path: LabPath): LabPod | undefined {
  const record = r.object(value, path, ['name', 'node', 'ip', 'labels', 'http']);
  if (record === undefined) return undefined;
  let http: LabPod['http'];
  if (record['http'] !== undefined) {
    const server = r.object(record['http'], [...path, 'http'], ['port', 'routes']);
    if (server !== undefined) {
      const routes = r.labels(server['routes'] ?? { '/': 'ok\n' }, [...path, 'http', 'routes']);
      http = { port: r.integer(server['port'], [...path, 'http', 'port'], 1, 65535) ?? 80, routes };
    }
  }
  const name = r.string(record['name'], [...path, 'name'], true);
  const node = r.string(record['node'], [...path, 'node'], true);
  if (name === undefined || node === undefined) return undefined;
  return {
    name,
    node,
    ip: record['ip'] === undefined ? undefined : r.address(record['ip'], [...path, 'ip']),
    labels: r.labels(record['labels'], [...path, 'labels']),
    http,
  };
}

function readService(r: Reader, value: Json, path: LabPath): LabService | undefined {
  const record = r.object(value, path, [
    'name',
    'type',
    'clusterIP',
    'selector',
    'ports',
    'externalTrafficPolicy',
  ]);
  if (record === undefined) return undefined;
  const ports: LabServicePort[] = [];
  const list = r.list(record['ports'], [...path, 'ports']);
  if (list.length === 0 && Array.isArray(record['ports']))
    r.error([...path, 'ports'], 'needs at least one port');
  if (record['ports'] === undefined) r.error([...path, 'ports'], 'is required');
  list.forEach((entry, i) => {
    const at = [...path, 'ports', i];
    const port = r.object(entry, at, ['name', 'port', 'targetPort', 'nodePort']);
    if (port === undefined) return;
    const number = r.integer(port['port'], [...at, 'port'], 1, 65535);
    if (number === undefined && port['port'] === undefined) r.error([...at, 'port'], 'is required');
    ports.push({
      name: r.string(port['name'], [...at, 'name']),
      port: number ?? 80,
      targetPort: r.integer(port['targetPort'], [...at, 'targetPort'], 1, 65535) ?? number ?? 80,
      nodePort: r.integer(port['nodePort'], [...at, 'nodePort'], 30000, 32767),
    });
  });
  const name = r.string(record['name'], [...path, 'name'], true);
  if (name === undefined) return undefined;
  return {
    name,
    type: r.oneOf(record['type'], [...path, 'type'], SERVICE_TYPES) ?? 'ClusterIP',
    clusterIP:
      record['clusterIP'] === undefined ? undefined : r.address(record['clusterIP'], [...path, 'clusterIP']),
    selector: r.labels(record['selector'], [...path, 'selector']),
    ports,
    externalTrafficPolicy: r.oneOf(
      record['externalTrafficPolicy'],
      [...path, 'externalTrafficPolicy'],
      POLICIES,
    ),
  };
}

function readStep(r: Reader, value: Json, path: LabPath): LabStep | undefined {
  const record = r.object(value, path, ['say', 'run', 'sleep']);
  if (record === undefined) return undefined;
  const keys = Object.keys(record);
  if (keys.length !== 1) return r.error(path, 'needs exactly one of say, run, sleep');
  const [key] = keys as ['say' | 'run' | 'sleep'];
  const text = r.string(record[key], [...path, key], true);
  if (text === undefined) return undefined;
  switch (key) {
    case 'say':
      return { kind: 'say', text };
    case 'run':
      return { kind: 'run', line: text };
    case 'sleep':
      if (!/^(\d+(\.\d*)?|\.\d+)[smhd]?$/.test(text))
        return r.error([...path, key], `must be a duration in seconds (2, 0.5s, 1m), got ${describe(text)}`);
      return { kind: 'sleep', duration: text };
    default:
      return key satisfies never;
  }
}

function readRequest(r: Reader, value: Record<string, Json>, path: LabPath): LabRequest | undefined {
  const from = r.string(value['from'], [...path, 'from'], true);
  const to = r.string(value['to'], [...path, 'to'], true);
  if (to !== undefined && !/^http:\/\/[^/\s]+(\/\S*)?$/.test(to) && !/^\d{1,3}(\.\d{1,3}){3}$/.test(to))
    return r.error([...path, 'to'], `must be an http:// URL or an IPv4 address, got ${describe(to)}`);
  return from === undefined || to === undefined ? undefined : { from, to };
}

const CHECK_KINDS = ['reachable', 'sourceSeenAs', 'dropsAt', 'command'] as const;

function readCheck(r: Reader, value: Json, path: LabPath): LabCheck | undefined {
  const record = r.object(value, path, ['name', ...CHECK_KINDS]);
  if (record === undefined) return undefined;
  const name = r.string(record['name'], [...path, 'name']);
  const kinds = CHECK_KINDS.filter((kind) => record[kind] !== undefined);
  if (kinds.length !== 1) return r.error(path, `needs exactly one of ${CHECK_KINDS.join(', ')}`);
  const kind = kinds[0]!;
  const at = [...path, kind];
  switch (kind) {
    case 'reachable': {
      const body = r.object(record[kind], at, ['from', 'to', 'expect']);
      if (body === undefined) return undefined;
      const expect = body['expect'] ?? true;
      if (typeof expect !== 'boolean')
        r.error([...at, 'expect'], `must be true or false, got ${describe(expect)}`);
      const request = readRequest(r, body, at);
      return request && { kind, name, request, expect: expect === true };
    }
    case 'sourceSeenAs': {
      const body = r.object(record[kind], at, ['from', 'to', 'expect']);
      if (body === undefined) return undefined;
      const expect =
        body['expect'] === undefined
          ? r.error([...at, 'expect'], 'is required')
          : r.address(body['expect'], [...at, 'expect']);
      const request = readRequest(r, body, at);
      if (request !== undefined && !request.to.startsWith('http://'))
        r.error([...at, 'to'], 'must be an http:// URL (the server that logs the source)');
      return request && expect !== undefined ? { kind, name, request, expect } : undefined;
    }
    case 'dropsAt': {
      const body = r.object(record[kind], at, ['from', 'to', 'netns', 'reason']);
      if (body === undefined) return undefined;
      const netns = r.string(body['netns'], [...at, 'netns'], true);
      const reason = r.oneOf(body['reason'], [...at, 'reason'], DROP_REASONS);
      const request = readRequest(r, body, at);
      return request && netns !== undefined ? { kind, name, request, netns, reason } : undefined;
    }
    case 'command': {
      const body = r.object(record[kind], at, ['run', 'contains', 'exitCode']);
      if (body === undefined) return undefined;
      const line = r.string(body['run'], [...at, 'run'], true);
      const contains = r.string(body['contains'], [...at, 'contains']);
      const exitCode = r.integer(body['exitCode'], [...at, 'exitCode'], 0, 255);
      return line === undefined ? undefined : { kind, name, line, contains, exitCode };
    }
    default:
      return kind satisfies never;
  }
}

/** Checks the parsed document against the format; every problem with its path. */
export function readLab(
  document: Json,
): { readonly ok: true; readonly lab: Lab } | { readonly ok: false; readonly errors: LabError[] } {
  const r = new Reader();
  const root = r.object(document, [], ['scenario', 'cluster', 'pods', 'services', 'traffic', 'checks']);
  if (root === undefined)
    return {
      ok: false,
      errors: [{ path: [], message: `the document must be a mapping, got ${describe(document)}` }],
    };
  const keep = <T>(items: readonly (T | undefined)[]): T[] =>
    items.filter((item): item is T => item !== undefined);
  const lab: Lab = {
    scenario: r.string(root['scenario'], ['scenario']),
    cluster: readCluster(r, root['cluster']),
    pods: keep(r.list(root['pods'], ['pods']).map((pod, i) => readPod(r, pod, ['pods', i]))),
    services: keep(
      r.list(root['services'], ['services']).map((svc, i) => readService(r, svc, ['services', i])),
    ),
    traffic: keep(r.list(root['traffic'], ['traffic']).map((step, i) => readStep(r, step, ['traffic', i]))),
    checks: keep(r.list(root['checks'], ['checks']).map((check, i) => readCheck(r, check, ['checks', i]))),
  };
  return r.errors.length === 0 ? { ok: true, lab } : { ok: false, errors: r.errors };
}

// ---- running ---------------------------------------------------------------------------------------------------

/** The image a pod with `http` runs: one per pod, so each has its own routes and access log. */
const httpImage = (pod: string) => `packetlab.dev/http/${pod}:1`;

/** A build error (a pod on a node the cluster lacks, an address taken) as a thrown Error naming the path. */
function buildError(path: LabPath, message: string): Error {
  return new Error(`${formatPath(path)}: ${message}`);
}

/** Builds the cluster, runs the traffic, computes the checks. Throws (naming the path) when the cluster refuses. */
export function runLab(
  lab: Lab,
  options: { readonly seed: string | undefined; readonly name: string },
): StoryResult {
  const seed = options.seed ?? lab.cluster.seed ?? 'packetlab';
  const accessLogs = new Map<string, string[]>();
  const images = new Map<string, ImageRunner>();
  for (const pod of lab.pods) {
    if (pod.http === undefined) continue;
    const { port, routes } = pod.http;
    images.set(httpImage(pod.name), (ns, object) => {
      const log: string[] = [];
      accessLogs.set(object.metadata.name, log);
      const server = httpServer(ns, {
        port,
        routes: Object.fromEntries(Object.entries(routes).map(([path, body]) => [path, { body }])),
        onLog: (line) => log.push(line),
      });
      return { stop: () => server.close() };
    });
  }
  const c = cluster({
    name: lab.cluster.name,
    workers: lab.cluster.workers,
    cni: lab.cluster.cni,
    kubeProxy: lab.cluster.kubeProxy,
    seed,
    images,
  });
  lab.pods.forEach((pod, i) => {
    if (c.node(pod.node) === undefined)
      throw buildError(
        ['pods', i, 'node'],
        `no node ${pod.node} (nodes: ${c
          .nodeList()
          .map((n) => n.name)
          .join(', ')})`,
      );
    const created = c.createPod({
      name: pod.name,
      node: pod.node,
      ...(pod.ip === undefined ? {} : { ip: pod.ip }),
      labels: pod.labels,
      ...(pod.http === undefined
        ? {}
        : {
            image: httpImage(pod.name),
            ports: [{ name: 'http', containerPort: pod.http.port, protocol: 'TCP' as const }],
          }),
    });
    if (!created.ok) throw buildError(['pods', i], created.error.message);
  });
  lab.services.forEach((svc, i) => {
    const created = c.store.create<'Service'>(
      service({
        name: svc.name,
        type: svc.type,
        ...(svc.clusterIP === undefined ? {} : { clusterIP: svc.clusterIP }),
        ...(svc.externalTrafficPolicy === undefined
          ? {}
          : { externalTrafficPolicy: svc.externalTrafficPolicy }),
        selector: { ...svc.selector },
        ports: svc.ports.map((port, p) => ({
          name: port.name ?? (svc.ports.length === 1 ? '' : `port-${p}`),
          port: port.port,
          targetPort: port.targetPort,
          ...(port.nodePort === undefined ? {} : { nodePort: port.nodePort }),
        })),
      }),
    );
    if (!created.ok) throw buildError(['services', i], created.error.message);
  });
  // Kubelets start the pods, the endpoint controller publishes them, kube-proxy's next sync renders them.
  c.sim.run(2e9);

  const story = new Story(lab.scenario ?? options.name, seed);
  story.attach(c.sim);
  story.say(
    `cluster ${lab.cluster.name}: ${c.nodeList().length} nodes, ${lab.cluster.cni}, kube-proxy ${lab.cluster.kubeProxy}`,
  );
  const session = new ShellSession(clusterWorld(c, ''));
  const type = (line: string) => {
    const ran = session.runToEnd(line);
    story.record('$', line, { stdout: ran.text, stderr: '', exitCode: ran.exitCode });
    return ran;
  };
  for (const step of lab.traffic) {
    if (step.kind === 'say') story.say(step.text);
    else if (step.kind === 'run') type(step.line);
    else type(`sleep ${step.duration}`);
  }
  const pods = new Set(lab.pods.map((pod) => pod.name));
  const nodes = new Set(c.nodeList().map((node) => node.name));
  /** The line that makes the request from where it starts. */
  const request = ({ from, to }: LabRequest, path: LabPath): string => {
    const tool = to.startsWith('http://')
      ? `curl -s -m 2 -o /dev/null -w '%{http_code}\\n' ${to}`
      : `ping -c 1 -W 1 ${to}`;
    if (from === 'host') return tool;
    if (nodes.has(from)) return `docker exec ${from} ${tool}`;
    if (pods.has(from)) return `kubectl exec ${from} -- ${tool}`;
    throw buildError([...path, 'from'], `no pod or node ${from} (nor host)`);
  };
  const answered = (line: string, ran: { text: string; exitCode: number }) =>
    line.includes('curl ') ? ran.exitCode === 0 && /^[23]\d\d$/m.test(ran.text) : ran.exitCode === 0;
  lab.checks.forEach((check, i) => {
    const at = ['checks', i, check.kind];
    switch (check.kind) {
      case 'reachable': {
        const line = request(check.request, at);
        const ran = type(line);
        const ok = answered(line, ran);
        story.expectThat(
          check.name ??
            `${check.request.from} ${check.expect ? 'reaches' : 'does not reach'} ${check.request.to}`,
          check.expect ? 'answered' : 'no answer',
          `${ok ? 'answered' : 'no answer'} (exit ${ran.exitCode})`,
          ok === check.expect,
        );
        break;
      }
      case 'sourceSeenAs': {
        const before = new Map([...accessLogs].map(([pod, log]) => [pod, log.length]));
        type(request(check.request, at));
        const seen = [...accessLogs].flatMap(([pod, log]) =>
          log.slice(before.get(pod) ?? 0).map((line) => line.split(' ')[0]!),
        );
        story.expectThat(
          check.name ??
            `the server sees ${check.request.from}'s request to ${check.request.to} come from ${check.expect}`,
          check.expect,
          seen.length === 0 ? 'no request logged' : seen.join(', '),
          seen.length > 0 && seen.every((source) => source === check.expect),
        );
        break;
      }
      case 'dropsAt': {
        const drops: string[] = [];
        const onDrop = (event: DropEvent) => drops.push(`${event.netns} ${event.reason}`);
        c.sim.bus.on('drop', onDrop);
        type(request(check.request, at));
        c.sim.bus.off('drop', onDrop);
        const wanted = `${check.netns}${check.reason === undefined ? '' : ` ${check.reason}`}`;
        const distinct = [...new Set(drops)];
        story.expectThat(
          check.name ?? `${check.request.from}'s request to ${check.request.to} is dropped in ${wanted}`,
          wanted,
          distinct.length === 0 ? 'no drop' : distinct.join(', '),
          distinct.some((drop) => drop === wanted || drop.startsWith(`${wanted} `)),
        );
        break;
      }
      case 'command': {
        const ran = type(check.line);
        const expected = [
          ...(check.contains === undefined ? [] : [`output contains ${JSON.stringify(check.contains)}`]),
          `exit ${check.exitCode ?? 0}`,
        ].join(', ');
        const contains = check.contains === undefined || ran.text.includes(check.contains);
        story.expectThat(
          check.name ?? check.line,
          expected,
          `exit ${ran.exitCode}${contains ? '' : ', output without it'}`,
          contains && ran.exitCode === (check.exitCode ?? 0),
        );
        break;
      }
      default:
        check satisfies never;
    }
  });
  return story.result();
}
