// What cluster() adds around the nodes, object by object: the kube-dns Service and CoreDNS's Deployment (or none with
// `dns: false`), the resolv.conf the kubelet writes (not for hostNetwork pods), the control plane's exclusion from
// external load balancers, and one load balancer per cluster.

import { describe, expect, it } from 'vitest';
import { readResolvConf } from '../../../src/app/dns/resolv-conf.ts';
import { service } from '../../../src/k8s/api/builders.ts';
import { CLUSTER_DNS_IP, COREDNS_IMAGE, cluster } from '../../../src/k8s/cluster.ts';
import { exec } from '../../../src/tools/exec.ts';

describe('cluster() wiring', () => {
  it('creates kube-dns and CoreDNS as kubeadm does, answering from the store', () => {
    const c = cluster({ name: 'formation', workers: 1, seed: 'wiring' });
    const dns = c.store.get('Service', 'kube-system', 'kube-dns')!;
    expect([dns.spec.clusterIP, dns.spec.ports.map((p) => `${p.name}/${p.port}/${p.protocol}`)]).toEqual([
      CLUSTER_DNS_IP,
      ['dns/53/UDP', 'dns-tcp/53/TCP', 'metrics/9153/TCP'],
    ]);
    const coredns = c.store.get('Deployment', 'kube-system', 'coredns')!;
    expect([coredns.spec.replicas, coredns.spec.template.spec.containers[0]?.image]).toEqual([
      2,
      COREDNS_IMAGE,
    ]);
    const slice = c.store
      .list('EndpointSlice', 'kube-system')
      .find((s) => s.metadata.name.startsWith('kube-dns-'))!;
    expect(slice.endpoints.map((e) => `${e.addresses[0]} ${e.nodeName}`)).toEqual([
      '10.244.0.2 formation-control-plane',
      '10.244.0.3 formation-control-plane',
    ]);
    const worker = c.nodeNamespace('formation-worker')!;
    expect(exec(worker, 'curl -s -w " %{http_code}" http://10.244.0.2:8080/health').stdout).toBe('OK 200');
    expect(exec(worker, 'curl -s -w " %{http_code}" http://10.244.0.3:8181/ready').stdout).toBe('OK 200');
    expect(c.store.get('Node', '', 'formation-control-plane')?.metadata.labels).toHaveProperty(
      'node.kubernetes.io/exclude-from-external-load-balancers',
      '',
    );
  });

  it('gives pods the ClusterFirst resolv.conf of their namespace, hostNetwork pods none', () => {
    const c = cluster({ name: 'formation', workers: 1, seed: 'wiring' });
    c.createPod({ name: 'a', namespace: 'shop', node: 'formation-worker' });
    c.createPod({ name: 'h', node: 'formation-worker', hostNetwork: true });
    c.settle();
    expect(readResolvConf(c.podNamespace('shop', 'a')!)).toBe(
      'search shop.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
    expect(readResolvConf(c.podNamespace('default', 'h')!)).toBeUndefined();
  });

  it("kube-proxy sets its sysctls at start as on a kind node: conntrack timeouts, then its mode's own", () => {
    for (const mode of ['iptables', 'nftables'] as const) {
      const c = cluster({ name: 'formation', workers: 1, seed: 'wiring', kubeProxy: mode });
      const line =
        'docker exec formation-worker sysctl net.netfilter.nf_conntrack_tcp_timeout_established ' +
        'net.netfilter.nf_conntrack_tcp_timeout_close_wait net.ipv4.conf.all.route_localnet ' +
        'net.netfilter.nf_conntrack_tcp_be_liberal';
      expect(c.exec(line).stdout).toBe(
        [
          'net.netfilter.nf_conntrack_tcp_timeout_established = 86400',
          'net.netfilter.nf_conntrack_tcp_timeout_close_wait = 3600',
          `net.ipv4.conf.all.route_localnet = ${mode === 'iptables' ? 1 : 0}`,
          `net.netfilter.nf_conntrack_tcp_be_liberal = ${mode === 'nftables' ? 1 : 0}`,
          '',
        ].join('\n'),
      );
    }
  });

  it('with dns: false, no kube-dns, no CoreDNS, no resolv.conf', () => {
    const c = cluster({ name: 'formation', workers: 1, seed: 'wiring', dns: false });
    c.createPod({ name: 'a', node: 'formation-worker' });
    c.settle();
    expect(c.store.list('Service', 'kube-system')).toEqual([]);
    expect(c.store.list('Pod', 'kube-system')).toEqual([]);
    expect(readResolvConf(c.podNamespace('default', 'a')!)).toBeUndefined();
  });

  it('takes one load balancer, whose addresses go on the outside', () => {
    const c = cluster({ name: 'formation', workers: 1, seed: 'wiring', loadBalancer: { mode: 'proxy' } });
    expect(c.loadBalancer?.mode).toBe('proxy');
    expect(() => c.addLoadBalancer({ mode: 'passthrough' })).toThrow('the cluster has a load balancer');
    const created = c.store.create<'Service'>(
      service({ name: 'web', type: 'LoadBalancer', ports: [{ port: 80 }], selector: { app: 'web' } }),
    );
    expect(created.ok).toBe(true);
    c.settle();
    expect(c.store.get('Service', 'default', 'web')?.status.loadBalancerIngress).toEqual(['172.18.255.200']);
    expect(exec(c.outside, 'ip -br addr show dev eth0').stdout).toMatch(
      /^eth0@if\d+ +UP +172\.18\.0\.1\/16 172\.18\.255\.200\/32 \n$/,
    );
  });
});
