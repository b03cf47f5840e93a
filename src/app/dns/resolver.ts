// A stub resolver as glibc 2.36's getaddrinfo(AF_UNSPEC) runs it over UDP (res_send.c: __res_context_send,
// send_dg; res_query.c: the search list): the A and AAAA queries leave together from one connected socket
// (sendmmsg), both answers are awaited for `timeout` seconds, `attempts` tries; after a timeout with one answer
// in, the pair is asked again one query at a time (RES_SNGLKUP), then on a new socket (RES_SNGLKUPREOP).
// One nameserver; no TCP fallback for truncated answers, no EDNS, no /etc/hosts, IPv4 results only.

import type { Rng } from '../../core/rng.ts';
import type { Namespace } from '../../netns/namespace.ts';
import type { UdpDatagram } from '../../socket/udp.ts';
import { formatIpv4, type Ipv4Addr, parseIpv4 } from '../../wire/address.ts';
import {
  DNS_CLASS_IN,
  DNS_PORT,
  DNS_RCODE_NOERROR,
  DNS_RCODE_NOTIMP,
  DNS_RCODE_NXDOMAIN,
  DNS_RCODE_REFUSED,
  DNS_RCODE_SERVFAIL,
  DNS_TYPE_A,
  DNS_TYPE_AAAA,
  type DnsRepr,
  DnsView,
  encodeDns,
  parseDns,
} from '../../wire/dns.ts';
import { isWireError } from '../../wire/error.ts';
import { bindEphemeralUdp } from '../udp-port.ts';

export interface ResolverOptions {
  /** resolv.conf's nameserver. */
  readonly nameserver: string;
  readonly port?: number;
  /** `options timeout:N`: seconds per try (RES_TIMEOUT, 5). */
  readonly timeout?: number;
  /** `options attempts:N`: tries (RES_DFLRETRY, 2). */
  readonly attempts?: number;
  /** resolv.conf's search list (a pod's: `default.svc.cluster.local svc.cluster.local cluster.local`). */
  readonly search?: readonly string[];
  /** `options ndots:N` (1 by default, 5 in a pod). */
  readonly ndots?: number;
  /** `options single-request`: never send the pair in parallel. */
  readonly singleRequest?: boolean;
  /**
   * `options single-request-reopen` (RES_SNGLKUPREOP): one query at a time too (send_dg's single_request includes
   * it), and the second from a new socket, opened once the first is answered.
   */
  readonly singleRequestReopen?: boolean;
}

/** getaddrinfo's failures: NXDOMAIN everywhere, no address records, or no usable answer (timeouts, refusals). */
export type LookupError = 'EAI_NONAME' | 'EAI_NODATA' | 'EAI_AGAIN';

export type LookupResult = { ok: true; addresses: string[] } | { ok: false; error: LookupError };

/** One query datagram as it left: for tests and traces of the parallel pair. */
export interface SentQuery {
  readonly at: number;
  readonly srcPort: number;
  readonly id: number;
  readonly type: number;
  readonly name: string;
}

export interface Lookup {
  /** Undefined until the lookup finished (run the simulation). */
  readonly result: LookupResult | undefined;
  /** Every query sent, in order. */
  readonly sent: readonly SentQuery[];
}

/** The outcome of one send_dg-and-retries for one name (res_nquery's view). */
type QueryOutcome =
  | { kind: 'answered'; a: DnsRepr | undefined; aaaa: DnsRepr | undefined }
  /** Every attempt failed; `servfail`: the last answer was SERVFAIL (hp->rcode), `refused`: ECONNREFUSED. */
  | { kind: 'failed'; servfail: boolean; refused: boolean };

/** getaddrinfo(name, AF_UNSPEC): starts the lookup on the simulation's clock; `onResult` runs when it ends. */
export function lookupHost(
  ns: Namespace,
  name: string,
  options: ResolverOptions,
  onResult?: (result: LookupResult) => void,
): Lookup {
  const resolver = new StubResolver(ns, options);
  const lookup = { result: undefined as LookupResult | undefined, sent: resolver.sent };
  resolver.search(name, (result) => {
    lookup.result = result;
    resolver.close();
    onResult?.(result);
  });
  return lookup;
}

class StubResolver {
  readonly sent: SentQuery[] = [];
  private readonly server: Ipv4Addr;
  private readonly port: number;
  private readonly timeoutNs: number;
  private readonly attempts: number;
  private readonly rng: Rng;
  /** statp->options' RES_SNGLKUP and RES_SNGLKUPREOP, learnt from a server that lost one of a pair. */
  private singleRequest: boolean;
  private singleRequestReopen: boolean;
  /** The rcode res_search reads in hp->rcode: the last reply of this query was SERVFAIL. */
  private lastServfail = false;
  /** The last attempt ended with ECONNREFUSED (errno, which ends res_search at once). */
  private lastRefused = false;
  private socketPort = 0;
  private onDatagram: (datagram: UdpDatagram) => void = () => {};
  private onRefused: () => void = () => {};

  constructor(
    private readonly ns: Namespace,
    private readonly options: ResolverOptions,
  ) {
    const server = parseIpv4(options.nameserver);
    if (server === undefined) throw new Error(`lookupHost: not an IPv4 nameserver: ${options.nameserver}`);
    this.server = server;
    this.port = options.port ?? DNS_PORT;
    this.timeoutNs = (options.timeout ?? 5) * 1e9;
    this.attempts = options.attempts ?? 2;
    this.singleRequestReopen = options.singleRequestReopen ?? false;
    this.singleRequest = (options.singleRequest ?? false) || this.singleRequestReopen;
    this.rng = resolverRng(ns);
  }

  /**
   * __res_context_search (res_query.c): with at least ndots dots (or a final dot) the name is asked as is first and
   * only a final dot stops there; then each search domain, where NXDOMAIN, NODATA and SERVFAIL move on and any other
   * failure (a timeout, REFUSED) stops the list; then the name as is if not asked yet. ECONNREFUSED ends at once.
   * The error is the first as-is query's, else NODATA if any, else TRY_AGAIN if a SERVFAIL came, else the last one's.
   */
  search(name: string, done: (result: LookupResult) => void): void {
    const trailingDot = name.endsWith('.');
    const bare = trailingDot ? name.slice(0, -1) : name;
    const dots = bare.split('.').length - 1;
    const domains = trailingDot ? [] : (this.options.search ?? []);
    const asIsFirst = trailingDot || dots >= (this.options.ndots ?? 1);
    let savedError: LookupError | undefined;
    let lastError: LookupError = 'EAI_NONAME';
    let gotNodata = false;
    let gotServfail = false;
    let triedAsIs = false;
    const finish = (): void => {
      done({
        ok: false,
        error: savedError ?? (gotNodata ? 'EAI_NODATA' : gotServfail ? 'EAI_AGAIN' : lastError),
      });
    };
    /** One querydomain: `found` ends the search with its addresses; otherwise the h_errno it left. */
    const ask = (
      candidate: string,
      then: (step: { error: LookupError; servfail: boolean; refused: boolean }) => void,
    ): void => {
      this.query(candidate, (outcome) => {
        if (outcome.kind === 'failed') {
          then({ error: 'EAI_AGAIN', servfail: outcome.servfail, refused: outcome.refused });
          return;
        }
        const addresses = addressesOf(outcome.a);
        if (addresses.length > 0) {
          done({ ok: true, addresses });
          return;
        }
        const nx = outcome.a?.rcode === DNS_RCODE_NXDOMAIN && outcome.aaaa?.rcode === DNS_RCODE_NXDOMAIN;
        then({ error: nx ? 'EAI_NONAME' : 'EAI_NODATA', servfail: false, refused: false });
      });
    };
    const asIsLast = (): void => {
      if (triedAsIs) {
        finish();
        return;
      }
      ask(bare, (step) => {
        lastError = step.error;
        finish();
      });
    };
    const searchFrom = (index: number): void => {
      const domain = domains[index];
      if (domain === undefined) {
        asIsLast();
        return;
      }
      ask(`${bare}.${domain}`, (step) => {
        lastError = step.error;
        if (step.refused) {
          done({ ok: false, error: 'EAI_AGAIN' });
          return;
        }
        if (step.error === 'EAI_NODATA') gotNodata = true;
        if (step.error === 'EAI_NONAME' || step.error === 'EAI_NODATA') {
          searchFrom(index + 1);
          return;
        }
        if (step.servfail) {
          gotServfail = true;
          searchFrom(index + 1);
          return;
        }
        asIsLast(); // done++: the list stops, the name as is may still be asked
      });
    };
    if (!asIsFirst) {
      searchFrom(0);
      return;
    }
    ask(bare, (step) => {
      triedAsIs = true;
      savedError = step.error;
      lastError = step.error;
      if (trailingDot) finish();
      else searchFrom(0);
    });
  }

  /** __res_context_send: `attempts` tries of send_dg against the one server, the same socket kept between tries. */
  private query(name: string, done: (outcome: QueryOutcome) => void): void {
    const a = this.makeQuery(name, DNS_TYPE_A);
    const aaaa = this.makeQuery(name, DNS_TYPE_AAAA);
    this.lastServfail = false;
    let attempt = 0;
    const tryOnce = (): void => {
      if (attempt++ >= this.attempts) {
        done({ kind: 'failed', servfail: this.lastServfail, refused: this.lastRefused });
        return;
      }
      this.sendDg(a, aaaa, (outcome) => {
        if (outcome === 'retry') tryOnce();
        else done(outcome);
      });
    };
    tryOnce();
  }

  /** res_nmkquery: a random id, RD, one question; names in full, as stub resolvers send them. */
  private makeQuery(name: string, type: number): { bytes: Uint8Array; repr: DnsRepr } {
    const repr: DnsRepr = {
      id: this.rng.int(0x10000),
      response: false,
      opcode: 0,
      authoritative: false,
      truncated: false,
      recursionDesired: true,
      recursionAvailable: false,
      authenticData: false,
      checkingDisabled: false,
      rcode: 0,
      questions: [{ name, type, class: DNS_CLASS_IN }],
      answers: [],
      authorities: [],
      additionals: [],
    };
    return { bytes: encodeDns(repr, { compress: false }), repr };
  }

  /** reopen(): a socket connected to the server, kept open between calls; false when no port is free. */
  private reopen(): boolean {
    if (this.socketPort !== 0) return true;
    const port = bindEphemeralUdp(
      this.ns,
      0,
      (datagram) => this.onDatagram(datagram),
      (type, code) => {
        if (type === 3 && code === 3) this.onRefused();
      },
      { addr: this.server, port: this.port },
    );
    if (port === undefined) return false;
    this.socketPort = port;
    return true;
  }

  /** __res_iclose. */
  close(): void {
    if (this.socketPort === 0) return;
    this.ns.udp.unbind(0, this.socketPort);
    this.socketPort = 0;
  }

  /** send(); false when the kernel refused it (no route, a netfilter drop on OUTPUT). */
  private send(query: { bytes: Uint8Array; repr: DnsRepr }): boolean {
    const question = query.repr.questions[0]!;
    this.sent.push({
      at: this.ns.sim.scheduler.now,
      srcPort: this.socketPort,
      id: query.repr.id,
      type: question.type,
      name: question.name,
    });
    return this.ns.udp.send({
      dst: this.server,
      dstPort: this.port,
      srcPort: this.socketPort,
      payload: query.bytes,
    }).ok;
  }

  /**
   * send_dg for the pair: both queries, then answers matched by id and question until both are in
   * or `timeout` passes. 'retry' is send_dg's 0 (try again); an outcome ends the query.
   */
  private sendDg(
    a: { bytes: Uint8Array; repr: DnsRepr },
    aaaa: { bytes: Uint8Array; repr: DnsRepr },
    done: (outcome: QueryOutcome | 'retry') => void,
  ): void {
    const scheduler = this.ns.sim.scheduler;
    if (!this.reopen()) {
      done('retry');
      return;
    }
    let answerA: DnsRepr | undefined;
    let answerAaaa: DnsRepr | undefined;
    let gotA = false;
    let gotAaaa = false;
    let timer = -1;
    let finished = false;
    const finish = (outcome: QueryOutcome | 'retry'): void => {
      if (finished) return;
      finished = true;
      if (timer !== -1) scheduler.cancel(timer);
      this.onDatagram = () => {};
      this.onRefused = () => {};
      done(outcome);
    };
    const start = (): void => {
      gotA = false;
      gotAaaa = false;
      answerA = undefined;
      answerAaaa = undefined;
      if (timer !== -1) scheduler.cancel(timer);
      timer = scheduler.schedule(this.timeoutNs, onTimeout);
      // sendmmsg of both, or (single-request) the first alone and the second once it is answered.
      if (!this.send(a) || (!this.singleRequest && !this.send(aaaa))) sendFailed();
    };
    /** A failed send is close_and_return_error: the socket goes, the next try opens another. */
    const sendFailed = (): void => {
      this.close();
      finish('retry');
    };
    const onTimeout = (): void => {
      timer = -1;
      if (gotA || gotAaaa) {
        if (!this.singleRequest) {
          this.singleRequest = true;
          start();
          return;
        }
        if (!this.singleRequestReopen) {
          this.singleRequestReopen = true;
          this.close();
          if (!this.reopen()) {
            finish('retry');
            return;
          }
          start();
          return;
        }
        finish({ kind: 'answered', a: answerA, aaaa: answerAaaa });
        return;
      }
      finish('retry');
    };
    this.lastRefused = false;
    this.onRefused = () => {
      this.lastRefused = true;
      // recvfrom's ECONNREFUSED: close_and_return_error, the next try opens a new socket.
      this.close();
      finish('retry');
    };
    this.onDatagram = (datagram) => {
      const view = DnsView.checked(datagram.payload);
      if (isWireError(view)) return;
      const response = parseDns(view);
      const isA = !gotA && matches(response, a.repr);
      const isAaaa = !gotAaaa && matches(response, aaaa.repr);
      if (!isA && !isAaaa) return; // a spurious datagram: keep waiting
      const rcode = response.rcode;
      const useless =
        rcode === DNS_RCODE_SERVFAIL ||
        rcode === DNS_RCODE_NOTIMP ||
        rcode === DNS_RCODE_REFUSED ||
        (rcode === DNS_RCODE_NOERROR &&
          response.answers.length === 0 &&
          !response.authoritative &&
          !response.recursionAvailable &&
          response.additionals.length === 0);
      this.lastServfail = rcode === DNS_RCODE_SERVFAIL;
      if (isA) gotA = true;
      else gotAaaa = true;
      if (!useless) {
        if (isA) answerA = response;
        else answerAaaa = response;
      }
      if (gotA && gotAaaa) {
        const any = answerA !== undefined || answerAaaa !== undefined;
        finish(any ? { kind: 'answered', a: answerA, aaaa: answerAaaa } : 'retry');
        return;
      }
      if (!this.singleRequest || !isA) return;
      // RES_SNGLKUPREOP: the socket that carried the first query goes; the second leaves from a new port.
      if (this.singleRequestReopen) {
        this.close();
        if (!this.reopen()) {
          finish('retry');
          return;
        }
      }
      if (!this.send(aaaa)) sendFailed();
    };
    start();
  }
}

/** One query-id stream per namespace (glibc's random_bits), so successive lookups draw different ids. */
const RNGS = new WeakMap<Namespace, Rng>();
function resolverRng(ns: Namespace): Rng {
  let rng = RNGS.get(ns);
  if (rng === undefined) {
    rng = ns.rng.fork('resolver');
    RNGS.set(ns, rng);
  }
  return rng;
}

/** __libc_res_queriesmatch: the same id and the same question (names compared without case). */
function matches(response: DnsRepr, query: DnsRepr): boolean {
  if (!response.response || response.id !== query.id || response.questions.length !== 1) return false;
  const asked = query.questions[0]!;
  const got = response.questions[0]!;
  return (
    got.type === asked.type &&
    got.class === asked.class &&
    got.name.toLowerCase() === asked.name.toLowerCase()
  );
}

function addressesOf(response: DnsRepr | undefined): string[] {
  if (response === undefined) return [];
  const addresses: string[] = [];
  for (const record of response.answers)
    if (record.data.kind === 'a' && record.type === DNS_TYPE_A) addresses.push(formatIpv4(record.data.addr));
  return addresses;
}
