// The load balancer's `proxy` mode: a TCP proxy (HAProxy's `mode tcp`, `balance roundrobin`) that terminates the
// client's connection on the LB's address, opens one from the LB to the chosen node's NodePort, optionally starts it
// with a PROXY protocol v2 header naming the client (`send-proxy-v2`), and copies bytes both ways, passing each
// side's FIN on and a reset as a reset; with `forwardedFor` it follows the client's HTTP requests and appends
// X-Forwarded-For to each (HAProxy's `mode http` + `option forwardfor`, forwarded-for.ts). With no backend in rotation, or a backend that refuses, the client's
// connection is reset. No retries on another backend, no idle timeouts, no UDP.

import type { Namespace } from '../../netns/namespace.ts';
import type { TcpSocket } from '../../socket/tcp/socket.ts';
import type { TcpListener } from '../../socket/tcp/table.ts';
import { formatIpv4, parseIpv4 } from '../../wire/address.ts';
import {
  emitProxyV2,
  PROXY_TRANSPORT_STREAM,
  type ProxyV2Repr,
  ProxyV2View,
  proxyV2HeaderLen,
} from '../../wire/proxy-v2.ts';
import { ForwardedForInserter } from './forwarded-for.ts';

export interface Backend {
  readonly addr: string;
  readonly port: number;
}

export interface TcpProxyOptions {
  /** The load-balancer address and port it listens on. */
  readonly addr: string;
  readonly port: number;
  /** PROXY protocol v2 toward the backends. */
  readonly proxyProtocol: boolean;
  /** HTTP: X-Forwarded-For with the client's address on every request toward the backends. */
  readonly forwardedFor?: boolean;
}

export interface TcpProxyStats {
  accepted: number;
  /** Client connections reset because no backend was in rotation or the chosen one failed. */
  refused: number;
  /** Connections opened to each backend, by `addr:port`. */
  readonly perBackend: Record<string, number>;
}

export class TcpProxy {
  readonly stats: TcpProxyStats = { accepted: 0, refused: 0, perBackend: {} };
  private backends: Backend[] = [];
  private next = 0;
  private readonly listener: TcpListener;

  /** Listens at once; throws when the address and port are taken (a programmer error). */
  constructor(
    private readonly ns: Namespace,
    private readonly options: TcpProxyOptions,
  ) {
    const addr = parseIpv4(options.addr);
    if (addr === undefined) throw new Error(`TcpProxy: bad address ${options.addr}`);
    const listener = ns.tcp.listen(addr, options.port, (socket) => this.accept(socket));
    if (listener === 'EADDRINUSE')
      throw new Error(`TcpProxy: ${options.addr}:${options.port} is in use in ${ns.name}`);
    this.listener = listener;
  }

  /** The backends in rotation, in order; round robin continues over the new list. */
  setBackends(backends: readonly Backend[]): void {
    this.backends = [...backends];
    if (this.next >= this.backends.length) this.next = 0;
  }

  close(): void {
    this.listener.close();
  }

  private accept(client: TcpSocket): void {
    this.stats.accepted++;
    const backend = this.backends[this.next];
    if (backend === undefined) {
      this.stats.refused++;
      client.abort();
      return;
    }
    this.next = (this.next + 1) % this.backends.length;
    const key = `${backend.addr}:${backend.port}`;
    this.stats.perBackend[key] = (this.stats.perBackend[key] ?? 0) + 1;
    const connected = this.ns.tcp.connect({ dst: parseIpv4(backend.addr)!, dstPort: backend.port });
    if (!connected.ok) {
      this.stats.refused++;
      client.abort();
      return;
    }
    const server = connected.socket;
    /** Client bytes that arrived before the backend connection was up. */
    const pending: Uint8Array[] = [];
    let clientEnded = false;
    let up = false;
    const inserter = this.options.forwardedFor
      ? new ForwardedForInserter(formatIpv4(client.remoteAddr))
      : undefined;
    client.onData = (_s, data) => {
      for (const piece of inserter === undefined ? [data] : inserter.feed(data)) {
        if (up) server.write(piece);
        else pending.push(piece);
      }
    };
    client.onEnd = () => {
      clientEnded = true;
      if (up) server.end();
    };
    client.onClose = (_s, error) => {
      if (error !== undefined) server.abort();
    };
    server.onConnect = () => {
      up = true;
      if (this.options.proxyProtocol) server.write(proxyHeader(client));
      for (const data of pending) server.write(data);
      pending.length = 0;
      if (clientEnded) server.end();
    };
    server.onData = (_s, data) => {
      client.write(data);
    };
    server.onEnd = () => client.end();
    server.onClose = (_s, error) => {
      if (error === undefined) return;
      if (!up) this.stats.refused++;
      client.abort();
    };
  }
}

/** The PROXY v2 header HAProxy's send-proxy-v2 writes: PROXY, TCP over IPv4, the client and the address it reached. */
function proxyHeader(client: TcpSocket): Uint8Array {
  const repr: ProxyV2Repr = {
    command: 'proxy',
    transport: PROXY_TRANSPORT_STREAM,
    addresses: {
      type: 'ipv4',
      srcAddr: client.remoteAddr,
      dstAddr: client.localAddr,
      srcPort: client.remotePort,
      dstPort: client.localPort,
    },
    tlvs: [],
  };
  const bytes = new Uint8Array(proxyV2HeaderLen(repr));
  emitProxyV2(repr, ProxyV2View.unchecked(bytes));
  return bytes;
}
