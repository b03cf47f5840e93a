// The nftables proxier's transactions, sync after sync, loaded with `nft -f` into the real nft 1.0.6 (in a throw-away
// network namespace) and into packetlab's nft: each transaction loads on both, and `nft list table ip kube-proxy`
// prints the same after every sync.

import { unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NftablesProxier } from '../../../../src/k8s/kube-proxy/nftables/proxier.ts';
import type { ProxierView } from '../../../../src/k8s/kube-proxy/proxier.ts';
import type { EndpointSlice, Service } from '../../../../src/k8s/objects.ts';
import { runNft } from '../../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../../src/netfilter/ruleset.ts';
import { RealNamespaces, requireNetns } from '../../../support/netns.ts';
import { requireTool } from '../../../support/tools.ts';
import { endpoint, endpointPort, makeService, makeSlice, port } from './builders.ts';
import { fakeProxier, fakeView, overallServices, overallSlices } from './fake.ts';

/** A kind node's kube-proxy: NodePorts on every local address, cluster CIDR 10.244.0.0/16, mark bit 14. */
function kindView(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): ProxierView {
  return {
    nodeName: 'formation-worker',
    nodeIps: ['172.18.0.3'],
    clusterCidr: '10.244.0.0/16',
    masqueradeBit: 14,
    services,
    endpointSlices,
  };
}

const signalements = (extra: Partial<Service['spec']> = {}): Service =>
  makeService('default', 'signalements', {
    type: 'NodePort',
    clusterIP: '10.96.40.12',
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8000, nodePort: 30080 }],
    ...extra,
  });

const signalementsSlice = (endpoints: readonly ReturnType<typeof endpoint>[]): EndpointSlice =>
  makeSlice('default', 'signalements', 1, endpoints, [endpointPort('http', 8000)]);

const dns = makeService('kube-system', 'kube-dns', {
  clusterIP: '10.96.0.10',
  ports: [port('dns', 53, 'UDP'), port('dns-tcp', 53, 'TCP'), port('metrics', 9153, 'TCP')],
});
const dnsSlice = makeSlice(
  'kube-system',
  'kube-dns',
  1,
  [endpoint('10.244.0.2', 'formation-control-plane'), endpoint('10.244.0.3', 'formation-control-plane')],
  [endpointPort('dns', 53, 'UDP'), endpointPort('dns-tcp', 53, 'TCP'), endpointPort('metrics', 9153, 'TCP')],
);

interface Case {
  readonly name: string;
  readonly proxier: () => NftablesProxier;
  /** The views of successive syncs (the first one a full sync). */
  readonly views: readonly ProxierView[];
  /** The sync at which kube-proxy restarted (a first sync again, over the table it left). */
  readonly restartAt?: number;
}

/** Local policies with a local endpoint, a terminating one, UDP NodePorts, a firewall the node is inside of. */
const policies = (): ProxierView => {
  const web = makeService(
    'default',
    'web',
    {
      type: 'LoadBalancer',
      clusterIP: '10.96.0.20',
      externalTrafficPolicy: 'Local',
      internalTrafficPolicy: 'Local',
      ports: [port('http', 80, 'TCP', 30081), port('syslog', 514, 'UDP', 30514)],
      loadBalancerSourceRanges: ['172.18.0.0/16', '203.0.113.0/24'],
    },
    ['172.18.0.200'],
  );
  const webSlice = makeSlice(
    'default',
    'web',
    1,
    [
      endpoint('10.244.1.9', 'formation-worker'),
      endpoint('10.244.1.10', 'formation-worker', { ready: false, serving: true, terminating: true }),
      endpoint('10.244.2.7', 'formation-worker2'),
    ],
    [endpointPort('http', 80), endpointPort('syslog', 514, 'UDP')],
  );
  const old = makeService('default', 'old', { clusterIP: '10.96.0.21', ports: [port('', 8080)] });
  const oldSlice = makeSlice(
    'default',
    'old',
    1,
    [endpoint('10.244.2.9', 'formation-worker2', { ready: false, serving: true, terminating: true })],
    [endpointPort('', 8080)],
  );
  return kindView([web, old], [webSlice, oldSlice]);
};

const CASES: readonly Case[] = [
  {
    name: 'kube-proxy restarted after a Service went away: its chains are found, flushed, then deleted',
    proxier: () => new NftablesProxier(),
    views: [
      kindView(
        [signalements(), dns],
        [signalementsSlice([endpoint('10.244.2.7', 'formation-worker2')]), dnsSlice],
      ),
      kindView([signalements()], [signalementsSlice([endpoint('10.244.2.7', 'formation-worker2')])]),
      kindView([signalements()], [signalementsSlice([endpoint('10.244.2.7', 'formation-worker2')])]),
    ],
    restartAt: 1,
  },
  {
    name: 'Local policies, terminating endpoints, UDP NodePort, source ranges with the node inside, masquerade-all',
    proxier: () => new NftablesProxier({ masqueradeAll: true, serviceCidrs: ['10.96.0.0/16'] }),
    views: [policies(), kindView([], [])],
  },
  {
    name: 'TestOverallNFTablesRules (LoadBalancer, Local, firewall, affinity, no endpoints)',
    proxier: fakeProxier,
    views: [fakeView(overallServices(), overallSlices())],
  },
  {
    name: 'a kind node: three endpoints, then scaled to two, then to none, then back with a terminating one',
    proxier: () => new NftablesProxier(),
    views: [
      kindView(
        [signalements(), dns],
        [
          signalementsSlice([
            endpoint('10.244.1.9', 'formation-worker'),
            endpoint('10.244.2.7', 'formation-worker2'),
            endpoint('10.244.2.8', 'formation-worker2'),
          ]),
          dnsSlice,
        ],
      ),
      kindView(
        [signalements(), dns],
        [
          signalementsSlice([
            endpoint('10.244.1.9', 'formation-worker'),
            endpoint('10.244.2.7', 'formation-worker2'),
          ]),
          dnsSlice,
        ],
      ),
      kindView([signalements(), dns], [signalementsSlice([]), dnsSlice]),
      kindView(
        [signalements(), dns],
        [
          signalementsSlice([
            endpoint('10.244.2.7', 'formation-worker2', { ready: false, serving: true, terminating: true }),
          ]),
          dnsSlice,
        ],
      ),
    ],
  },
  {
    name: 'externalTrafficPolicy Local and ClientIP affinity turned on, then the Service deleted',
    proxier: () => new NftablesProxier(),
    views: [
      kindView(
        [signalements({ externalTrafficPolicy: 'Local' })],
        [
          signalementsSlice([
            endpoint('10.244.1.9', 'formation-worker'),
            endpoint('10.244.2.7', 'formation-worker2'),
          ]),
        ],
      ),
      kindView(
        [signalements({ sessionAffinity: 'ClientIP', sessionAffinityTimeoutSeconds: 600 })],
        [
          signalementsSlice([
            endpoint('10.244.1.9', 'formation-worker'),
            endpoint('10.244.2.7', 'formation-worker2'),
          ]),
        ],
      ),
      kindView([], []),
      kindView([], []),
    ],
  },
];

describe('kube-proxy nftables transactions on the real nft and on packetlab', () => {
  const real = new RealNamespaces();
  let ready = false;
  const file = join(tmpdir(), `plab-kp-nft-${process.pid}.nft`);

  beforeAll(() => {
    if (!requireNetns() || !requireTool('nft')) return;
    real.add('kp');
    ready = true;
  });

  afterAll(() => {
    real.cleanup();
    try {
      unlinkSync(file);
    } catch {}
  });

  it.each(CASES)('$name', ({ proxier, views, restartAt }) => {
    // Without the real nft, packetlab's side still has to load every transaction.
    if (ready) expect(real.exec('kp', 'nft', ['flush', 'ruleset']).exitCode).toBe(0);
    const netfilter = { store: new RulesetStore() };
    const kubeProxy = proxier();
    views.forEach((view, index) => {
      for (const command of kubeProxy.sync('node', view, index === 0 || index === restartAt)) {
        const word = command.argv[2];
        if (typeof word !== 'object' || !('file' in word)) throw new Error('expected nft -f FILE');
        if (ready) {
          writeFileSync(file, word.text);
          expect(real.exec('kp', 'nft', ['-f', file]).stderr, `sync ${index}`).toBe('');
        }
        const ours = runNft(netfilter, word.text, { file });
        expect(ours.stderr, `sync ${index}`).toBe('');
        expect(ours.exitCode).toBe(0);
      }
      if (!ready) return;
      const listed = real.exec('kp', 'nft', ['list', 'table', 'ip', 'kube-proxy']).stdout;
      expect(runNft(netfilter, 'list table ip kube-proxy').stdout, `sync ${index}`).toBe(listed);
    });
  });
});
