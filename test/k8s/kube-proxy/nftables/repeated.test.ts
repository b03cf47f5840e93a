// kube-proxy's TestSyncProxyRulesRepeated (pkg/proxy/nftables/proxier_test.go): syncs after changes, each checked
// as the Go test checks it — the table as knftables' Fake.Dump prints it (sorted by sortNFTablesTransaction) and
// the number of operations in the last transaction: a partial sync writes only the changed Service's chains and
// elements, a deleted Service's chains are flushed and deleted by a later sync in a transaction of their own.

import { describe, expect, it } from 'vitest';
import type { Service } from '../../../../src/k8s/objects.ts';
import { endpoint, endpointPort, makeService, makeSlice, port } from './builders.ts';
import { BASE_RULES, fakeProxier, fakeView } from './fake.ts';
import { sortNFTablesTransaction } from './sort.ts';

const svc1 = makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [port('p80', 80)] });
const svc2 = makeService('ns2', 'svc2', { clusterIP: '172.30.0.42', ports: [port('p8080', 8080)] });
const svc3 = makeService('ns3', 'svc3', { clusterIP: '172.30.0.43', ports: [port('p80', 80)] });
const eps1 = makeSlice('ns1', 'svc1', 1, [endpoint('10.0.1.1')], [endpointPort('p80', 80)]);
const eps2 = makeSlice('ns2', 'svc2', 1, [endpoint('10.0.2.1')], [endpointPort('p8080', 8080)]);
const eps3 = makeSlice('ns3', 'svc3', 1, [endpoint('10.0.3.1')], [endpointPort('p80', 80)]);

/** The expected lines of one ClusterIP Service with one endpoint (the Go test's blocks, with v1.31's dport match). */
function block(service: Service, chain: string, endpointChain: string, ip: string): string {
  const clusterIp = service.spec.clusterIP;
  const p = service.spec.ports[0]!.port;
  return `
add element ip kube-proxy cluster-ips { ${clusterIp} }
add element ip kube-proxy service-ips { ${clusterIp} . tcp . ${p} : goto ${chain} }
add chain ip kube-proxy ${chain}
add rule ip kube-proxy ${chain} ip daddr ${clusterIp} tcp dport ${p} ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy ${chain} numgen random mod 1 vmap { 0 : goto ${endpointChain} }
add chain ip kube-proxy ${endpointChain}
add rule ip kube-proxy ${endpointChain} ip saddr ${ip} jump mark-for-masquerade
add rule ip kube-proxy ${endpointChain} meta l4proto tcp dnat to ${ip}:${p}
`;
}

const SVC1 = block(
  svc1,
  'service-ULMVA6XW-ns1/svc1/tcp/p80',
  'endpoint-5TPGNJF2-ns1/svc1/tcp/p80__10.0.1.1/80',
  '10.0.1.1',
);
const SVC2 = block(
  svc2,
  'service-MHHHYRWA-ns2/svc2/tcp/p8080',
  'endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080',
  '10.0.2.1',
);
const SVC3 = block(
  svc3,
  'service-4AT6LBPK-ns3/svc3/tcp/p80',
  'endpoint-2OCDJSZQ-ns3/svc3/tcp/p80__10.0.3.1/80',
  '10.0.3.1',
);

describe('kube-proxy nftables: TestSyncProxyRulesRepeated', () => {
  it('adds a Service in 10 operations, deletes one in 4, then deletes its stale chains apart', () => {
    const proxier = fakeProxier();
    const dump = (): string => sortNFTablesTransaction(proxier.dump('node'));

    proxier.transactions('node', fakeView([svc1, svc2], [eps1, eps2]), true);
    expect(dump()).toBe(sortNFTablesTransaction(BASE_RULES + SVC1 + SVC2));

    // A new Service and its endpoints: one element each in cluster-ips and service-ips, add+flush of two chains,
    // two rules in each.
    let sync = proxier.transactions('node', fakeView([svc1, svc2, svc3], [eps1, eps2, eps3]), false);
    expect(dump()).toBe(sortNFTablesTransaction(BASE_RULES + SVC1 + SVC2 + SVC3));
    expect(sync.transactions.map((ops) => ops.length)).toEqual([10]);

    // svc2 deleted: its elements deleted, its two chains flushed, not yet deleted.
    sync = proxier.transactions('node', fakeView([svc1, svc3], [eps1, eps2, eps3]), false);
    const flushed = `
add chain ip kube-proxy service-MHHHYRWA-ns2/svc2/tcp/p8080
add chain ip kube-proxy endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080
`;
    expect(dump()).toBe(sortNFTablesTransaction(BASE_RULES + SVC1 + flushed + SVC3));
    expect(sync.transactions.map((ops) => ops.length)).toEqual([4]);

    // Later: the stale chains go in a transaction of their own, and nothing else changed.
    sync = proxier.transactions('node', fakeView([svc1, svc3], [eps1, eps2, eps3]), false);
    expect(dump()).toBe(sortNFTablesTransaction(BASE_RULES + SVC1 + SVC3));
    expect(sync.transactions.map((ops) => ops.map((op) => `${op.verb} ${op.object}`))).toEqual([
      ['delete chain', 'delete chain'],
    ]);
  });
});

describe('kube-proxy nftables: a restarted kube-proxy', () => {
  it('finds the chains the last process left, flushes them in its first sync, deletes them in the next', () => {
    const proxier = fakeProxier();
    proxier.transactions('node', fakeView([svc1, svc2], [eps1, eps2]), true);
    const restarted = proxier.transactions('node', fakeView([svc1], [eps1]), true);
    const flushes = restarted.transactions[0]!.filter((op) => op.verb === 'flush' && op.object === 'chain');
    expect(flushes.map((op) => (op.object === 'chain' ? op.chain.name : ''))).toEqual(
      expect.arrayContaining([
        'service-MHHHYRWA-ns2/svc2/tcp/p8080',
        'endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080',
      ]),
    );
    const next = proxier.transactions('node', fakeView([svc1], [eps1]), false);
    expect(next.transactions).toHaveLength(1);
    expect(sortNFTablesTransaction(proxier.dump('node'))).toBe(sortNFTablesTransaction(BASE_RULES + SVC1));
  });
});
