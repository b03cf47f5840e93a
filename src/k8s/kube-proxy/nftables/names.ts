// The names kube-proxy's nftables proxier gives its per-service chains and affinity sets (pkg/proxy/nftables/
// proxier.go: hashAndTruncate, servicePortChainNameBase, servicePortEndpointChainNameBase): 8 base32 characters of
// the name's SHA-256, a dash, the readable name. IPv4 endpoints only (no colon rewriting for IPv6).

import { hashPrefix } from '../names.ts';

/** knftables.NameLengthMax (256) minus chainNamePrefixLengthMax (16). */
const CHAIN_NAME_BASE_LENGTH_MAX = 240;

/** mirrors proxier.go:hashAndTruncate */
export function hashAndTruncate(name: string): string {
  const hashed = `${hashPrefix(name, 8)}-${name}`;
  return hashed.length > CHAIN_NAME_BASE_LENGTH_MAX
    ? `${hashed.slice(0, CHAIN_NAME_BASE_LENGTH_MAX - 3)}...`
    : hashed;
}

/** The ServicePort as the chain names spell it: `namespace/name/protocol/portName`. */
export interface ServicePortName {
  readonly namespace: string;
  readonly name: string;
  /** Lower case: tcp, udp, sctp. */
  readonly protocol: string;
  /** '' for a single unnamed port. */
  readonly port: string;
}

/** mirrors proxier.go:servicePortChainNameBase (`ULMVA6XW-ns1/svc1/tcp/p80`). */
export function servicePortChainNameBase(port: ServicePortName): string {
  return hashAndTruncate(`${port.namespace}/${port.name}/${port.protocol}/${port.port}`);
}

/** mirrors proxier.go:servicePortEndpointChainNameBase (`5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80`). */
export function servicePortEndpointChainNameBase(
  port: ServicePortName,
  ip: string,
  targetPort: number,
): string {
  return hashAndTruncate(`${port.namespace}/${port.name}/${port.protocol}/${port.port}__${ip}/${targetPort}`);
}

/** The chains and the affinity-set prefix of one ServicePort (newServiceInfo, newEndpointInfo). */
export const CHAIN_PREFIX = {
  cluster: 'service-',
  local: 'local-',
  external: 'external-',
  endpoint: 'endpoint-',
  affinity: 'affinity-',
  firewall: 'firewall-',
} as const;
