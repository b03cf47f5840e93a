// kube-proxy's UDP conntrack cleanup (src/k8s/kube-proxy/conntrack-cleanup.ts): the `conntrack -D` lines it derives
// from two views, and on a whole cluster in both modes a client sending to a UDP Service every second while the pod
// it reaches is deleted: with the cleanup its next datagram reaches the other pod, without it (kubernetes#125467's
// symptom) the stale entry keeps sending it to the deleted address.

import { describe, expect, it } from 'vitest';
import { service } from '../../../src/k8s/api/builders.ts';
import { cluster } from '../../../src/k8s/cluster.ts';
import { staleConntrackCommands } from '../../../src/k8s/kube-proxy/conntrack-cleanup.ts';
import type { ProxierView } from '../../../src/k8s/kube-proxy/proxier.ts';
import type { ImageRunner } from '../../../src/k8s/kubelet/kubelet.ts';
import { exec } from '../../../src/tools/exec.ts';
import { parseIpv4 } from '../../../src/wire/address.ts';
import { endpoint, makeEndpointSlice, makeService, servicePort } from '../../support/k8s-objects.ts';

/** A UDP server on 8000 that answers every datagram with its pod's name. */
const NAMER: ImageRunner = (ns, pod) => {
  const reply = new TextEncoder().encode(pod.metadata.name);
  ns.udp.bind(0, 8000, (datagram) => {
    ns.udp.send({ dst: datagram.srcAddr, dstPort: datagram.srcPort, srcPort: 8000, payload: reply });
  });
  return { stop: () => ns.udp.unbind(0, 8000) };
};

const DNS = makeService('default', 'dns', (svc) => {
  svc.type = 'NodePort';
  svc.clusterIP = '10.96.0.53';
  svc.ports = [servicePort({ name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353, nodePort: 30053 })];
  svc.externalIPs = ['172.18.0.50'];
});
const WEB = makeService('default', 'web', (svc) => {
  svc.clusterIP = '10.96.0.80';
  svc.ports = [servicePort({ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 })];
});

function view(dnsEndpoints: string[], webEndpoints: string[]): ProxierView {
  return {
    nodeName: 'formation-worker',
    nodeIps: ['172.18.0.3'],
    clusterCidr: '10.244.0.0/16',
    masqueradeBit: 14,
    services: [DNS, WEB],
    endpointSlices: [
      makeEndpointSlice(
        'default',
        'dns',
        1,
        dnsEndpoints.map((ip) => endpoint(ip, { nodeName: 'formation-worker2' })),
        [{ name: 'dns', port: 5353, protocol: 'UDP' }],
      ),
      makeEndpointSlice(
        'default',
        'web',
        1,
        webEndpoints.map((ip) => endpoint(ip, { nodeName: 'formation-worker2' })),
        [{ name: 'http', port: 8080, protocol: 'TCP' }],
      ),
    ],
  };
}

const lines = (previous: ProxierView | undefined, current: ProxierView) =>
  staleConntrackCommands('w1', previous, current).map((command) => command.argv.join(' '));

describe('staleConntrackCommands: what v1.31 CleanStaleEntries deletes', () => {
  it('a UDP Service that gains its first endpoint: its IPs and NodePort; TCP never', () => {
    expect(lines(view([], ['10.244.2.8']), view(['10.244.2.7'], []))).toEqual([
      'conntrack -D --orig-dst 10.96.0.53 -p udp',
      'conntrack -D --orig-dst 172.18.0.50 -p udp',
      'conntrack -D -p udp --dport 30053',
    ]);
    // The first sync sees every UDP Service with endpoints as newly active.
    expect(lines(undefined, view(['10.244.2.7'], []))).toHaveLength(3);
  });

  it('a removed UDP endpoint: NodePort NAT, then ClusterIP and external IP NAT; none while one stays', () => {
    expect(lines(view(['10.244.2.7', '10.244.1.9'], ['10.244.2.8']), view(['10.244.1.9'], []))).toEqual([
      'conntrack -D -p udp --dport 30053 --dst-nat 10.244.2.7',
      'conntrack -D --orig-dst 10.96.0.53 --dst-nat 10.244.2.7 -p udp',
      'conntrack -D --orig-dst 172.18.0.50 --dst-nat 10.244.2.7 -p udp',
    ]);
    expect(lines(view(['10.244.2.7'], []), view(['10.244.2.7', '10.244.1.9'], []))).toEqual([]);
  });

  it('an endpoint that was not serving leaves nothing to clean; a deleted UDP Service its ClusterIP', () => {
    const notServing = view([], []);
    const slice = makeEndpointSlice(
      'default',
      'dns',
      1,
      [endpoint('10.244.2.7', { nodeName: 'formation-worker2', ready: false, serving: false })],
      [{ name: 'dns', port: 5353, protocol: 'UDP' }],
    );
    expect(lines({ ...notServing, endpointSlices: [slice] }, view([], []))).toEqual([]);
    expect(lines(view(['10.244.2.7'], []), { ...view([], []), services: [WEB] })).toEqual([
      'conntrack -D --orig-dst 10.96.0.53 -p udp',
    ]);
  });

  it('an endpoint that turns Terminating (listed, no longer serving) is cleaned at once, not when it leaves', () => {
    const terminating = view([], []);
    const slice = makeEndpointSlice(
      'default',
      'dns',
      1,
      [
        endpoint('10.244.2.7', {
          nodeName: 'formation-worker2',
          ready: false,
          serving: false,
          terminating: true,
        }),
        endpoint('10.244.1.9', { nodeName: 'formation-worker2' }),
      ],
      [{ name: 'dns', port: 5353, protocol: 'UDP' }],
    );
    const during = { ...terminating, endpointSlices: [slice, terminating.endpointSlices[1]!] };
    expect(lines(view(['10.244.2.7', '10.244.1.9'], []), during)).toEqual([
      'conntrack -D -p udp --dport 30053 --dst-nat 10.244.2.7',
      'conntrack -D --orig-dst 10.96.0.53 --dst-nat 10.244.2.7 -p udp',
      'conntrack -D --orig-dst 172.18.0.50 --dst-nat 10.244.2.7 -p udp',
    ]);
    // When it finally leaves the slice, it was not serving: nothing more to clean.
    expect(lines(during, view(['10.244.1.9'], []))).toEqual([]);
  });
});

function formation(kubeProxy: 'iptables' | 'nftables', conntrackCleanup: boolean) {
  const c = cluster({
    name: 'formation',
    workers: 2,
    cni: 'kindnet',
    kubeProxy,
    conntrackCleanup,
    seed: 'udp-cleanup',
    images: new Map([['namer:1.0', NAMER]]),
  });
  const app = { app: 'namer' };
  for (const [name, node, ip, image] of [
    ['diag', 'formation-worker', '10.244.1.5', undefined],
    ['namer-b', 'formation-worker', '10.244.1.9', 'namer:1.0'],
    ['namer-a', 'formation-worker2', '10.244.2.7', 'namer:1.0'],
  ] as const) {
    const created = c.createPod({
      name,
      node,
      ip,
      labels: image === undefined ? { run: name } : app,
      ...(image === undefined
        ? {}
        : { image, ports: [{ name: 'dns', containerPort: 8000, protocol: 'UDP' }] }),
    });
    if (!created.ok) throw new Error(created.error.message);
  }
  const svc = c.store.create<'Service'>(
    service({
      name: 'namer',
      clusterIP: '10.96.0.53',
      ports: [{ name: 'dns', port: 53, targetPort: 8000, protocol: 'UDP' }],
      selector: app,
    }),
  );
  if (!svc.ok) throw new Error(svc.error.message);
  c.sim.run(2e9);
  // diag sends from port 41234 every second and records who answered.
  const diag = c.podNamespace('default', 'diag')!;
  const answers: string[] = [];
  diag.udp.bind(0, 41234, (datagram) => answers.push(new TextDecoder().decode(datagram.payload)));
  let sent = 0;
  const send = () => {
    sent++;
    diag.udp.send({
      dst: parseIpv4('10.96.0.53')!,
      dstPort: 53,
      srcPort: 41234,
      payload: new TextEncoder().encode(`query ${sent}`),
    });
    c.sim.scheduler.schedule(1e9, send);
  };
  send();
  c.sim.run(3e9);
  return { c, answers, diag };
}

describe.each(['iptables', 'nftables'] as const)(
  'kube-proxy %s mode: a UDP client while its endpoint is deleted',
  (mode) => {
    for (const cleanup of [true, false]) {
      it(
        cleanup
          ? 'with the cleanup, the next datagram reaches the other pod'
          : 'without it, the datagrams keep going to the deleted address',
        () => {
          const { c, answers } = formation(mode, cleanup);
          expect(answers.length).toBeGreaterThanOrEqual(3);
          const first = answers[0]!;
          expect(new Set(answers)).toEqual(new Set([first]));
          const other = first === 'namer-a' ? 'namer-b' : 'namer-a';
          const goneIp = first === 'namer-a' ? '10.244.2.7' : '10.244.1.9';
          const before = answers.length;
          expect(c.store.delete('Pod', 'default', first).ok).toBe(true);
          c.sim.run(40e9);
          const after = answers.slice(before);
          const worker = c.nodeNamespace('formation-worker')!;
          const entries = exec(worker, 'conntrack -L -p udp --orig-port-src 41234').stdout;
          const deletes = c
            .node('formation-worker')!
            .kubeProxy!.syncs.flatMap((s) => s.conntrackDeletes.map((d) => d.argv.join(' ')));
          if (cleanup) {
            expect(deletes).toContain(`conntrack -D --orig-dst 10.96.0.53 --dst-nat ${goneIp} -p udp`);
            // Each datagram sent once the pod was gone is answered by the other pod.
            expect(after.length).toBeGreaterThan(0);
            expect(new Set(after)).toEqual(new Set([other]));
            expect(entries).toContain(
              `src=${other === 'namer-a' ? '10.244.2.7' : '10.244.1.9'} dst=10.244.1.5`,
            );
          } else {
            expect(deletes).toEqual([]);
            expect(after.filter((name) => name === other)).toEqual([]);
            // The entry still DNATs to the deleted pod, refreshed by every datagram.
            expect(entries).toContain(`src=${goneIp} dst=10.244.1.5`);
          }
        },
      );
    }
  },
);
