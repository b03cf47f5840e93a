// The ruleset kube-proxy's nftables mode writes (pkg/proxy/nftables/proxier.go: setupNFTables, syncProxyRules) for
// one ServicePort with one endpoint, as the `nft -f` transaction knftables builds, with the real chain names; not
// modelled: several endpoints, session affinity, Local traffic policies, LoadBalancer IPs and source ranges.

import { hashPrefix } from '../src/k8s/kube-proxy/names.ts';

/** One ServicePort and its one endpoint; a single endpoint keeps the kernel's `numgen random` choice fixed. */
export interface NftService {
  readonly namespace: string;
  readonly name: string;
  readonly portName: string;
  readonly protocol: 'tcp' | 'udp';
  readonly clusterIp: string;
  readonly port: number;
  readonly nodePort: number | undefined;
  readonly endpoint: { readonly ip: string; readonly port: number };
  /** The pods' CIDR: traffic to the ClusterIP from outside it is masqueraded (the LocalTrafficDetector). */
  readonly clusterCidr: string;
  /** The Service CIDR: traffic to an unallocated ClusterIP in it is dropped. */
  readonly serviceCidr: string;
}

/** The proxier's hashAndTruncate: the first 8 base32 characters of the name's SHA-256, a dash, the name. */
function hashed(name: string): string {
  return `${hashPrefix(name, 8)}-${name}`;
}

/**
 * What kube-proxy's nftables proxier writes for `service` (setupNFTables, then syncProxyRules), as the `nft -f`
 * transaction knftables builds: `add` then `flush` for every chain, rules, then the map elements. NodePorts on
 * every local address (`--nodeport-addresses` unset: `fib daddr type local`). `counters` puts a `counter` in
 * every rule before its statement, which kube-proxy does not, so that `nft list ruleset` shows every rule's hits.
 */
export function kubeProxyNftRuleset(service: NftService, options: { counters: boolean }): string {
  const portName = `${service.namespace}/${service.name}/${service.protocol}/${service.portName}`;
  const serviceChain = `service-${hashed(portName)}`;
  const externalChain = `external-${hashed(portName)}`;
  const endpoint = `${service.endpoint.ip}:${service.endpoint.port}`;
  const endpointChain = `endpoint-${hashed(`${portName}__${service.endpoint.ip}/${service.endpoint.port}`)}`;
  const lines: string[] = [];
  const table = 'ip kube-proxy';
  const chain = (name: string, spec = ''): void => {
    lines.push(`add chain ${table} ${name}${spec === '' ? '' : ` { ${spec} ; }`}`);
    lines.push(`flush chain ${table} ${name}`);
  };
  /** A rule: its matches, then its statement (where the optional counter goes), then its comment. */
  const rule = (name: string, match: string, statement: string, comment?: string): void => {
    const words = [match, options.counters ? 'counter' : '', statement].filter((word) => word !== '');
    lines.push(
      `add rule ${table} ${name} ${words.join(' ')}${comment === undefined ? '' : ` comment "${comment}"`}`,
    );
  };

  lines.push(`add table ${table} { comment "rules for kube-proxy" ; }`);
  // The base chains at dstnat - 10 (filter), dstnat + 10 (filter after DNAT), dstnat and srcnat (nat). nft takes
  // a named priority only where the hook allows it (dstnat in prerouting, srcnat in postrouting).
  const baseChains: readonly [string, string][] = [
    ['filter-prerouting', 'type filter hook prerouting priority dstnat - 10'],
    ['filter-input', 'type filter hook input priority -110'],
    ['filter-forward', 'type filter hook forward priority -110'],
    ['filter-output', 'type filter hook output priority -110'],
    ['filter-output-post-dnat', 'type filter hook output priority -90'],
    ['nat-prerouting', 'type nat hook prerouting priority dstnat'],
    ['nat-output', 'type nat hook output priority -100'],
    ['nat-postrouting', 'type nat hook postrouting priority srcnat'],
  ];
  // The first sync adds and deletes every base chain, so that one left with other properties is recreated.
  for (const [name] of baseChains) lines.push(`add chain ${table} ${name}`, `delete chain ${table} ${name}`);
  for (const [name, spec] of baseChains) chain(name, spec);
  const jumps: readonly [string, string, string][] = [
    ['nodeport-endpoints-check', 'filter-input', 'ct state new'],
    ['service-endpoints-check', 'filter-input', 'ct state new'],
    ['service-endpoints-check', 'filter-forward', 'ct state new'],
    ['service-endpoints-check', 'filter-output', 'ct state new'],
    ['firewall-check', 'filter-prerouting', 'ct state new'],
    ['firewall-check', 'filter-output', 'ct state new'],
    ['services', 'nat-output', ''],
    ['services', 'nat-prerouting', ''],
    ['masquerading', 'nat-postrouting', ''],
    ['cluster-ips-check', 'filter-forward', 'ct state new'],
    ['cluster-ips-check', 'filter-output-post-dnat', 'ct state new'],
  ];
  const created = new Set<string>();
  for (const [target, from, match] of jumps) {
    if (!created.has(target)) chain(target);
    created.add(target);
    rule(from, match, `jump ${target}`);
  }
  chain('mark-for-masquerade');
  // The masquerade bit as the proxier formats it (`%#08x` of 1 << 14).
  const bit = '0x004000';
  rule('mark-for-masquerade', '', `mark set mark or ${bit}`);
  rule('masquerading', `mark and ${bit} == 0`, 'return');
  rule('masquerading', '', `mark set mark xor ${bit}`);
  rule('masquerading', '', 'masquerade fully-random');
  lines.push(`add set ${table} cluster-ips { type ipv4_addr ; comment "Active ClusterIPs" ; }`);
  rule(
    'cluster-ips-check',
    'ip daddr @cluster-ips',
    'reject',
    'Reject traffic to invalid ports of ClusterIPs',
  );
  rule(
    'cluster-ips-check',
    `ip daddr { ${service.serviceCidr} }`,
    'drop',
    'Drop traffic to unallocated ClusterIPs',
  );
  lines.push(
    `add map ${table} no-endpoint-services { type ipv4_addr . inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to services with no endpoints" ; }`,
    `add map ${table} no-endpoint-nodeports { type inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to service nodeports with no endpoints" ; }`,
    `add chain ${table} reject-chain { comment "helper for @no-endpoint-services / @no-endpoint-nodeports" ; }`,
    `flush chain ${table} reject-chain`,
  );
  rule('reject-chain', '', 'reject');
  rule('service-endpoints-check', '', 'ip daddr . meta l4proto . th dport vmap @no-endpoint-services');
  rule(
    'nodeport-endpoints-check',
    'ip daddr != 127.0.0.0/8',
    'meta l4proto . th dport vmap @no-endpoint-nodeports',
  );
  lines.push(
    `add map ${table} firewall-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "destinations that are subject to LoadBalancerSourceRanges" ; }`,
  );
  rule('firewall-check', '', 'ip daddr . meta l4proto . th dport vmap @firewall-ips');
  lines.push(
    `add map ${table} service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ; }`,
    `add map ${table} service-nodeports { type inet_proto . inet_service : verdict ; comment "NodePort traffic" ; }`,
  );
  rule('services', '', 'ip daddr . meta l4proto . th dport vmap @service-ips');
  rule(
    'services',
    'fib daddr type local ip daddr != 127.0.0.0/8',
    'meta l4proto . th dport vmap @service-nodeports',
  );
  for (const name of [
    'cluster-ips',
    'service-ips',
    'firewall-ips',
    'no-endpoint-services',
    'no-endpoint-nodeports',
    'service-nodeports',
  ])
    lines.push(`flush ${name === 'cluster-ips' ? 'set' : 'map'} ${table} ${name}`);

  // syncProxyRules: the endpoint chain, the service's chain, its external chain when it has a NodePort.
  chain(endpointChain);
  chain(serviceChain);
  if (service.nodePort !== undefined) chain(externalChain);
  lines.push(`add element ${table} cluster-ips { ${service.clusterIp} }`);
  lines.push(
    `add element ${table} service-ips { ${service.clusterIp} . ${service.protocol} . ${service.port} : goto ${serviceChain} }`,
  );
  if (service.nodePort !== undefined)
    lines.push(
      `add element ${table} service-nodeports { ${service.protocol} . ${service.nodePort} : goto ${externalChain} }`,
    );
  rule(
    serviceChain,
    `ip daddr ${service.clusterIp} ip saddr != ${service.clusterCidr}`,
    'jump mark-for-masquerade',
  );
  if (service.nodePort !== undefined) {
    rule(externalChain, '', 'jump mark-for-masquerade');
    rule(externalChain, '', `goto ${serviceChain}`);
  }
  rule(serviceChain, '', `numgen random mod 1 vmap { 0 : goto ${endpointChain} }`);
  rule(endpointChain, `ip saddr ${service.endpoint.ip}`, 'jump mark-for-masquerade');
  rule(endpointChain, `meta l4proto ${service.protocol}`, `dnat to ${endpoint}`);
  return `${lines.join('\n')}\n`;
}
