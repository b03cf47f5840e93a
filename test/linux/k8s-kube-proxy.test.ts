// The cluster plan of src/k8s (clusterPlan) with every node's kube-proxy, for bridge/Flannel VXLAN and kindnet, in
// iptables and nftables modes, on real namespaces and on packetlab. The Services and EndpointSlices come from a
// cluster() whose control plane made them from the same pods (the EndpointSlice controller's slices); the rulesets
// are packetlab's own renderings, loaded with the first sync's commands and followed by kube-proxy's conntrack
// cleanup. UDP traffic: a NodePort Local on the node without a local endpoint (dropped), ClusterIP across nodes and
// on the same node, NodePort Cluster from outside (masqueraded, --random-fully) and Local (client kept), a pod
// calling its own Service (hairpin), then an endpoint replaced while a client keeps its source port: the resync and
// the cleanup's `conntrack -D` (compared too) send its next datagram to the new endpoint on both sides, and without
// the cleanup the stale entry keeps it on the old one. `conntrack -L` and rule counters on both workers compared.

import { describe, expect, it } from 'vitest';
import { service } from '../../src/k8s/api/builders.ts';
import { cluster } from '../../src/k8s/cluster.ts';
import { clusterPlan, kubeProxyResync, type PlanKubeProxy } from '../../src/k8s/cluster-plan.ts';
import type { Cni } from '../../src/k8s/cni/cni.ts';
import { FlannelVxlan } from '../../src/k8s/cni/flannel.ts';
import { Kindnet } from '../../src/k8s/cni/kindnet.ts';
import { IptablesProxier } from '../../src/k8s/kube-proxy/iptables/proxier.ts';
import { NftablesProxier } from '../../src/k8s/kube-proxy/nftables/proxier.ts';
import type { Proxier } from '../../src/k8s/kube-proxy/proxier.ts';
import type { EndpointSlice, Service } from '../../src/k8s/objects.ts';
import { CONNTRACK_TIMEOUT, type Normaliser, type Tolerance } from './compare.ts';
import { differential, outputOf } from './harness.ts';
import type { Observed } from './observed.ts';
import { ScenarioBuilder } from './scenario.ts';
import { shortNodeNs } from './topologies.ts';

const PODS = [
  { name: 'diag', node: 'formation-worker', address: '10.244.1.5' },
  { name: 'sigb', node: 'formation-worker', address: '10.244.1.9' },
  { name: 'siga', node: 'formation-worker2', address: '10.244.2.7' },
] as const;

/** Which pods carry the `flux` label: the endpoint the last case replaces. */
type FluxEndpoint = 'siga' | 'sigb';

/**
 * The API objects a cluster's control plane makes for the pods and four UDP Services: `signalements` (NodePort
 * Cluster, endpoint siga), `local` (NodePort Local, endpoint sigb), `flux` (ClusterIP, endpoint `flux`).
 */
function apiObjects(flux: FluxEndpoint): { services: Service[]; endpointSlices: EndpointSlice[] } {
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: 'kindnet',
    kubeProxy: 'none',
    seed: 'k8s-kube-proxy',
  });
  for (const pod of PODS) {
    const labels: Record<string, string> = { app: pod.name };
    if (pod.name === flux) labels.flux = 'yes';
    const created = c.createPod({ name: pod.name, node: pod.node, ip: pod.address, labels });
    if (!created.ok) throw new Error(created.error.message);
  }
  const services = [
    service({
      name: 'signalements',
      type: 'NodePort',
      clusterIP: '10.96.40.12',
      ports: [{ name: 'udp', port: 80, targetPort: 8000, nodePort: 30080, protocol: 'UDP' }],
      selector: { app: 'siga' },
    }),
    service({
      name: 'local',
      type: 'NodePort',
      clusterIP: '10.96.40.13',
      externalTrafficPolicy: 'Local',
      ports: [{ name: 'udp', port: 81, targetPort: 8001, nodePort: 30081, protocol: 'UDP' }],
      selector: { app: 'sigb' },
    }),
    service({
      name: 'flux',
      clusterIP: '10.96.40.14',
      ports: [{ name: 'udp', port: 82, targetPort: 8002, protocol: 'UDP' }],
      selector: { flux: 'yes' },
    }),
  ];
  for (const svc of services) {
    const created = c.store.create<'Service'>(svc);
    if (!created.ok) throw new Error(created.error.message);
  }
  c.sim.run(2e9);
  const endpointSlices = c.store.list('EndpointSlice');
  const ready = (name: string) =>
    endpointSlices
      .filter((slice) => slice.metadata.name.startsWith(`${name}-`))
      .flatMap((slice) => slice.endpoints.filter((e) => e.conditions.ready).map((e) => e.addresses[0]));
  // The slices really are the controller's: one ready endpoint per Service, the pod the selector names.
  if (ready('flux').join() !== PODS.find((pod) => pod.name === flux)!.address)
    throw new Error(`flux endpoints: ${ready('flux').join()}`);
  return { services: c.store.list('Service'), endpointSlices };
}

type Mode = 'iptables' | 'nftables';

function proxierOf(mode: Mode): Proxier {
  return mode === 'iptables' ? new IptablesProxier() : new NftablesProxier({ counters: true });
}

/** Every port the peers fix: any other in the peers' lines and `conntrack -L` was chosen by a NAT. */
const FIXED_PORTS = [
  41231, 41232, 41233, 41234, 41235, 41236, 41240, 80, 81, 82, 8000, 8001, 8002, 30080, 30081,
];

function kubeProxyScenario(name: string, cni: Cni, mode: Mode, conntrackCleanup: boolean) {
  const kubeProxy: PlanKubeProxy = { proxier: proxierOf(mode), ...apiObjects('siga'), conntrackCleanup };
  const plan = clusterPlan({
    name: 'formation',
    workers: 2,
    cni,
    seed: name,
    nodeNs: shortNodeNs,
    pods: PODS,
    kubeProxy,
  });
  const b = new ScenarioBuilder(name);
  for (const ns of plan.namespaces) b.namespace(ns);
  for (const command of plan.commands) b.command(command.ns, command.argv, command.stdin);
  // kube-proxy's first sync on every node (iptables 1.8.9 prints a notice for -W: traffic-phase commands).
  for (const command of plan.kubeProxy) b.actCommand(command.ns, command.argv, command.stdin);
  // An answered exchange waits up to 1 s (a loaded machine); one that must time out, 500 ms of wall time.
  const udp = (
    client: string,
    port: number,
    server: string,
    serverPort: number,
    dst: string,
    dstPort: number,
    timeoutMs = 1000,
  ) =>
    b.udp({
      client: { ns: client, bind: '0.0.0.0', port },
      server: { ns: server, bind: '0.0.0.0', port: serverPort },
      dst,
      dstPort,
      count: 1,
      payload: `${client}->${dst}:${dstPort}`,
      timeoutMs,
    });
  // The dropped exchange first: its wait is wall time on the kernel and would age the later entries.
  udp('outside', 41231, 'sigb', 8001, '172.18.0.4', 30081, 500);
  udp('diag', 41232, 'siga', 8000, '10.96.40.12', 80);
  udp('diag', 41233, 'sigb', 8001, '10.96.40.13', 81);
  udp('outside', 41234, 'siga', 8000, '172.18.0.3', 30080);
  udp('outside', 41235, 'sigb', 8001, '172.18.0.3', 30081);
  udp('sigb', 41236, 'sigb', 8001, '10.96.40.13', 81);
  udp('diag', 41240, 'siga', 8002, '10.96.40.14', 82);
  // The counters and entries before the resync, which rewrites the Service chains (their counters restart at 0).
  for (const node of ['w1', 'w2']) {
    if (mode === 'iptables') b.actCommand(node, ['iptables-save', '-c']);
    else b.actCommand(node, ['nft', 'list', 'table', 'ip', 'kube-proxy']);
    b.actCommand(node, ['conntrack', '-L']);
  }
  // flux's endpoint moves from siga to sigb; every kube-proxy resyncs, then cleans conntrack.
  const next = { ...apiObjects('sigb'), conntrackCleanup };
  for (const command of kubeProxyResync(plan.nodes, kubeProxy, next))
    b.actCommand(command.ns, command.argv, command.stdin);
  udp('diag', 41240, 'sigb', 8002, '10.96.40.14', 82, conntrackCleanup ? 1000 : 500);
  for (const node of ['w1', 'w2']) {
    if (mode === 'iptables') b.observe(node, 'iptables-save', '-c');
    else b.observe(node, 'nft', 'list', 'table', 'ip', 'kube-proxy');
    b.observe(node, 'conntrack', '-L');
  }
  return { ...b.build(), segments: plan.segments };
}

/**
 * The remaining timeouts in `conntrack -L` and in the entries `conntrack -D` prints as it deletes them: the kernel's
 * entries age in wall time over the whole traffic phase (some forty commands and ten exchanges, 3 s on an idle
 * machine, more under load), packetlab's barely in virtual time.
 */
const AGED_TIMEOUT: Tolerance = { ...CONNTRACK_TIMEOUT, label: /: conntrack -[LD]/, within: 15 };

/**
 * conntrack's lines sorted without their timeout column: the harness sorts whole lines, so entries whose remaining
 * timeouts differ between the sides (27 against 30) sorted apart; sorted by the rest, each line faces its twin.
 */
const sortByFlow: Normaliser = (label, text) => {
  if (!/: conntrack -[LD]/.test(label)) return text;
  const flow = (line: string) => line.replace(/^(\S+\s+\d+ )\d+ /, '$1');
  const lines = text.split('\n').filter((line) => line !== '');
  return `${lines.sort((a, b) => (flow(a) < flow(b) ? -1 : flow(a) > flow(b) ? 1 : 0)).join('\n')}\n`;
};

/** An observation's output (after the traffic), where outputOf would find a traffic step's of the same label first. */
function observedOutput(observed: Observed, label: string): string {
  const found = observed.observe.find((o) => o.label.startsWith(label));
  if (found === undefined) throw new Error(`no observation labelled ${label}`);
  return found.stdout;
}

function linesOf(traffic: readonly { label: string; stdout: string }[], start: string): string {
  return traffic
    .filter((t) => t.label.startsWith(start))
    .map((t) => t.stdout)
    .join('');
}

describe('differential: the cluster plan with kube-proxy, rendered by packetlab, on both CNIs and modes', () => {
  for (const [label, make] of [
    ['flannel-vxlan', () => new FlannelVxlan()],
    ['kindnet', () => new Kindnet()],
  ] as const) {
    for (const mode of ['iptables', 'nftables'] as const) {
      it(`${label}, ${mode}: ClusterIP, NodePort Cluster and Local, hairpin, a replaced UDP endpoint with cleanup`, async (ctx) => {
        const scenario = kubeProxyScenario(`kp-${label}-${mode}`, make(), mode, true);
        const result = await differential(ctx, scenario, {
          natPorts: FIXED_PORTS,
          tolerances: [AGED_TIMEOUT],
          normalise: [sortByFlow],
        });
        if (result === undefined) return;
        const { traffic } = result.linux;
        const echoed = (server: string) => linesOf(traffic, `${server}: udp echo`);
        // NodePort Local: the client's own address on the node with the endpoint, nothing through w2.
        expect(echoed('sigb')).toContain('from 172.18.0.1:41235 "outside->172.18.0.3:30081 1"');
        expect(echoed('sigb')).not.toContain('172.18.0.4:30081');
        // NodePort Cluster: masqueraded to w1 (its flannel.1 address toward the other node) with a random port;
        // hairpin: sigb reaches itself through its Service, masqueraded (to cni0's address or the node's).
        for (const [server, pattern] of [
          ['siga', /from (172\.18\.0\.3|10\.244\.1\.0):(\d+) "outside->172\.18\.0\.3:30080 1"/],
          ['sigb', /from (172\.18\.0\.3|10\.244\.1\.1):(\d+) "sigb->10\.96\.40\.13:81 1"/],
        ] as const) {
          const port = Number(pattern.exec(echoed(server))?.[2]);
          expect(port).toBeGreaterThanOrEqual(1024);
          expect(FIXED_PORTS).not.toContain(port);
        }
        // The Local drop on w2, counted before the resync rewrote the chains (the 55-byte datagram; in nftables mode
        // the vmap's rule also counts what else reaches w2's INPUT, Flannel's VXLAN datagrams).
        expect(outputOf(result.linux, mode === 'iptables' ? 'w2: iptables-save' : 'w2: nft list')).toMatch(
          mode === 'iptables'
            ? /\[1:55\] -A KUBE-EXTERNAL-SERVICES .*has no local endpoints.* --dport 30081 -j DROP/
            : label === 'kindnet'
              ? /counter packets 1 bytes 55 meta l4proto \. th dport vmap @no-endpoint-nodeports/
              : /counter packets [1-9]\d* bytes \d+ meta l4proto \. th dport vmap @no-endpoint-nodeports/,
        );
        // The endpoint removal: w1's entry DNATed to siga, the cleanup deleted it, the next datagram reached sigb.
        const flux = (endpoint: string) =>
          new RegExp(
            `src=10\\.244\\.1\\.5 dst=10\\.96\\.40\\.14 sport=41240 dport=82 src=${endpoint.replaceAll('.', '\\.')} dst=10\\.244\\.1\\.5 sport=8002 dport=41240`,
          );
        expect(outputOf(result.linux, 'w1: conntrack -L')).toMatch(flux('10.244.2.7'));
        expect(
          outputOf(result.linux, 'w1: conntrack -D --orig-dst 10.96.40.14 --dst-nat 10.244.2.7'),
        ).toContain('1 flow entries have been deleted');
        expect(echoed('sigb')).toContain('from 10.244.1.5:41240 "diag->10.96.40.14:82 1"');
        const after = observedOutput(result.linux, 'w1: conntrack -L');
        expect(after).toMatch(flux('10.244.1.9'));
        expect(after).not.toMatch(flux('10.244.2.7'));
      });
    }
  }

  for (const mode of ['iptables', 'nftables'] as const)
    it(`kindnet, ${mode}, without the cleanup: the stale entry keeps the client on the removed endpoint`, async (ctx) => {
      const scenario = kubeProxyScenario(`kp-stale-${mode}`, new Kindnet(), mode, false);
      const result = await differential(ctx, scenario, {
        natPorts: FIXED_PORTS,
        tolerances: [AGED_TIMEOUT],
        normalise: [sortByFlow],
      });
      if (result === undefined) return;
      const { traffic } = result.linux;
      expect(linesOf(traffic, 'sigb: udp echo')).not.toContain('diag->10.96.40.14:82');
      expect(linesOf(traffic, 'diag: udp send 0.0.0.0:41240')).toBe(
        'reply from 10.96.40.14:82 "diag->10.96.40.14:82 1"\ntimeout 1\n',
      );
      expect(observedOutput(result.linux, 'w1: conntrack -L')).toMatch(
        /udp .* src=10\.244\.1\.5 dst=10\.96\.40\.14 sport=41240 dport=82 .*src=10\.244\.2\.7 dst=10\.244\.1\.5 sport=8002 dport=41240/,
      );
    });
});
