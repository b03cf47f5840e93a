// The proxier kube-proxy's tests build (proxier_test.go: NewFakeProxier) and the base rules it writes, for the
// golden tests of the nftables mode.

import { NftablesProxier } from '../../../../src/k8s/kube-proxy/nftables/proxier.ts';
import type { ProxierView } from '../../../../src/k8s/kube-proxy/proxier.ts';
import type { EndpointSlice, Service } from '../../../../src/k8s/objects.ts';
import { endpoint, endpointPort, makeService, makeSlice, port } from './builders.ts';

/** NewFakeProxier: pods 10.0.0.0/8, ServiceCIDR 172.30.0.0/16, --nodeport-addresses 192.168.0.2/32, mark 0x4000. */
export function fakeProxier(): NftablesProxier {
  return new NftablesProxier({
    nodePortAddresses: ['192.168.0.2/32'],
    serviceCidrs: ['172.30.0.0/16'],
    masqueradeMark: '0x4000',
    nodeIp: '192.168.0.2',
  });
}

export function fakeView(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
): ProxierView {
  return {
    nodeName: 'test-node',
    nodeIps: ['192.168.0.2', '192.168.1.2', '192.168.99.11'],
    clusterCidr: '10.0.0.0/8',
    masqueradeBit: 14,
    services,
    endpointSlices,
  };
}

/**
 * baseRules of proxier_test.go as v1.31's setupNFTables writes it for NewFakeProxier (the base chains of
 * nftablesBaseChains, filter-output-post-dnat among them, the jump chains, cluster-ips-check).
 */
export const BASE_RULES = `
add table ip kube-proxy { comment "rules for kube-proxy" ; }

add chain ip kube-proxy mark-for-masquerade
add rule ip kube-proxy mark-for-masquerade mark set mark or 0x4000
add chain ip kube-proxy masquerading
add rule ip kube-proxy masquerading mark and 0x4000 == 0 return
add rule ip kube-proxy masquerading mark set mark xor 0x4000
add rule ip kube-proxy masquerading masquerade fully-random
add chain ip kube-proxy services
add chain ip kube-proxy service-endpoints-check
add chain ip kube-proxy nodeport-endpoints-check
add chain ip kube-proxy filter-prerouting { type filter hook prerouting priority -110 ; }
add rule ip kube-proxy filter-prerouting ct state new jump firewall-check
add chain ip kube-proxy filter-forward { type filter hook forward priority -110 ; }
add rule ip kube-proxy filter-forward ct state new jump service-endpoints-check
add rule ip kube-proxy filter-forward ct state new jump cluster-ips-check
add chain ip kube-proxy filter-input { type filter hook input priority -110 ; }
add rule ip kube-proxy filter-input ct state new jump nodeport-endpoints-check
add rule ip kube-proxy filter-input ct state new jump service-endpoints-check
add chain ip kube-proxy filter-output { type filter hook output priority -110 ; }
add rule ip kube-proxy filter-output ct state new jump service-endpoints-check
add rule ip kube-proxy filter-output ct state new jump firewall-check
add chain ip kube-proxy filter-output-post-dnat { type filter hook output priority -90 ; }
add rule ip kube-proxy filter-output-post-dnat ct state new jump cluster-ips-check
add chain ip kube-proxy nat-output { type nat hook output priority -100 ; }
add rule ip kube-proxy nat-output jump services
add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority 100 ; }
add rule ip kube-proxy nat-postrouting jump masquerading
add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100 ; }
add rule ip kube-proxy nat-prerouting jump services

add set ip kube-proxy cluster-ips { type ipv4_addr ; comment "Active ClusterIPs" ; }
add chain ip kube-proxy cluster-ips-check
add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"
add rule ip kube-proxy cluster-ips-check ip daddr { 172.30.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"

add set ip kube-proxy nodeport-ips { type ipv4_addr ; comment "IPs that accept NodePort traffic" ; }
add element ip kube-proxy nodeport-ips { 192.168.0.2 }
add rule ip kube-proxy nodeport-endpoints-check ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports

add map ip kube-proxy no-endpoint-services { type ipv4_addr . inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to services with no endpoints" ; }
add map ip kube-proxy no-endpoint-nodeports { type inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to service nodeports with no endpoints" ; }

add chain ip kube-proxy reject-chain { comment "helper for @no-endpoint-services / @no-endpoint-nodeports" ; }
add rule ip kube-proxy reject-chain reject

add rule ip kube-proxy service-endpoints-check ip daddr . meta l4proto . th dport vmap @no-endpoint-services

add map ip kube-proxy firewall-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "destinations that are subject to LoadBalancerSourceRanges" ; }
add chain ip kube-proxy firewall-check
add rule ip kube-proxy firewall-check ip daddr . meta l4proto . th dport vmap @firewall-ips

add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ; }
add map ip kube-proxy service-nodeports { type inet_proto . inet_service : verdict ; comment "NodePort traffic" ; }
add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips
add rule ip kube-proxy services ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports
`;

/** TestOverallNFTablesRules' six Services. */
export function overallServices(): Service[] {
  return [
    makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [port('p80', 80)] }),
    makeService(
      'ns2',
      'svc2',
      {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        clusterIP: '172.30.0.42',
        ports: [port('p80', 80, 'TCP', 3001)],
        externalIPs: ['192.168.99.22'],
        healthCheckNodePort: 30000,
      },
      ['1.2.3.4'],
    ),
    makeService('ns3', 'svc3', {
      type: 'NodePort',
      clusterIP: '172.30.0.43',
      ports: [port('p80', 80, 'TCP', 3003)],
    }),
    makeService('ns4', 'svc4', {
      type: 'NodePort',
      clusterIP: '172.30.0.44',
      externalIPs: ['192.168.99.33'],
      ports: [port('p80', 80)],
    }),
    makeService(
      'ns5',
      'svc5',
      {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Cluster',
        clusterIP: '172.30.0.45',
        ports: [port('p80', 80, 'TCP', 3002)],
        healthCheckNodePort: 30000,
        // Extra whitespace, as the Go test has it: kube-proxy ignores it.
        loadBalancerSourceRanges: [' 203.0.113.0/25'],
        sessionAffinity: 'ClientIP',
        sessionAffinityTimeoutSeconds: 10800,
      },
      ['5.6.7.8'],
    ),
    makeService('ns6', 'svc6', { clusterIP: '172.30.0.46', ports: [port('p80', 80)] }),
  ];
}

export function overallSlices(): EndpointSlice[] {
  const p80 = [endpointPort('p80', 80)];
  return [
    makeSlice('ns1', 'svc1', 1, [endpoint('10.180.0.1')], p80),
    // No nodeName: not local, so the Local LoadBalancer has no local endpoint.
    makeSlice('ns2', 'svc2', 1, [endpoint('10.180.0.2')], p80),
    makeSlice('ns3', 'svc3', 1, [endpoint('10.180.0.3')], p80),
    makeSlice('ns4', 'svc4', 1, [endpoint('10.180.0.4'), endpoint('10.180.0.5', 'test-node')], p80),
    makeSlice('ns5', 'svc5', 1, [endpoint('10.180.0.3')], p80),
  ];
}
