// The iptables-restore input of one full sync of kube-proxy's iptables mode: the `*filter` and `*nat` tables that
// pkg/proxy/iptables/proxier.go (Kubernetes v1.31) syncProxyRules writes, word for word and in its order. IPv4 only;
// no partial syncs (every sync is a full one), no stale-chain deletion (`-X`, which needs the node's current
// iptables-save), --nodeport-addresses left at its default (every local address).

import ipaddr from 'ipaddr.js';
import { type EndpointSlice, SERVICE_NAME_LABEL } from '../../objects.ts';
import { servicePortChainName, servicePortEndpointChainName } from '../names.ts';
import type { ProxierView } from '../proxier.ts';
import {
  categorizeEndpoints,
  type EndpointInfo,
  endpointsOf,
  type ServicePortInfo,
  servicePorts,
  usesClusterEndpoints,
  usesLocalEndpoints,
} from './service-ports.ts';

/** The knobs of NewProxier that change the text, and what the node's iptables and kernel offer. */
export interface RulesetOptions {
  /** iptables supports MASQUERADE --random-fully (HasRandomFully: iptables >= 1.6.2). */
  readonly randomFully: boolean;
  /** --iptables-localhost-nodeports (default true): NodePorts answer on 127.0.0.1; writes KUBE-FIREWALL. */
  readonly localhostNodePorts: boolean;
  /** The nfacct counters could be created (nfacct.Ensure): the INVALID drop and localhost NodePort rules count. */
  readonly nfacct: boolean;
  /** net.netfilter.nf_conntrack_tcp_be_liberal is set: no INVALID drop rule. */
  readonly conntrackTCPLiberal: boolean;
  /** --masquerade-all. */
  readonly masqueradeAll: boolean;
  /**
   * The mark text; NewProxier writes `%#08x` of 1 << masqueradeBit (`0x00004000`); kube-proxy's own tests set `0x4000`.
   * Undefined: computed from the view's masqueradeBit.
   */
  readonly masqueradeMark: string | undefined;
}

/** largeClusterEndpointsThreshold: above this many endpoints the per-endpoint comments are left out. */
const LARGE_CLUSTER_ENDPOINTS = 1000;

export const LOCALHOST_NODEPORT_COUNTER = 'localhost_nps_accepted_pkts';
export const INVALID_DROPPED_COUNTER = 'ct_state_invalid_dropped_pkts';

/** mirrors NewProxier: fmt.Sprintf("%#08x", 1<<masqueradeBit). */
export function masqueradeMarkOf(bit: number): string {
  return `0x${(2 ** bit).toString(16).padStart(8, '0')}`;
}

/**
 * mirrors proxier.go:computeProbability, fmt.Sprintf("%0.10f", 1.0/float64(n)). Go rounds the binary value half to
 * even; toFixed rounds an exact tie up, and 1/n is an exact tie at ten digits only for powers of two from 2048.
 */
export function probability(n: number): string {
  const text = (1 / n).toFixed(10);
  const isPowerOfTwo = (n & (n - 1)) === 0;
  if (!isPowerOfTwo || n <= 1024) return text;
  const scaled = 10n ** 10n;
  const big = BigInt(n);
  let q = scaled / big;
  const r = scaled % big;
  if (r * 2n > big || (r * 2n === big && q % 2n === 1n)) q += 1n;
  return `0.${q.toString().padStart(10, '0')}`;
}

/** One table's chain lines and rule lines, as proxyutil.LineBuffer keeps them. */
class Lines {
  readonly chains: string[] = [];
  readonly rules: string[] = [];
  chain(name: string): void {
    this.chains.push(`:${name} - [0:0]`);
  }
  rule(...words: readonly (string | readonly string[])[]): void {
    this.rules.push(words.flat().join(' '));
  }
}

function quoted(text: string): string {
  return `"${text}"`;
}

/** One sync's restore input, and the nat chains it keeps (syncProxyRules' activeNATChains). */
export interface RenderedRuleset {
  /** Ends with the nat table's COMMIT and a newline. */
  readonly text: string;
  readonly activeNatChains: ReadonlySet<string>;
}

const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-SEP-', 'KUBE-FW-', 'KUBE-EXT-'];

/** proxier.go:isServiceChainName. */
export function isServiceChainName(chain: string): boolean {
  return SERVICE_CHAIN_PREFIXES.some((prefix) => chain.startsWith(prefix));
}

/**
 * The restore input for `view`. `existingNatChains` are the nat chains the node has (kube-proxy reads them with
 * iptables-save): the service chains among them that this sync does not keep are flushed and deleted (`-X`).
 */
export function renderRuleset(
  view: ProxierView,
  options: RulesetOptions,
  existingNatChains: ReadonlySet<string> = new Set(),
): RenderedRuleset {
  const mark = options.masqueradeMark ?? masqueradeMarkOf(view.masqueradeBit);
  const markMask = `${mark}/${mark}`;
  const nodeIP = view.nodeIps[0];
  const filter = new Lines();
  const nat = new Lines();

  for (const chain of [
    'KUBE-SERVICES',
    'KUBE-EXTERNAL-SERVICES',
    'KUBE-FORWARD',
    'KUBE-NODEPORTS',
    'KUBE-PROXY-FIREWALL',
  ])
    filter.chain(chain);
  for (const chain of ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ'])
    nat.chain(chain);

  nat.rule('-A', 'KUBE-POSTROUTING', '-m', 'mark', '!', '--mark', markMask, '-j', 'RETURN');
  nat.rule('-A', 'KUBE-POSTROUTING', '-j', 'MARK', '--xor-mark', mark);
  nat.rule(
    '-A',
    'KUBE-POSTROUTING',
    '-m',
    'comment',
    '--comment',
    quoted('kubernetes service traffic requiring SNAT'),
    '-j',
    'MASQUERADE',
    options.randomFully ? ['--random-fully'] : [],
  );
  nat.rule('-A', 'KUBE-MARK-MASQ', '-j', 'MARK', '--or-mark', mark);

  if (options.localhostNodePorts) {
    filter.chain('KUBE-FIREWALL');
    filter.rule(
      '-A',
      'KUBE-FIREWALL',
      '-m',
      'comment',
      '--comment',
      quoted('block incoming localnet connections'),
      '-d',
      '127.0.0.0/8',
      '!',
      '-s',
      '127.0.0.0/8',
      '-m',
      'conntrack',
      '!',
      '--ctstate',
      'RELATED,ESTABLISHED,DNAT',
      '-j',
      'DROP',
    );
  }

  const ports = view.services
    .flatMap(servicePorts)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.protocol < b.protocol ? -1 : 1));
  // The slices of each Service, found once rather than once per port.
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const slice of view.endpointSlices) {
    const key = `${slice.metadata.namespace}/${slice.metadata.labels[SERVICE_NAME_LABEL] ?? ''}`;
    let list = slicesByService.get(key);
    if (list === undefined) {
      list = [];
      slicesByService.set(key, list);
    }
    list.push(slice);
  }
  const endpointsByPort = ports.map((info) =>
    endpointsOf(info, slicesByService.get(`${info.namespace}/${info.serviceName}`) ?? [], view.nodeName),
  );
  const totalEndpoints = endpointsByPort.reduce((sum, eps) => sum + eps.length, 0);
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  const context: ServiceContext = { view, options, mark, nodeIP, largeClusterMode, filter, nat };
  ports.forEach((info, i) => {
    writeServicePort(context, info, endpointsByPort[i]!);
  });

  // Delete chains no longer in use (in name order; kube-proxy's is a Go set's).
  const active = new Set(nat.chains.map((line) => line.slice(1, line.indexOf(' '))));
  for (const chain of [...existingNatChains].sort()) {
    if (active.has(chain) || !isServiceChainName(chain)) continue;
    nat.chain(chain);
    nat.rule('-X', chain);
  }

  // The tail call to KUBE-NODEPORTS (nodePortAddresses.MatchAll()).
  nat.rule(
    '-A',
    'KUBE-SERVICES',
    '-m',
    'comment',
    '--comment',
    quoted('kubernetes service nodeports; NOTE: this must be the last rule in this chain'),
    '-m',
    'addrtype',
    '--dst-type',
    'LOCAL',
    options.localhostNodePorts ? [] : ['!', '-d', '127.0.0.0/8'],
    '-j',
    'KUBE-NODEPORTS',
  );

  if (!options.conntrackTCPLiberal) {
    filter.rule(
      '-A',
      'KUBE-FORWARD',
      '-m',
      'conntrack',
      '--ctstate',
      'INVALID',
      options.nfacct ? ['-m', 'nfacct', '--nfacct-name', INVALID_DROPPED_COUNTER] : [],
      '-j',
      'DROP',
    );
  }
  filter.rule(
    '-A',
    'KUBE-FORWARD',
    '-m',
    'comment',
    '--comment',
    quoted('kubernetes forwarding rules'),
    '-m',
    'mark',
    '--mark',
    markMask,
    '-j',
    'ACCEPT',
  );
  filter.rule(
    '-A',
    'KUBE-FORWARD',
    '-m',
    'comment',
    '--comment',
    quoted('kubernetes forwarding conntrack rule'),
    '-m',
    'conntrack',
    '--ctstate',
    'RELATED,ESTABLISHED',
    '-j',
    'ACCEPT',
  );

  const text = [
    '*filter',
    ...filter.chains,
    ...filter.rules,
    'COMMIT',
    '*nat',
    ...nat.chains,
    ...nat.rules,
    'COMMIT',
    '',
  ].join('\n');
  return { text, activeNatChains: active };
}

interface ServiceContext {
  readonly view: ProxierView;
  readonly options: RulesetOptions;
  readonly mark: string;
  readonly nodeIP: string | undefined;
  readonly largeClusterMode: boolean;
  readonly filter: Lines;
  readonly nat: Lines;
}

/** The rules of one service port: syncProxyRules' loop body. */
function writeServicePort(
  context: ServiceContext,
  info: ServicePortInfo,
  endpoints: readonly EndpointInfo[],
): void {
  const { options, filter, nat, view, nodeIP } = context;
  const { name, protocol } = info;
  const port = String(info.port);
  const match = ['-m', protocol, '-p', protocol];
  const { clusterEndpoints, localEndpoints, allReachableEndpoints, hasAnyEndpoints } = categorizeEndpoints(
    endpoints,
    info,
  );
  const clusterPolicyChain = servicePortChainName('KUBE-SVC-', name, protocol);
  const localPolicyChain = servicePortChainName('KUBE-SVL-', name, protocol);
  const externalTrafficChain = servicePortChainName('KUBE-EXT-', name, protocol);
  const fwChain = servicePortChainName('KUBE-FW-', name, protocol);
  const usesClusterPolicyChain = clusterEndpoints.length > 0 && usesClusterEndpoints(info);
  const usesLocalPolicyChain = localEndpoints.length > 0 && usesLocalEndpoints(info);

  let internalTrafficChain = clusterPolicyChain;
  let hasInternalEndpoints = hasAnyEndpoints;
  if (info.internalPolicyLocal) {
    internalTrafficChain = localPolicyChain;
    if (localEndpoints.length === 0) hasInternalEndpoints = false;
  }
  let externalPolicyChain = clusterPolicyChain;
  let hasExternalEndpoints = hasAnyEndpoints;
  if (info.externalPolicyLocal) {
    externalPolicyChain = localPolicyChain;
    if (localEndpoints.length === 0) hasExternalEndpoints = false;
  }
  const usesExternalTrafficChain = hasAnyEndpoints && info.externallyAccessible;
  const usesFWChain =
    hasAnyEndpoints && info.loadBalancerVIPs.length > 0 && info.loadBalancerSourceRanges.length > 0;
  const loadBalancerTrafficChain = usesFWChain ? fwChain : externalTrafficChain;

  let internalFilterTarget = '';
  let internalFilterComment = '';
  let externalFilterTarget = '';
  let externalFilterComment = '';
  if (!hasAnyEndpoints) {
    internalFilterTarget = 'REJECT';
    internalFilterComment = quoted(`${name} has no endpoints`);
    externalFilterTarget = 'REJECT';
    externalFilterComment = internalFilterComment;
  } else {
    if (!hasInternalEndpoints) {
      internalFilterTarget = 'DROP';
      internalFilterComment = quoted(`${name} has no local endpoints`);
    }
    if (!hasExternalEndpoints) {
      externalFilterTarget = 'DROP';
      externalFilterComment = quoted(`${name} has no local endpoints`);
    }
  }

  // Capture the clusterIP.
  if (hasInternalEndpoints) {
    nat.rule(
      '-A',
      'KUBE-SERVICES',
      '-m',
      'comment',
      '--comment',
      quoted(`${name} cluster IP`),
      match,
      '-d',
      info.clusterIP,
      '--dport',
      port,
      '-j',
      internalTrafficChain,
    );
  } else {
    filter.rule(
      '-A',
      'KUBE-SERVICES',
      '-m',
      'comment',
      '--comment',
      internalFilterComment,
      match,
      '-d',
      info.clusterIP,
      '--dport',
      port,
      '-j',
      internalFilterTarget,
    );
  }

  // Capture externalIPs.
  for (const externalIP of info.externalIPs) {
    if (hasAnyEndpoints) {
      nat.rule(
        '-A',
        'KUBE-SERVICES',
        '-m',
        'comment',
        '--comment',
        quoted(`${name} external IP`),
        match,
        '-d',
        externalIP,
        '--dport',
        port,
        '-j',
        externalTrafficChain,
      );
    }
    if (!hasExternalEndpoints) {
      filter.rule(
        '-A',
        'KUBE-EXTERNAL-SERVICES',
        '-m',
        'comment',
        '--comment',
        externalFilterComment,
        match,
        '-d',
        externalIP,
        '--dport',
        port,
        '-j',
        externalFilterTarget,
      );
    }
  }

  // Capture load-balancer ingress.
  for (const lbip of info.loadBalancerVIPs) {
    if (hasAnyEndpoints) {
      nat.rule(
        '-A',
        'KUBE-SERVICES',
        '-m',
        'comment',
        '--comment',
        quoted(`${name} loadbalancer IP`),
        match,
        '-d',
        lbip,
        '--dport',
        port,
        '-j',
        loadBalancerTrafficChain,
      );
    }
    if (usesFWChain) {
      filter.rule(
        '-A',
        'KUBE-PROXY-FIREWALL',
        '-m',
        'comment',
        '--comment',
        quoted(`${name} traffic not accepted by ${fwChain}`),
        match,
        '-d',
        lbip,
        '--dport',
        port,
        '-j',
        'DROP',
      );
    }
  }
  if (!hasExternalEndpoints) {
    for (const lbip of info.loadBalancerVIPs) {
      filter.rule(
        '-A',
        'KUBE-EXTERNAL-SERVICES',
        '-m',
        'comment',
        '--comment',
        externalFilterComment,
        match,
        '-d',
        lbip,
        '--dport',
        port,
        '-j',
        externalFilterTarget,
      );
    }
  }

  // Capture nodeports.
  if (info.nodePort !== 0) {
    const nodePort = String(info.nodePort);
    if (hasAnyEndpoints) {
      if (options.localhostNodePorts && options.nfacct) {
        nat.rule(
          '-A',
          'KUBE-NODEPORTS',
          '-m',
          'comment',
          '--comment',
          name,
          match,
          '-d',
          '127.0.0.0/8',
          '--dport',
          nodePort,
          '-m',
          'nfacct',
          '--nfacct-name',
          LOCALHOST_NODEPORT_COUNTER,
          '-j',
          externalTrafficChain,
        );
      }
      nat.rule(
        '-A',
        'KUBE-NODEPORTS',
        '-m',
        'comment',
        '--comment',
        name,
        match,
        '--dport',
        nodePort,
        '-j',
        externalTrafficChain,
      );
    }
    if (!hasExternalEndpoints) {
      filter.rule(
        '-A',
        'KUBE-EXTERNAL-SERVICES',
        '-m',
        'comment',
        '--comment',
        externalFilterComment,
        '-m',
        'addrtype',
        '--dst-type',
        'LOCAL',
        match,
        '--dport',
        nodePort,
        '-j',
        externalFilterTarget,
      );
    }
  }

  // Capture healthCheckNodePorts.
  if (info.healthCheckNodePort !== 0) {
    filter.rule(
      '-A',
      'KUBE-NODEPORTS',
      '-m',
      'comment',
      '--comment',
      quoted(`${name} health check node port`),
      '-m',
      'tcp',
      '-p',
      'tcp',
      '--dport',
      String(info.healthCheckNodePort),
      '-j',
      'ACCEPT',
    );
  }

  // Internal traffic handling.
  if (hasInternalEndpoints) {
    const args = [
      '-m',
      'comment',
      '--comment',
      quoted(`${name} cluster IP`),
      ...match,
      '-d',
      info.clusterIP,
      '--dport',
      port,
    ];
    if (options.masqueradeAll) nat.rule('-A', internalTrafficChain, args, '-j', 'KUBE-MARK-MASQ');
    else nat.rule('-A', internalTrafficChain, args, '!', '-s', view.clusterCidr, '-j', 'KUBE-MARK-MASQ');
  }

  // External traffic handling.
  if (usesExternalTrafficChain) {
    nat.chain(externalTrafficChain);
    if (!info.externalPolicyLocal) {
      nat.rule(
        '-A',
        externalTrafficChain,
        '-m',
        'comment',
        '--comment',
        quoted(`masquerade traffic for ${name} external destinations`),
        '-j',
        'KUBE-MARK-MASQ',
      );
    } else {
      nat.rule(
        '-A',
        externalTrafficChain,
        '-m',
        'comment',
        '--comment',
        quoted(`pod traffic for ${name} external destinations`),
        '-s',
        view.clusterCidr,
        '-j',
        clusterPolicyChain,
      );
      nat.rule(
        '-A',
        externalTrafficChain,
        '-m',
        'comment',
        '--comment',
        quoted(`masquerade LOCAL traffic for ${name} external destinations`),
        '-m',
        'addrtype',
        '--src-type',
        'LOCAL',
        '-j',
        'KUBE-MARK-MASQ',
      );
      nat.rule(
        '-A',
        externalTrafficChain,
        '-m',
        'comment',
        '--comment',
        quoted(`route LOCAL traffic for ${name} external destinations`),
        '-m',
        'addrtype',
        '--src-type',
        'LOCAL',
        '-j',
        clusterPolicyChain,
      );
    }
    if (hasExternalEndpoints) nat.rule('-A', externalTrafficChain, '-j', externalPolicyChain);
  }

  // The firewall chain (loadBalancerSourceRanges).
  if (usesFWChain) {
    nat.chain(fwChain);
    const args = ['-A', fwChain, '-m', 'comment', '--comment', quoted(`${name} loadbalancer IP`)];
    let allowFromNode = false;
    for (const cidr of info.loadBalancerSourceRanges) {
      nat.rule(args, '-s', cidr, '-j', externalTrafficChain);
      if (nodeIP !== undefined && cidrContains(cidr, nodeIP)) allowFromNode = true;
    }
    if (allowFromNode)
      for (const lbip of info.loadBalancerVIPs) nat.rule(args, '-s', lbip, '-j', externalTrafficChain);
    nat.rule(
      '-A',
      fwChain,
      '-m',
      'comment',
      '--comment',
      quoted(`other traffic to ${name} will be dropped by KUBE-PROXY-FIREWALL`),
    );
  }

  if (usesClusterPolicyChain) {
    nat.chain(clusterPolicyChain);
    writeServiceToEndpointRules(context, info, clusterPolicyChain, clusterEndpoints);
  }
  if (usesLocalPolicyChain) {
    nat.chain(localPolicyChain);
    writeServiceToEndpointRules(context, info, localPolicyChain, localEndpoints);
  }

  // The per-endpoint chains.
  for (const ep of allReachableEndpoints) {
    const endpointChain = servicePortEndpointChainName(name, protocol, ep.text);
    nat.chain(endpointChain);
    const args = ['-A', endpointChain, ...serviceComment(context, name)];
    nat.rule(args, '-s', ep.ip, '-j', 'KUBE-MARK-MASQ');
    const affinity = info.clientIPAffinity ? ['-m', 'recent', '--name', endpointChain, '--set'] : [];
    nat.rule(args, affinity, match, '-j', 'DNAT', '--to-destination', ep.text);
  }
}

/** appendServiceCommentLocked: no comment in large-cluster mode. */
function serviceComment(context: ServiceContext, comment: string): string[] {
  return context.largeClusterMode ? [] : ['-m', 'comment', '--comment', comment];
}

/** mirrors proxier.go:writeServiceToEndpointRules — affinity checks first, then the statistic cascade. */
function writeServiceToEndpointRules(
  context: ServiceContext,
  info: ServicePortInfo,
  chain: string,
  endpoints: readonly EndpointInfo[],
): void {
  const { nat } = context;
  const { name, protocol } = info;
  if (info.clientIPAffinity) {
    for (const ep of endpoints) {
      const sep = servicePortEndpointChainName(name, protocol, ep.text);
      nat.rule(
        '-A',
        chain,
        serviceComment(context, quoted(`${name} -> ${ep.text}`)),
        '-m',
        'recent',
        '--name',
        sep,
        '--rcheck',
        '--seconds',
        String(info.stickyMaxAgeSeconds),
        '--reap',
        '-j',
        sep,
      );
    }
  }
  endpoints.forEach((ep, i) => {
    const sep = servicePortEndpointChainName(name, protocol, ep.text);
    const statistic =
      i < endpoints.length - 1
        ? ['-m', 'statistic', '--mode', 'random', '--probability', probability(endpoints.length - i)]
        : [];
    nat.rule('-A', chain, serviceComment(context, quoted(`${name} -> ${ep.text}`)), statistic, '-j', sep);
  });
}

/** net.IPNet.Contains for an IPv4 CIDR (`203.0.113.0/25`), with ipaddr.js; false for anything unparsable. */
function cidrContains(cidr: string, ip: string): boolean {
  if (!ipaddr.IPv4.isValid(ip)) return false;
  try {
    const range = ipaddr.IPv4.parseCIDR(cidr);
    return ipaddr.IPv4.parse(ip).match(range);
  } catch {
    return false;
  }
}
