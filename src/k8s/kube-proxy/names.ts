// kube-proxy's hashed chain names (pkg/proxy/iptables/proxier.go: portProtoHash, servicePortPolicyClusterChain,
// servicePortPolicyLocalChainName, serviceFirewallChainName, serviceExternalChainName, servicePortEndpointChainName;
// pkg/proxy/nftables: hashAndTruncate): a prefix and the first characters of base32(sha256(...)). SHA-256 comes
// from @noble/hashes, so the names are the same in a browser; nothing here knows about rules.

import { sha256 } from '@noble/hashes/sha2.js';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const encoder = new TextEncoder();

/** RFC 4648 base32 (Go's base32.StdEncoding) without the padding, which no caller keeps. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/** Names already hashed (a sync names every chain again), dropped whole past MAX_CACHED so churn cannot grow it. */
const cache = new Map<string, string>();
const MAX_CACHED = 200_000;

/** The first `length` base32 characters of the SHA-256 of `text` (UTF-8). */
export function hashPrefix(text: string, length: number): string {
  const key = `${length}|${text}`;
  let hash = cache.get(key);
  if (hash === undefined) {
    hash = base32(sha256(encoder.encode(text))).slice(0, length);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, hash);
  }
  return hash;
}

/** `namespace/name:port` as proxy.ServicePortName.String() writes it (`namespace/name` for an unnamed port). */
export function servicePortName(namespace: string, name: string, port: string): string {
  return port === '' ? `${namespace}/${name}` : `${namespace}/${name}:${port}`;
}

/** The per-service-port chain prefixes of the iptables proxier. */
export type ServiceChainPrefix = 'KUBE-SVC-' | 'KUBE-SVL-' | 'KUBE-EXT-' | 'KUBE-FW-';

/** mirrors proxier.go:portProtoHash — `servicePort` is `namespace/name:port`, `protocol` lower case (`tcp`). */
export function portProtoHash(servicePort: string, protocol: string): string {
  return hashPrefix(servicePort + protocol, 16);
}

/** KUBE-SVC- (servicePortPolicyClusterChain), KUBE-SVL-, KUBE-EXT-, KUBE-FW- for one service port. */
export function servicePortChainName(
  prefix: ServiceChainPrefix,
  servicePort: string,
  protocol: string,
): string {
  return prefix + portProtoHash(servicePort, protocol);
}

/** mirrors proxier.go:servicePortEndpointChainName — KUBE-SEP- for the endpoint `ip:port` of a service port. */
export function servicePortEndpointChainName(
  servicePort: string,
  protocol: string,
  endpoint: string,
): string {
  return `KUBE-SEP-${hashPrefix(servicePort + protocol + endpoint, 16)}`;
}
