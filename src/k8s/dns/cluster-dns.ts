// The cluster's DNS server, CoreDNS with kubeadm's Corefile (`kubernetes cluster.local in-addr.arpa ip6.arpa { pods
// insecure; fallthrough in-addr.arpa ip6.arpa; ttl 30 }`, `forward . /etc/resolv.conf`) answering over UDP from a table
// the Store's watches keep current: A for Services, headless endpoints and pods, SRV for named ports, PTR for ClusterIPs
// and headless endpoints, NODATA/NXDOMAIN with the zone's SOA, and SERVFAIL for every other name (a kind cluster with
// no reachable upstream: the forward plugin's answer when none replies; given at once, where CoreDNS waits out its
// upstream timeout). No TCP, no EDNS, no ip6.arpa, no caching.

import { corednsReply } from '../../app/dns/server.ts';
import type { Namespace } from '../../netns/namespace.ts';
import type { UdpDatagram } from '../../socket/udp.ts';
import { parseIpv4 } from '../../wire/address.ts';
import {
  DNS_CLASS_IN,
  DNS_RCODE_FORMERR,
  DNS_RCODE_NOERROR,
  DNS_RCODE_NOTIMP,
  DNS_RCODE_NXDOMAIN,
  DNS_RCODE_SERVFAIL,
  DNS_TYPE_A,
  DNS_TYPE_PTR,
  DNS_TYPE_SOA,
  type DnsRecord,
  type DnsRepr,
  DnsView,
  encodeDns,
  nameLabels,
  parseDns,
} from '../../wire/dns.ts';
import { isWireError } from '../../wire/error.ts';
import type { Store } from '../store.ts';
import { buildDnsTable, type DnsTable, podAddress } from './records.ts';

/** SRV's type code (RFC 2782). */
const DNS_TYPE_SRV = 33;

export interface ClusterDnsOptions {
  /** UDP port (53). */
  readonly port?: number;
  /** Address to bind (any when absent). */
  readonly addr?: string;
  /** The cluster domain (`cluster.local`). */
  readonly zone?: string;
  /** kubeadm's `ttl 30`. */
  readonly ttl?: number;
  /** Wall-clock ms at virtual time 0: the SOA serial is the Unix second of the last change seen (default 1700000000 s). */
  readonly epochMs?: number;
}

export interface ClusterDnsStats {
  queries: number;
  answers: number;
  nodata: number;
  nxdomain: number;
  servfail: number;
  malformed: number;
}

export interface ClusterDns {
  readonly port: number;
  readonly stats: ClusterDnsStats;
  /** The current table (for tests and `dig`-like views). */
  table(): DnsTable;
  /** Stops answering and watching. */
  close(): void;
}

/** CoreDNS kubernetes plugin's SOA timers: refresh 2 h, retry 30 min, expire 1 day. */
const SOA_REFRESH = 7200;
const SOA_RETRY = 1800;
const SOA_EXPIRE = 86400;

/** Starts CoreDNS in `ns` (the pod behind kube-dns), answering from `store`. Throws when the port is taken. */
export function clusterDns(ns: Namespace, store: Store, options: ClusterDnsOptions = {}): ClusterDns {
  const zone = (options.zone ?? 'cluster.local').toLowerCase();
  const ttl = options.ttl ?? 30;
  const port = options.port ?? 53;
  const epochMs = options.epochMs ?? 1_700_000_000_000;
  const stats: ClusterDnsStats = {
    queries: 0,
    answers: 0,
    nodata: 0,
    nxdomain: 0,
    servfail: 0,
    malformed: 0,
  };
  let table = buildDnsTable(store, zone);
  let ancestors = ancestorsOf(table, zone);
  let serial = Math.floor((epochMs + ns.sim.now / 1e6) / 1000);
  // The informers: every change to Services, EndpointSlices or Pods rebuilds the table (CoreDNS's dnscontroller).
  const rebuild = (): void => {
    table = buildDnsTable(store, zone);
    ancestors = ancestorsOf(table, zone);
    serial = Math.floor((epochMs + ns.sim.now / 1e6) / 1000);
  };
  const stops = [
    store.watch('Service', rebuild),
    store.watch('EndpointSlice', rebuild),
    store.watch('Pod', rebuild),
  ];
  const bindAddr = options.addr === undefined ? 0 : parseIpv4(options.addr);
  if (bindAddr === undefined) throw new Error(`clusterDns: not an IPv4 address: ${options.addr}`);

  const soa = (): DnsRecord => ({
    name: zone,
    type: DNS_TYPE_SOA,
    class: DNS_CLASS_IN,
    ttl,
    data: {
      kind: 'soa',
      mname: `ns.dns.${zone}`,
      rname: `hostmaster.${zone}`,
      serial,
      refresh: SOA_REFRESH,
      retry: SOA_RETRY,
      expire: SOA_EXPIRE,
      minimum: ttl,
    },
  });
  const inZone = (name: string): boolean => name === zone || name.endsWith(`.${zone}`);

  const aRecord = (owner: string, addr: string): DnsRecord => ({
    name: owner,
    type: DNS_TYPE_A,
    class: DNS_CLASS_IN,
    ttl,
    data: { kind: 'a', addr: parseIpv4(addr)! },
  });

  const answer = (query: DnsRepr): DnsRepr => {
    if (query.opcode !== 0) return corednsReply(query, DNS_RCODE_NOTIMP, [], []);
    if (query.questions.length !== 1) return corednsReply(query, DNS_RCODE_FORMERR, [], []);
    const question = query.questions[0]!;
    const name = question.name.toLowerCase();
    // `kubernetes cluster.local in-addr.arpa ip6.arpa { fallthrough in-addr.arpa ip6.arpa }`: a known address's
    // PTR is answered; any other reverse name falls through to forward, which has no upstream here.
    const target = table.ptr.get(name);
    if (target !== undefined && question.type === DNS_TYPE_PTR && question.class === DNS_CLASS_IN) {
      stats.answers++;
      return corednsReply(
        query,
        DNS_RCODE_NOERROR,
        [
          {
            name: question.name,
            type: DNS_TYPE_PTR,
            class: DNS_CLASS_IN,
            ttl,
            data: { kind: 'name', name: target },
          },
        ],
        [],
      );
    }
    if (!inZone(name)) {
      stats.servfail++;
      return corednsReply(query, DNS_RCODE_SERVFAIL, [], []);
    }
    const pod = podAddress(name, zone, table.namespaces);
    const addrs = pod !== undefined ? [pod] : table.a.get(name);
    const srv = table.srv.get(name);
    if (question.class === DNS_CLASS_IN && question.type === DNS_TYPE_A && addrs !== undefined) {
      stats.answers++;
      return corednsReply(
        query,
        DNS_RCODE_NOERROR,
        addrs.map((addr) => aRecord(question.name, addr)),
        [],
      );
    }
    if (question.class === DNS_CLASS_IN && question.type === DNS_TYPE_SRV && srv !== undefined) {
      stats.answers++;
      // plugin.SRV: priority 0, the weight split evenly (100 / targets, rounded down), targets' A records extra.
      const weight = Math.floor(100 / srv.length);
      const answers = srv.map((entry) => srvRecord(question.name, ttl, weight, entry.port, entry.target));
      const extra: DnsRecord[] = [];
      for (const entry of srv)
        for (const addr of table.a.get(entry.target) ?? []) extra.push(aRecord(entry.target, addr));
      return corednsReply(query, DNS_RCODE_NOERROR, answers, [], extra);
    }
    if (addrs !== undefined || srv !== undefined || ancestors.has(name) || name === zone) {
      stats.nodata++;
      return corednsReply(query, DNS_RCODE_NOERROR, [], [soa()]);
    }
    stats.nxdomain++;
    return corednsReply(query, DNS_RCODE_NXDOMAIN, [], [soa()]);
  };

  const receive = (datagram: UdpDatagram): void => {
    const view = DnsView.checked(datagram.payload);
    if (isWireError(view) || view.response) {
      stats.malformed++;
      return;
    }
    stats.queries++;
    ns.udp.send({
      dst: datagram.srcAddr,
      dstPort: datagram.srcPort,
      ...(bindAddr !== 0 ? { src: bindAddr } : {}),
      srcPort: port,
      payload: encodeDns(answer(parseDns(view)), { compress: true }),
    });
  };
  if (!ns.udp.bind(bindAddr, port, receive))
    throw new Error(`clusterDns: UDP port ${port} is in use in ${ns.name}`);
  return {
    port,
    stats,
    table: () => table,
    close: () => {
      for (const stop of stops) stop();
      ns.udp.unbind(bindAddr, port);
    },
  };
}

/** Every proper ancestor of a name in the zone (empty non-terminals: NODATA, not NXDOMAIN), and the namespaces' names. */
function ancestorsOf(table: DnsTable, zone: string): Set<string> {
  const set = new Set<string>([`svc.${zone}`, `pod.${zone}`]);
  for (const namespace of table.namespaces) {
    set.add(`${namespace}.svc.${zone}`);
    set.add(`${namespace}.pod.${zone}`);
  }
  const add = (name: string): void => {
    const labels = name.split('.');
    for (let i = 1; i < labels.length; i++) {
      const ancestor = labels.slice(i).join('.');
      if (ancestor.length <= zone.length) break;
      set.add(ancestor);
    }
  };
  for (const name of table.a.keys()) add(name);
  for (const name of table.srv.keys()) add(name);
  return set;
}

/** An SRV record (RFC 2782): priority, weight, port, then the target uncompressed. */
function srvRecord(owner: string, ttl: number, weight: number, port: number, target: string): DnsRecord {
  const labels = nameLabels(target) ?? [];
  let len = 6 + 1;
  for (const label of labels) len += 1 + label.length;
  const bytes = new Uint8Array(len);
  bytes[2] = weight >> 8;
  bytes[3] = weight & 0xff;
  bytes[4] = port >> 8;
  bytes[5] = port & 0xff;
  let at = 6;
  for (const label of labels) {
    bytes[at++] = label.length;
    bytes.set(label, at);
    at += label.length;
  }
  return { name: owner, type: DNS_TYPE_SRV, class: DNS_CLASS_IN, ttl, data: { kind: 'raw', bytes } };
}
