// An authoritative DNS server over UDP answering as CoreDNS's kubernetes plugin does (kubeadm's Corefile, TTL 30):
// A records from a table, NODATA with the zone's SOA for other types (AAAA of a v4-only Service) and for empty
// non-terminals, NXDOMAIN with the SOA for unknown names; no TCP, no EDNS, no forwarding, no reverse zones.

import type { Namespace } from '../../netns/namespace.ts';
import type { UdpDatagram } from '../../socket/udp.ts';
import { type Ipv4Addr, parseIpv4 } from '../../wire/address.ts';
import {
  DNS_CLASS_IN,
  DNS_RCODE_FORMERR,
  DNS_RCODE_NOERROR,
  DNS_RCODE_NOTIMP,
  DNS_RCODE_NXDOMAIN,
  DNS_TYPE_A,
  DNS_TYPE_SOA,
  type DnsQuestion,
  type DnsRecord,
  type DnsRepr,
  DnsView,
  encodeDns,
  parseDns,
} from '../../wire/dns.ts';
import { isWireError } from '../../wire/error.ts';

export interface DnsServerOptions {
  /** UDP port, 53 for a real server. */
  readonly port: number;
  /** Address to bind, any when absent. */
  readonly addr?: string;
  /** Names (without the final dot, any case) and their IPv4 addresses, answered in this order. */
  readonly records: Readonly<Record<string, readonly string[]>>;
  /** The zone whose SOA proves a negative answer; `cluster.local` as kubeadm configures CoreDNS. */
  readonly zone?: string;
  /** TTL of answers and of the SOA (and its minimum): kubeadm's Corefile sets `ttl 30`. */
  readonly ttl?: number;
  /** The SOA serial; CoreDNS uses the time of the last change it saw in the API. */
  readonly serial?: number;
}

export interface DnsServerStats {
  queries: number;
  answers: number;
  nodata: number;
  nxdomain: number;
  /** Datagrams that were not a well-formed query (dropped, or FORMERR/NOTIMP when the header was readable). */
  malformed: number;
}

export interface DnsServer {
  readonly port: number;
  readonly stats: DnsServerStats;
  close(): void;
}

/** CoreDNS kubernetes plugin's SOA timers: refresh 2 h, retry 30 min, expire 1 day. */
const SOA_REFRESH = 7200;
const SOA_RETRY = 1800;
const SOA_EXPIRE = 86400;

function lower(name: string): string {
  return (name.endsWith('.') ? name.slice(0, -1) : name).toLowerCase();
}

/** Starts the server; a port already bound is a scenario error and throws, as a bad record address does. */
/**
 * A CoreDNS answer to `query`: what miekg/dns's SetReply copies (id, opcode, RD, CD, the question), AA on the zone's
 * answers (NOERROR and NXDOMAIN), never RA.
 */
export function corednsReply(
  query: DnsRepr,
  rcode: number,
  answers: DnsRecord[],
  authorities: DnsRecord[],
  additionals: DnsRecord[] = [],
): DnsRepr {
  return {
    id: query.id,
    response: true,
    opcode: query.opcode,
    authoritative: rcode === DNS_RCODE_NOERROR || rcode === DNS_RCODE_NXDOMAIN,
    truncated: false,
    recursionDesired: query.recursionDesired,
    recursionAvailable: false,
    authenticData: false,
    checkingDisabled: query.checkingDisabled,
    rcode,
    questions: query.questions,
    answers,
    authorities,
    additionals,
  };
}

export function dnsServer(ns: Namespace, options: DnsServerOptions): DnsServer {
  const zone = lower(options.zone ?? 'cluster.local');
  const ttl = options.ttl ?? 30;
  const table = new Map<string, Ipv4Addr[]>();
  /** Every proper ancestor of a name in the table inside the zone: an empty non-terminal answers NODATA. */
  const ancestors = new Set<string>();
  for (const [name, addrs] of Object.entries(options.records)) {
    table.set(
      lower(name),
      addrs.map((text) => {
        const addr = parseIpv4(text);
        if (addr === undefined) throw new Error(`dnsServer: not an IPv4 address for ${name}: ${text}`);
        return addr;
      }),
    );
    const labels = lower(name).split('.');
    for (let i = 1; i < labels.length; i++) ancestors.add(labels.slice(i).join('.'));
  }
  const bindAddr = options.addr === undefined ? 0 : parseIpv4(options.addr);
  if (bindAddr === undefined) throw new Error(`dnsServer: not an IPv4 address: ${options.addr}`);
  const stats: DnsServerStats = { queries: 0, answers: 0, nodata: 0, nxdomain: 0, malformed: 0 };
  const soa: DnsRecord = {
    name: zone,
    type: DNS_TYPE_SOA,
    class: DNS_CLASS_IN,
    ttl,
    data: {
      kind: 'soa',
      mname: `ns.dns.${zone}`,
      rname: `hostmaster.${zone}`,
      serial: options.serial ?? 1700000000,
      refresh: SOA_REFRESH,
      retry: SOA_RETRY,
      expire: SOA_EXPIRE,
      minimum: ttl,
    },
  };
  const inZone = (name: string): boolean => name === zone || name.endsWith(`.${zone}`);

  const answer = (query: DnsRepr): DnsRepr => {
    if (query.opcode !== 0) return corednsReply(query, DNS_RCODE_NOTIMP, [], []);
    if (query.questions.length !== 1) return corednsReply(query, DNS_RCODE_FORMERR, [], []);
    const question: DnsQuestion = query.questions[0]!;
    const name = lower(question.name);
    const addrs = table.get(name);
    if (addrs !== undefined && question.type === DNS_TYPE_A && question.class === DNS_CLASS_IN) {
      stats.answers++;
      // The owner is the question's name as asked, so compression points at the question.
      const records = addrs.map(
        (addr): DnsRecord => ({
          name: question.name,
          type: DNS_TYPE_A,
          class: DNS_CLASS_IN,
          ttl,
          data: { kind: 'a', addr },
        }),
      );
      return corednsReply(query, DNS_RCODE_NOERROR, records, []);
    }
    if (addrs !== undefined || ancestors.has(name) || name === zone) {
      stats.nodata++;
      return corednsReply(query, DNS_RCODE_NOERROR, [], inZone(name) ? [soa] : []);
    }
    stats.nxdomain++;
    return corednsReply(query, DNS_RCODE_NXDOMAIN, [], inZone(name) ? [soa] : []);
  };

  const receive = (datagram: UdpDatagram): void => {
    const view = DnsView.checked(datagram.payload);
    if (isWireError(view) || view.response) {
      stats.malformed++;
      return;
    }
    stats.queries++;
    const response = encodeDns(answer(parseDns(view)), { compress: true });
    ns.udp.send({
      dst: datagram.srcAddr,
      dstPort: datagram.srcPort,
      ...(bindAddr !== 0 ? { src: bindAddr } : {}),
      srcPort: options.port,
      payload: response,
    });
  };
  if (!ns.udp.bind(bindAddr, options.port, receive))
    throw new Error(`dnsServer: UDP port ${options.port} is in use in ${ns.name}`);
  return { port: options.port, stats, close: () => ns.udp.unbind(bindAddr, options.port) };
}
