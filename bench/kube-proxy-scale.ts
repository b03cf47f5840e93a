// kube-proxy's iptables mode on every node of a large cluster: each node's namespace gets kube-proxy's first sync
// (canary chains, jump rules, then `iptables-restore -w 5 -W 100000 --noflush --counters` of the rendered ruleset)
// through exec, as on a real node.
//
// Run: npm run bench -- kube-proxy-scale   (or node --expose-gc --import tsx bench/kube-proxy-scale.ts
// [--nodes N] [--services S]); prints one JSON document on stdout.
//
// Reports: time to build the Services and EndpointSlices (the control plane), to render every node's ruleset, to
// load them all; how many distinct texts the nodes got; heap used by the loaded namespaces after a full gc
// (v8.getHeapStatistics, run node with --expose-gc), per node; the rendered text's size.

import { getHeapStatistics } from 'node:v8';
import { IptablesProxier } from '../src/k8s/kube-proxy/iptables/proxier.ts';
import { Simulation } from '../src/netns/simulation.ts';
import { runArgv } from '../src/tools/exec.ts';
import { buildCluster } from './support/kube-cluster.ts';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

const NODES = option('--nodes', 100);
const SERVICES = option('--services', 1000);

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run node with --expose-gc');

/** Heap in use after a full collection, and the typed arrays' backing stores (outside the heap). */
function heapUsed(): number {
  collect!();
  collect!();
  return getHeapStatistics().used_heap_size;
}

const arrayBuffers = (): number => process.memoryUsage().arrayBuffers;

const ms = (from: bigint): number => Number((process.hrtime.bigint() - from) / 1000n) / 1000;

const started = process.hrtime.bigint();
const cluster = buildCluster({ nodes: NODES, services: SERVICES });
const controlPlaneMs = ms(started);

const proxier = new IptablesProxier();
const sim = new Simulation();
const before = heapUsed();
const buffersBefore = arrayBuffers();
let renderNs = 0n;
let loadNs = 0n;
let textBytes = 0;
const fingerprints = new Set<string>();
cluster.views.forEach((view, i) => {
  let at = process.hrtime.bigint();
  const commands = proxier.sync(`node-${i}`, view, true);
  renderNs += process.hrtime.bigint() - at;
  const text = commands[commands.length - 1]!.stdin!;
  textBytes += text.length;
  fingerprints.add(`${text.length}:${hashOf(text)}`);
  at = process.hrtime.bigint();
  const ns = sim.addNamespace(`node-${i}`);
  for (const command of commands) {
    const argv = command.argv.map((word) => {
      if (typeof word !== 'string') throw new Error('kube-proxy commands are plain words');
      return word;
    });
    const result = runArgv(ns, argv, command.stdin ?? '');
    if (result.exitCode !== 0) throw new Error(`${command.argv.join(' ')}: ${result.stderr}`);
  }
  loadNs += process.hrtime.bigint() - at;
});
const renderMs = Number(renderNs / 1000n) / 1000;
const loadMs = Number(loadNs / 1000n) / 1000;
const after = heapUsed();
const buffersAfter = arrayBuffers();

function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const rules = (() => {
  const ns = sim.namespace('node-0');
  let count = 0;
  for (const table of ns.netfilter.store.ruleset.tables)
    for (const chain of table.chains.values()) count += chain.rules.length;
  return count;
})();

const report = {
  benchmark: 'kube-proxy-scale',
  node: process.version,
  nodes: NODES,
  services: SERVICES,
  distinctTexts: fingerprints.size,
  textBytesPerNode: Math.round(textBytes / NODES),
  rulesPerNode: rules,
  controlPlaneMs: Math.round(controlPlaneMs),
  renderMs: Math.round(renderMs),
  loadMs: Math.round(loadMs),
  buildMs: Math.round(renderMs + loadMs),
  heapBytes: after - before,
  heapBytesPerNode: Math.round((after - before) / NODES),
  arrayBufferBytesPerNode: Math.round((buffersAfter - buffersBefore) / NODES),
  renderCache: { hits: proxier.renders.hits, misses: proxier.renders.misses },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
