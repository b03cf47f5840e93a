// kube-proxy's NewFakeProxier (pkg/proxy/iptables/proxier_test.go) as a view and options: node test-node at
// 192.168.0.2, local traffic detected by the pod CIDR 10.0.0.0/8, mark 0x4000, a fake iptables without
// --random-fully, both nfacct counters present, localhost NodePorts on.

import { IptablesProxier } from '../../../../src/k8s/kube-proxy/iptables/proxier.ts';
import type { ProxierView } from '../../../../src/k8s/kube-proxy/proxier.ts';
import type { EndpointSlice, Service } from '../../../../src/k8s/objects.ts';

export const TEST_NODE_NAME = 'test-node';

export function fakeView(services: Service[], endpointSlices: EndpointSlice[]): ProxierView {
  return {
    nodeName: TEST_NODE_NAME,
    nodeIps: ['192.168.0.2', '192.168.1.2', '192.168.99.11'],
    clusterCidr: '10.0.0.0/8',
    masqueradeBit: 14,
    services,
    endpointSlices,
  };
}

export function fakeProxier(): IptablesProxier {
  return new IptablesProxier({ randomFully: false, nfacct: true, masqueradeMark: '0x4000' });
}
