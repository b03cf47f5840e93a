// A kubemark-size cluster in one process, built through the k8s layer: nodes joining with kubelet, kindnet and kube-proxy, pods started by their kubelets through CNI, Services turned into EndpointSlices by the control plane, kube-proxy's sync on every node; then a cross-node ClusterIP request traced through it.
//
// Run: npm run bench -- scale [--nodes N] [--services S] [--pods-per-node P] [--mode iptables|nftables]
// (default 200 nodes x 1,000 Services, 30 pods per node, iptables mode; the size is --nodes 5000
// --services 10000, which needs NODE_OPTIONS=--max-old-space-size=8192 since V8's default heap limit here is 4 GiB).
//
// Reports each phase's build time and the heap after it (after a full gc), the process's resident memory at the end,
// heap bytes per node (the nodes phase over the nodes), per pod (the pods phase over the pods), per Service (the
// Services and kube-proxy phases over the Services: their EndpointSlices and every node's rules for them), the
// lines `iptables-save` (or `nft list ruleset`) prints on one worker, and the trace of `curl` from a pod on the
// control-plane node to Service 0, whose three backends are on other nodes: the suite fails if the request does not
// reach a backend. Goals: the issue's, resident memory <= 8 GiB and the build <= 10 minutes (absolute figures: read
// them at the full size, with the machine line). No timed cases: the build is one long operation.
//
// History (bench/kube-proxy-scale.ts, which this suite replaces for the whole-cluster figure): loading each node's
// first sync through exec showed 25 MB of rules per node at 1,000 Services and that nodes of a Cluster-policy
// cluster render one identical text, whence kube-proxy's render cache (kube-proxy/iptables/render-cache.ts).

import { defineSuite, type SuiteOptions } from '../../src/cli/bench/suite.ts';
import type { StepEvent } from '../../src/core/trace.ts';
import { exec } from '../../src/tools/exec.ts';
import { type BuildPhase, buildKindCluster } from '../support/kube-cluster.ts';

const MiB = 2 ** 20;

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return;
  gc();
  gc();
}

function heapAfterGc(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

function size(options: SuiteOptions, key: string, quick: number, full: number): number {
  const given = options.args[key];
  if (given !== undefined && given !== '') {
    const value = Number(given);
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`scale: --${key} wants a whole number, not ${given}`);
    return value;
  }
  return options.quick ? quick : full;
}

/** `pods [########------------] 1234/6000` */
function bar(phase: string, done: number, total: number): string {
  const width = 24;
  const filled = total === 0 ? width : Math.round((width * done) / total);
  return `scale: ${phase.padEnd(15)} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
}

export default defineSuite({
  name: 'scale',
  title: 'a kind cluster of N nodes, 30 pods per node, S Services of 3 endpoints, kube-proxy on every node',
  build(options) {
    const nodes = Math.max(2, size(options, 'nodes', 3, 200));
    const services = size(options, 'services', 10, 1000);
    const podsPerNode = size(options, 'pods-per-node', 4, 30);
    const mode = options.args.mode ?? 'iptables';
    if (mode !== 'iptables' && mode !== 'nftables')
      throw new Error(`scale: --mode iptables|nftables, not ${mode}`);
    const baseHeap = heapAfterGc();
    const built = buildKindCluster(
      { nodes, services, podsPerNode, mode },
      {
        measure: heapAfterGc,
        ...(options.progress === undefined
          ? {}
          : { progress: (phase, done, total) => options.progress!(bar(phase, done, total)) }),
      },
    );
    const { cluster, phases } = built;
    const rss = process.memoryUsage().rss;
    const phase = (name: BuildPhase['name']): BuildPhase => phases.find((p) => p.name === name)!;
    const heapBefore = (name: BuildPhase['name']): number => {
      const at = phases.findIndex((p) => p.name === name);
      return at === 0 ? baseHeap : phases[at - 1]!.heapUsed;
    };
    const grown = (name: BuildPhase['name']): number => phase(name).heapUsed - heapBefore(name);
    const buildMs = phases.reduce((sum, p) => sum + p.ms, 0);

    // One worker's whole ruleset, as a user would dump it.
    const worker = cluster.nodeList()[1]!;
    const dump = exec(worker.ns, mode === 'iptables' ? 'iptables-save' : 'nft list ruleset');
    if (dump.exitCode !== 0) throw new Error(`scale: ruleset dump on ${worker.name}: ${dump.stderr}`);
    const rulesetLines = dump.stdout.split('\n').length - 1;

    // The cross-node ClusterIP request, every step of the packet path heard on the trace bus.
    const steps: string[] = [];
    const namespaces = new Set<string>();
    const listener = (event: StepEvent): void => {
      steps.push(event.step);
      namespaces.add(event.netns);
    };
    cluster.sim.bus.on('step', listener);
    const request = exec(built.client.namespace, `curl -s -m 5 http://${built.tracedService.clusterIP}/`);
    cluster.sim.bus.off('step', listener);
    const backend = request.stdout.trim();
    const backendNs = cluster.podNamespace('default', backend);
    if (request.exitCode !== 0 || backendNs === undefined)
      throw new Error(
        `scale: curl ${built.tracedService.clusterIP} from ${built.client.node}: ${request.stderr}`,
      );
    const backendNode = cluster.store.get('Pod', 'default', backend)?.spec.nodeName;
    if (
      backendNode === built.client.node ||
      !namespaces.has(backendNs.name) ||
      !namespaces.has(built.client.node)
    )
      throw new Error(`scale: the traced request did not cross from ${built.client.node} to ${backend}`);

    const servicesGrown = grown('services') + grown('kube-proxy sync');
    return {
      cases: [],
      metrics: [
        { name: 'nodes', value: nodes, unit: 'nodes' },
        { name: 'pods', value: built.pods, unit: 'pods' },
        { name: 'services', value: services, unit: 'Services' },
        ...phases.map((p) => ({ name: `build: ${p.name}`, value: Math.round(p.ms), unit: 'ms' })),
        { name: 'build', value: Math.round(buildMs), unit: 'ms' },
        { name: 'resident memory', value: Math.round(rss / MiB), unit: 'MiB' },
        { name: 'heap after gc', value: Math.round((phases.at(-1)!.heapUsed - baseHeap) / MiB), unit: 'MiB' },
        { name: 'heap per node', value: Math.round(grown('nodes') / nodes), unit: 'bytes/node' },
        { name: 'heap per pod', value: Math.round(grown('pods') / built.pods), unit: 'bytes/pod' },
        {
          name: 'heap per Service',
          value: Math.round(servicesGrown / Math.max(1, services)),
          unit: 'bytes/Service',
        },
        {
          name: 'heap per Service per node',
          value: Math.round(servicesGrown / Math.max(1, services) / nodes),
          unit: 'bytes',
        },
        {
          name:
            mode === 'iptables' ? 'iptables-save lines on a worker' : 'nft list ruleset lines on a worker',
          value: rulesetLines,
          unit: 'lines',
        },
        { name: 'traced request: steps', value: steps.length, unit: 'steps' },
        { name: 'traced request: namespaces reached', value: namespaces.size, unit: 'namespaces' },
      ],
      goals: [
        {
          name: 'resident memory <= 8 GiB',
          value: (results) => results.metric('resident memory'),
          op: '<=',
          target: 8192,
        },
        {
          name: 'build <= 10 minutes',
          value: (results) => results.metric('build'),
          op: '<=',
          target: 600_000,
        },
      ],
    };
  },
});
