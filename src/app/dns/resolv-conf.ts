// A namespace's /etc/resolv.conf (the file its processes' resolver reads: a pod's, as containerd writes it from the
// kubelet's DNS config) and glibc's reading of it (res_init.c: res_vinit_1, res_setoptions): `nameserver` (the first
// only), `search`/`domain`, `options ndots: timeout: attempts: single-request single-request-reopen`. Other options and sortlist are ignored.

import type { Namespace } from '../../netns/namespace.ts';
import { parseIpv4 } from '../../wire/address.ts';
import type { ResolverOptions } from './resolver.ts';

/** Each namespace's file: its mount namespace's /etc/resolv.conf, which packetlab keeps beside the network one. */
const FILES = new WeakMap<Namespace, string>();

export function writeResolvConf(ns: Namespace, text: string): void {
  FILES.set(ns, text);
}

export function readResolvConf(ns: Namespace): string | undefined {
  return FILES.get(ns);
}

/**
 * The file containerd writes for a pod (sandbox_run: parseDNSOptions): search, then nameserver, then options:
 * `search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n`.
 */
export function podResolvConf(
  podNamespace: string,
  options: {
    readonly nameserver?: string;
    readonly clusterDomain?: string;
    /**
     * The pod's dnsConfig options, merged with ndots:5 as kubelet's dns.go mergeDNSOptions does (the pod's value wins
     * for a name given twice); it rebuilds them from a Go map, in random order: here ndots first, then the pod's.
     */
    readonly dnsOptions?: readonly { readonly name: string; readonly value?: string }[];
  } = {},
): string {
  const domain = options.clusterDomain ?? 'cluster.local';
  const merged = new Map<string, string | undefined>([['ndots', '5']]);
  for (const option of options.dnsOptions ?? []) merged.set(option.name, option.value);
  const words = [...merged].map(([name, value]) => (value === undefined ? name : `${name}:${value}`));
  return [
    `search ${podNamespace}.svc.${domain} svc.${domain} ${domain}`,
    `nameserver ${options.nameserver ?? '10.96.0.10'}`,
    `options ${words.join(' ')}`,
    '',
  ].join('\n');
}

/** res_vinit's reading: undefined when no usable nameserver (glibc then asks 127.0.0.1, which packetlab does not). */
export function parseResolvConf(text: string): ResolverOptions | undefined {
  let nameserver: string | undefined;
  let search: string[] = [];
  let ndots = 1;
  let timeout = 5;
  let attempts = 2;
  let singleRequest = false;
  let singleRequestReopen = false;
  for (const raw of text.split('\n')) {
    if (raw.startsWith('#') || raw.startsWith(';')) continue;
    const words = raw.trim().split(/[ \t]+/);
    const keyword = words[0];
    // The last search or domain line wins (res_vinit_1 resets the list each time).
    if (keyword === 'domain' && words.length > 1) search = [words[1]!];
    else if (keyword === 'search' && words.length > 1) search = words.slice(1);
    else if (keyword === 'nameserver' && nameserver === undefined && words[1] !== undefined) {
      if (parseIpv4(words[1]) !== undefined) nameserver = words[1];
    } else if (keyword === 'options')
      for (const option of words.slice(1)) {
        // res_setoptions caps ndots at RES_MAXNDOTS (15), timeout at RES_MAXRETRANS (30), attempts at RES_MAXRETRY (5).
        const value = (prefix: string, max: number): number | undefined => {
          if (!option.startsWith(prefix)) return undefined;
          const n = Number.parseInt(option.slice(prefix.length), 10);
          return Number.isNaN(n) ? undefined : Math.min(n, max);
        };
        ndots = value('ndots:', 15) ?? ndots;
        timeout = value('timeout:', 30) ?? timeout;
        attempts = value('attempts:', 5) ?? attempts;
        if (option === 'single-request') singleRequest = true;
        if (option === 'single-request-reopen') singleRequestReopen = true;
      }
  }
  if (nameserver === undefined) return undefined;
  return {
    nameserver,
    search,
    ndots,
    timeout: Math.max(1, timeout),
    attempts: Math.max(1, attempts),
    singleRequest,
    singleRequestReopen,
  };
}
