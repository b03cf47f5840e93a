// The kube-dns Service as kubeadm creates it in kube-system (cmd/kubeadm/app/phases/addons/dns/manifests.go): ClusterIP
// 10.96.0.10 (the tenth address of the service CIDR), ports dns 53/UDP, dns-tcp 53/TCP and metrics 9153/TCP, selecting
// the CoreDNS pods by `k8s-app: kube-dns`. Only the Service: the CoreDNS Deployment is the cluster builder's.

import type { Service } from '../objects.ts';
import type { NewObject } from '../store.ts';

export const KUBE_DNS_LABELS: Readonly<Record<string, string>> = { 'k8s-app': 'kube-dns' };

export function kubeDnsService(clusterIP = '10.96.0.10'): NewObject<Service> & { readonly kind: 'Service' } {
  return {
    kind: 'Service',
    metadata: {
      name: 'kube-dns',
      namespace: 'kube-system',
      labels: {
        ...KUBE_DNS_LABELS,
        'kubernetes.io/cluster-service': 'true',
        'kubernetes.io/name': 'CoreDNS',
      },
      annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      ports: [
        { name: 'dns', protocol: 'UDP', port: 53, targetPort: 53, nodePort: 0 },
        { name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 53, nodePort: 0 },
        { name: 'metrics', protocol: 'TCP', port: 9153, targetPort: 9153, nodePort: 0 },
      ],
      selector: KUBE_DNS_LABELS,
      sessionAffinity: 'None',
      sessionAffinityTimeoutSeconds: 10800,
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      healthCheckNodePort: 0,
      externalIPs: [],
      loadBalancerSourceRanges: [],
    },
    status: { loadBalancerIngress: [] },
  };
}
