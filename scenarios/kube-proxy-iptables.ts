// The nat rules kube-proxy's iptables mode writes for one Service (pkg/proxy/iptables/proxier.go), as
// iptables-restore input, with the real chain names, comments and the 0x4000 masquerade bit.

import { servicePortChainName, servicePortEndpointChainName } from '../src/k8s/kube-proxy/names.ts';

export interface ServiceSpec {
  /** `namespace/name:portname`, e.g. default/signalements:http. */
  readonly servicePort: string;
  readonly protocol: 'tcp' | 'udp';
  readonly clusterIp: string;
  readonly port: number;
  readonly nodePort: number | undefined;
  /** `ip:port` of each ready endpoint. */
  readonly endpoints: readonly string[];
  /** The cluster's pod CIDR, for the "masquerade off-cluster traffic to the ClusterIP" rule. */
  readonly clusterCidr: string;
}

/** The `*nat` table of iptables-restore input for the Services, ending with COMMIT. */
export function kubeProxyNatRules(services: readonly ServiceSpec[]): string {
  const chains = ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ'];
  const rules: string[] = [
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
    '-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000',
    '-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN',
    '-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000',
    '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully',
  ];
  const nodePortRules: string[] = [];
  for (const service of services) {
    const { servicePort: name, protocol: proto } = service;
    const svc = servicePortChainName('KUBE-SVC-', name, proto);
    chains.push(svc);
    rules.push(
      `-A KUBE-SERVICES -d ${service.clusterIp}/32 -p ${proto} -m comment --comment "${name} cluster IP" -m ${proto} --dport ${service.port} -j ${svc}`,
    );
    rules.push(
      `-A ${svc} ! -s ${service.clusterCidr} -d ${service.clusterIp}/32 -p ${proto} -m comment --comment "${name} cluster IP" -m ${proto} --dport ${service.port} -j KUBE-MARK-MASQ`,
    );
    if (service.nodePort !== undefined) {
      const ext = servicePortChainName('KUBE-EXT-', name, proto);
      chains.push(ext);
      nodePortRules.push(
        `-A KUBE-NODEPORTS -p ${proto} -m comment --comment "${name}" -m ${proto} --dport ${service.nodePort} -j ${ext}`,
      );
      rules.push(
        `-A ${ext} -m comment --comment "masquerade traffic for ${name} external destinations" -j KUBE-MARK-MASQ`,
      );
      rules.push(`-A ${ext} -j ${svc}`);
    }
    const count = service.endpoints.length;
    service.endpoints.forEach((endpoint, i) => {
      const sep = servicePortEndpointChainName(name, proto, endpoint);
      chains.push(sep);
      const remaining = count - i;
      const statistic =
        remaining > 1 ? ` -m statistic --mode random --probability ${(1 / remaining).toFixed(10)}` : '';
      rules.push(`-A ${svc} -m comment --comment "${name} -> ${endpoint}"${statistic} -j ${sep}`);
      const ip = endpoint.split(':')[0];
      rules.push(`-A ${sep} -s ${ip}/32 -m comment --comment "${name}" -j KUBE-MARK-MASQ`);
      rules.push(
        `-A ${sep} -p ${proto} -m comment --comment "${name}" -m ${proto} -j DNAT --to-destination ${endpoint}`,
      );
    });
  }
  rules.push(...nodePortRules);
  rules.push(
    '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
  );
  return [
    '*nat',
    ':PREROUTING ACCEPT [0:0]',
    ':INPUT ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    ':POSTROUTING ACCEPT [0:0]',
    ...chains.map((chain) => `:${chain} - [0:0]`),
    ...rules,
    'COMMIT',
    '',
  ].join('\n');
}

/** The lesson's Service signalements: 10.96.40.12:80 (NodePort 30080) over the two pods of the lesson. */
export const SIGNALEMENTS: ServiceSpec = {
  servicePort: 'default/signalements:http',
  protocol: 'tcp',
  clusterIp: '10.96.40.12',
  port: 80,
  nodePort: 30080,
  endpoints: ['10.244.1.9:8000', '10.244.2.7:8000'],
  clusterCidr: '10.244.0.0/16',
};
