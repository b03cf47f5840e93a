// nc's connect side (netcat.c: remote_connect, connect_with_timeout, udptest, connection_info, readwrite): a
// TCP connection or a connected UDP socket per port, stdin sent, what comes back printed; hosts must be numeric
// (no resolver), no proxies, no -i/-C/-t.

import { bindEphemeralUdp } from '../../app/udp-port.ts';
import { strerror } from '../../core/errno.ts';
import type { Namespace } from '../../netns/namespace.ts';
import type { TcpError } from '../../socket/tcp/socket.ts';
import type { UdpDatagram } from '../../socket/udp.ts';
import { formatIpv4, type Ipv4Addr } from '../../wire/address.ts';
import { inetAton } from '../libc.ts';
import { type CommandResult, fail } from '../result.ts';
import { buildPorts, localPort, type NcOptions, serviceName } from './options.ts';
import { settle, sleep, waitFor } from './wait.ts';

/** UDP_SCAN_TIMEOUT: udptest's seconds of probing without -w. */
const UDP_SCAN_TIMEOUT = 3;

/** icmp_err_convert's errno per Destination Unreachable code (a connected UDP socket reports them). */
const UNREACH_ERRNO = [
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENOPROTOOPT',
  'ECONNREFUSED',
  'EMSGSIZE',
  'EOPNOTSUPP',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENONET',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EHOSTUNREACH',
  'EHOSTUNREACH',
  'EHOSTUNREACH',
];
/**
 * icmp_err_convert's `fatal` per code: __udp4_lib_err reports only these to a connected socket
 * without IP_RECVERR (RFC 1122: net and host unreachable, source route failed are transient), so an
 * ARP failure's host unreachable leaves nc waiting for its -w, as on Linux.
 */
const UNREACH_FATAL = [
  false,
  false,
  true,
  true,
  false,
  false,
  true,
  true,
  true,
  true,
  true,
  false,
  false,
  true,
  true,
  true,
];

/** What one run of nc printed so far. */
class Output {
  stdout = '';
  stderr = '';
  private readonly decoder = new TextDecoder();

  data(bytes: Uint8Array): void {
    this.stdout += this.decoder.decode(bytes, { stream: true });
  }
  warn(line: string): void {
    this.stderr += `nc: ${line}\n`;
  }
  result(exitCode: number): CommandResult {
    return { stdout: this.stdout + this.decoder.decode(), stderr: this.stderr, exitCode };
  }
}

/** getaddrinfo for a numeric host (AI_NUMERICHOST with -n; without it the namespace has no resolver to ask). */
function resolveHost(text: string): Ipv4Addr | undefined {
  return inetAton(text);
}

/** The local end -s/-p ask for (getaddrinfo(sflag, pflag, AI_PASSIVE)), or the failure. */
function localEnd(
  ns: Namespace,
  options: NcOptions,
  proto: 'tcp' | 'udp',
): { addr: Ipv4Addr; port: number } | CommandResult {
  let addr = 0;
  if (options.sourceAddr !== undefined) {
    const parsed = inetAton(options.sourceAddr);
    if (parsed === undefined) return fail('nc: getaddrinfo: Temporary failure in name resolution\n');
    addr = parsed;
  }
  let port = 0;
  if (options.sourcePort !== undefined) {
    const parsed = localPort(options.sourcePort, proto);
    if (parsed === undefined) return fail('nc: getaddrinfo: Servname not supported for ai_socktype\n');
    port = parsed;
  }
  if (addr !== 0 && !ns.ipv4.addresses.isLocal(addr))
    return fail('nc: bind failed: Cannot assign requested address\n');
  return { addr, port };
}

/** `nc [-u] [-z] HOST PORT...`: each port in turn; exit 0 once one connected. */
export function ncConnect(ns: Namespace, options: NcOptions, stdin: string): CommandResult {
  const proto = options.udp ? 'udp' : 'tcp';
  const ports = buildPorts(options.ports, proto);
  if (!Array.isArray(ports)) return ports;
  const host = options.host!;
  const out = new Output();
  const input = options.detachStdin ? new Uint8Array(0) : new TextEncoder().encode(stdin);
  let ret = 1;
  for (const port of ports) {
    const dst = resolveHost(host);
    if (dst === undefined) {
      const why = options.numeric ? 'Name or service not known' : 'Temporary failure in name resolution';
      return fail(`${out.stderr}nc: getaddrinfo for host "${host}" port ${port}: ${why}\n`, 1, out.stdout);
    }
    const local =
      options.sourceAddr !== undefined || options.sourcePort !== undefined
        ? localEnd(ns, options, proto)
        : { addr: 0, port: 0 };
    if (!('addr' in local)) return fail(out.stderr + local.stderr, 1, out.stdout);
    const attempt = { ns, options, out, host, dst, port, local, input };
    const outcome = options.udp ? udpSession(attempt) : tcpSession(attempt);
    if (outcome === 'bind-in-use') {
      out.warn('bind failed: Address already in use');
      return out.result(1);
    }
    if (outcome === 'connected') ret = 0;
    if (outcome === 'udptest-failed') ret = 1;
  }
  return out.result(ret);
}

interface Attempt {
  readonly ns: Namespace;
  readonly options: NcOptions;
  readonly out: Output;
  readonly host: string;
  readonly dst: Ipv4Addr;
  readonly port: number;
  readonly local: { readonly addr: Ipv4Addr; readonly port: number };
  readonly input: Uint8Array;
}

type Outcome = 'connected' | 'failed' | 'udptest-failed' | 'bind-in-use';

/** remote_connect's complaint with -v: `connect to HOST [(IP)] port P (proto) failed|timed out: why`. */
function connectFailed(attempt: Attempt, proto: string, timedOut: boolean, errno: string): void {
  if (!attempt.options.verbose) return;
  const ip = formatIpv4(attempt.dst);
  const who = attempt.options.numeric || attempt.host === ip ? attempt.host : `${attempt.host} (${ip})`;
  attempt.out.warn(
    `connect to ${who} port ${attempt.port} (${proto}) ${timedOut ? 'timed out' : 'failed'}: ${strerror(errno)}`,
  );
}

/** connection_info: `Connection to HOST [(IP)] PORT port [proto/service] succeeded!`. */
function connectionInfo(attempt: Attempt, proto: 'tcp' | 'udp'): void {
  const ip = formatIpv4(attempt.dst);
  const shown = !attempt.options.numeric && attempt.host !== ip ? `${attempt.host} (${ip})` : attempt.host;
  const service = serviceName(attempt.port, proto, attempt.options.numeric);
  attempt.out.stderr += `Connection to ${shown} ${attempt.port} port [${proto}/${service}] succeeded!\n`;
}

function tcpSession(attempt: Attempt): Outcome {
  const { ns, options, out } = attempt;
  const connected = ns.tcp.connect({
    dst: attempt.dst,
    dstPort: attempt.port,
    ...(attempt.local.addr !== 0 ? { src: attempt.local.addr } : {}),
    ...(attempt.local.port !== 0 ? { srcPort: attempt.local.port } : {}),
  });
  if (!connected.ok) {
    if (connected.error === 'EADDRINUSE') return 'bind-in-use';
    connectFailed(attempt, 'tcp', false, connected.error);
    return 'failed';
  }
  const socket = connected.socket;
  let state: 'connecting' | 'open' | 'closed' = 'connecting';
  let error: TcpError | undefined;
  let peerDone = false;
  let lastInput = ns.sim.scheduler.now;
  socket.onConnect = () => {
    state = 'open';
  };
  socket.onData = (_s, data) => {
    out.data(data);
    lastInput = ns.sim.scheduler.now;
  };
  socket.onEnd = () => {
    peerDone = true;
    lastInput = ns.sim.scheduler.now;
  };
  socket.onClose = (_s, why) => {
    if (state === 'connecting') error = why ?? 'ECONNRESET';
    state = 'closed';
    peerDone = true;
    lastInput = ns.sim.scheduler.now;
  };
  // connect_with_timeout: select() for writability, bounded by -w when it is above 0.
  const connectDeadline = options.timeoutMs > 0 ? ns.sim.scheduler.now + options.timeoutMs * 1e6 : undefined;
  const waited = waitFor(
    ns,
    () => state !== 'connecting',
    connectDeadline,
    () => socket.abort(),
  );
  if (state === 'connecting') {
    socket.abort();
    connectFailed(attempt, 'tcp', waited === 'timeout', waited === 'timeout' ? 'EINPROGRESS' : 'ETIMEDOUT');
    return 'failed';
  }
  if (error !== undefined) {
    connectFailed(attempt, 'tcp', false, error);
    return 'failed';
  }
  if (options.verbose) connectionInfo(attempt, 'tcp');
  if (options.zeroIo) {
    socket.destroy();
    return 'connected';
  }
  // readwrite: stdin to the network, the network to stdout, until both inputs are gone or poll times out.
  if (attempt.input.length > 0 && state === 'open') socket.write(attempt.input);
  if (!options.detachStdin) {
    if (options.shutdownOnEof) socket.end();
    if (options.quitAfterEof >= 0) {
      // delay_exit: -q 0 exits at once; otherwise the socket closes and nc exits after the delay.
      socket.destroy();
      if (options.quitAfterEof > 0) sleep(ns, options.quitAfterEof * 1e9);
      return 'connected';
    }
  }
  for (;;) {
    const since = lastInput;
    const until = options.timeoutMs >= 0 ? since + options.timeoutMs * 1e6 : undefined;
    const outcome = waitFor(
      ns,
      () => peerDone || lastInput !== since,
      until,
      () => socket.destroy(),
    );
    if (outcome !== 'done' || peerDone) break;
  }
  socket.destroy();
  return 'connected';
}

function udpSession(attempt: Attempt): Outcome {
  const { ns, options, out } = attempt;
  // connect() on a UDP socket: the route (and with it the source address) is chosen now.
  const route = ns.ipv4.routeOutput(attempt.dst, attempt.local.addr !== 0 ? { src: attempt.local.addr } : {});
  let pendingError: string | undefined;
  let lastInput = ns.sim.scheduler.now;
  const remote = { addr: attempt.dst, port: attempt.port };
  const onDatagram = (datagram: UdpDatagram): void => {
    out.data(datagram.payload);
    lastInput = ns.sim.scheduler.now;
  };
  const onError = (type: number, code: number): void => {
    if (type !== 3) return;
    const errno = UNREACH_ERRNO[code];
    if (errno === undefined || UNREACH_FATAL[code] !== true) return;
    pendingError = errno;
    lastInput = ns.sim.scheduler.now;
  };
  let port = attempt.local.port;
  if (port !== 0) {
    if (!ns.udp.bind(attempt.local.addr, port, onDatagram, onError, remote)) return 'bind-in-use';
  } else {
    const bound = bindEphemeralUdp(ns, attempt.local.addr, onDatagram, onError, remote);
    if (bound === undefined) return 'bind-in-use';
    port = bound;
  }
  const close = (): void => ns.udp.unbind(attempt.local.addr, port);
  if (!route.ok) {
    close();
    connectFailed(attempt, 'udp', false, route.error);
    return 'failed';
  }
  const src = route.src;
  /** write() on the connected socket: a pending ICMP error is reported (and cleared) instead of sending. */
  const write = (payload: Uint8Array): string | undefined => {
    if (pendingError !== undefined) {
      const error = pendingError;
      pendingError = undefined;
      return error;
    }
    const sent = ns.udp.send({ dst: attempt.dst, dstPort: attempt.port, src, srcPort: port, payload });
    return sent.ok ? undefined : sent.error;
  };

  if (options.verbose) {
    // udptest (1.219 runs it for -v only): a few one-byte writes; a refused port shows as ECONNREFUSED
    // on a later write. Without -v, `-zu` succeeds at once whatever is there.
    const x = Uint8Array.of(0x58);
    let failed = write(x) !== undefined;
    if (!failed) {
      settle(ns);
      failed = write(x) === 'ECONNREFUSED';
    }
    const rounds = options.timeoutMs === -1 ? UDP_SCAN_TIMEOUT : options.timeoutMs / 1000;
    for (let i = 0; i < rounds && !failed; i++) {
      sleep(ns, 1e9);
      failed = write(x) === 'ECONNREFUSED';
    }
    if (failed) {
      close();
      return 'udptest-failed';
    }
    connectionInfo(attempt, 'udp');
  }
  if (options.zeroIo) {
    close();
    return 'connected';
  }
  lastInput = ns.sim.scheduler.now;
  if (attempt.input.length > 0) write(attempt.input);
  if (!options.detachStdin && options.quitAfterEof >= 0) {
    close();
    if (options.quitAfterEof > 0) sleep(ns, options.quitAfterEof * 1e9);
    return 'connected';
  }
  for (;;) {
    const since = lastInput;
    const until = options.timeoutMs >= 0 ? since + options.timeoutMs * 1e6 : undefined;
    // A pending error wakes poll with POLLERR: nc stops reading and, stdin being gone, returns.
    const outcome = waitFor(ns, () => pendingError !== undefined || lastInput !== since, until, close);
    if (outcome !== 'done' || pendingError !== undefined) break;
  }
  close();
  return 'connected';
}
