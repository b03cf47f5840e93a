// `curl` as Debian 12's curl 7.88.1 runs one HTTP transfer: it drives the simulation until the transfer ends or times
// out, then prints the body (-o, -i, -I), -w variables, -v's `*`/`>`/`<` lines and curl's errors and exit codes.
// Several URLs run one after the other, reusing a kept-alive connection to the same host and port. Not supported:
// https and other schemes, name resolution other than --resolve and the namespace's resolv.conf (no /etc/hosts),
// redirects, the progress meter (never drawn), uploads other than -d, per-URL -o (the one -o is the first URL's), and the unmodelled options named in curl/args.ts.

import { parseResolvConf, readResolvConf } from '../app/dns/resolv-conf.ts';
import { lookupHost } from '../app/dns/resolver.ts';
import { type HttpResult, type HttpTrace, httpRequest } from '../app/http/client.ts';
import { curlErrorText, curlExitCode, curlFailureDetail } from '../app/http/failure.ts';
import type { HeaderField } from '../app/http/message.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { TcpSocket } from '../socket/tcp/socket.ts';
import { formatIpv4, type Ipv4Addr, parseIpv4 } from '../wire/address.ts';
import { type CurlArgs, parseCurlArgs } from './curl/args.ts';
import { type WriteOutValues, writeOut } from './curl/write-out.ts';
import { type CommandResult, fail, unsupported } from './result.ts';

const HINT = "curl: try 'curl --help' or 'curl --manual' for more information\n";
const USER_AGENT = 'curl/7.88.1';
/** curl's DEFAULT_CONNECT_TIMEOUT. */
const DEFAULT_CONNECT_TIMEOUT_MS = 300_000;
/** How long packetlab lets a transfer without --max-time run in virtual time before calling it stalled. */
const STALL_LIMIT_NS = 3600e9;

interface Target {
  readonly scheme: string;
  readonly host: string;
  readonly port: number;
  readonly portGiven: boolean;
  readonly path: string;
  readonly effective: string;
}

type UrlResult =
  | { readonly ok: true; readonly target: Target }
  | { readonly ok: false; readonly exit: number; readonly message: string };

/** curl's URL parser for the forms packetlab reads: [http://]host[:port][/path][?query]. */
function parseUrl(text: string): UrlResult {
  const match = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):\/\/)?([^/:?#]*)(?::([^/?#]*))?([/?][^#]*)?(?:#.*)?$/.exec(
    text,
  );
  if (match === null || match[2] === '')
    return { ok: false, exit: 3, message: 'URL using bad/illegal format or missing URL' };
  const scheme = (match[1] ?? 'http').toLowerCase();
  if (scheme !== 'http') {
    return { ok: false, exit: 1, message: `Protocol "${match[1]}" not supported or disabled in libcurl` };
  }
  const portText = match[3];
  let port = 80;
  if (portText !== undefined && portText !== '') {
    if (!/^[0-9]+$/.test(portText) || Number(portText) > 65535)
      return { ok: false, exit: 3, message: 'URL using bad/illegal format or missing URL' };
    port = Number(portText);
  }
  const rawPath = match[4] ?? '/';
  const path = rawPath.startsWith('?') ? `/${rawPath}` : rawPath;
  const host = match[2]!;
  const portGiven = portText !== undefined && portText !== '';
  return {
    ok: true,
    target: {
      scheme,
      host,
      port,
      portGiven,
      path,
      effective: `${scheme}://${host}${portGiven ? `:${port}` : ''}${path}`,
    },
  };
}

/** The request fields curl sends, in its order: Host, User-Agent, Accept, then -H fields, then -d's. */
function requestFields(args: CurlArgs, target: Target, dataBytes: number): HeaderField[] {
  const custom: HeaderField[] = [];
  const removed = new Set<string>();
  for (const header of args.headers) {
    const colon = header.indexOf(':');
    const semicolon = header.indexOf(';');
    if (colon > 0) {
      const name = header.slice(0, colon).trim();
      const value = header.slice(colon + 1).trim();
      if (value === '') removed.add(name.toLowerCase());
      else custom.push({ name, value });
    } else if (semicolon > 0 && header.slice(semicolon + 1).trim() === '')
      custom.push({ name: header.slice(0, semicolon).trim(), value: '' });
  }
  const has = (name: string) =>
    custom.some((field) => field.name.toLowerCase() === name) || removed.has(name);
  const fields: HeaderField[] = [];
  const customHost = custom.find((field) => field.name.toLowerCase() === 'host');
  if (customHost !== undefined) fields.push(customHost);
  else if (!removed.has('host'))
    fields.push({ name: 'Host', value: target.port === 80 ? target.host : `${target.host}:${target.port}` });
  if (!has('user-agent')) fields.push({ name: 'User-Agent', value: USER_AGENT });
  if (!has('accept')) fields.push({ name: 'Accept', value: '*/*' });
  for (const field of custom) if (field !== customHost) fields.push(field);
  if (args.data.length > 0) {
    if (!has('content-length')) fields.push({ name: 'Content-Length', value: String(dataBytes) });
    if (!has('content-type'))
      fields.push({ name: 'Content-Type', value: 'application/x-www-form-urlencoded' });
  }
  return fields;
}

/** `--resolve host:port:addr` entries; a later entry for the same host and port wins. */
function resolveEntries(entries: readonly string[]): Map<string, Ipv4Addr> {
  const map = new Map<string, Ipv4Addr>();
  for (const entry of entries) {
    const parts = entry.split(':');
    const addr = parseIpv4(parts[2] ?? '');
    if (parts.length === 3 && addr !== undefined) map.set(`${parts[0]}:${parts[1]}`, addr);
  }
  return map;
}

/** Each line of a head with curl's `< ` or `> ` prefix, the CR kept as curl writes it. */
function traceHead(prefix: string, head: string): string {
  return head
    .split('\n')
    .slice(0, -1)
    .map((line) => `${prefix}${line}\n`)
    .join('');
}

/** A kept-alive connection curl may reuse for a later URL to the same host and port. */
interface CachedConnection {
  readonly id: number;
  readonly socket: TcpSocket;
}

/** What one curl run keeps across its URLs: connections, resolved names, connection numbers, stderr. */
interface Session {
  readonly ns: Namespace;
  readonly args: CurlArgs;
  readonly resolved: Map<string, Ipv4Addr>;
  /** `host:port` names already resolved (a later use says "found in DNS cache"). */
  readonly seen: Set<string>;
  readonly connections: Map<string, CachedConnection>;
  nextId: number;
  stderr: string;
}

/** What one URL's transfer printed on stdout and how it ended. */
interface Transfer {
  readonly stdout: string;
  readonly exitCode: number;
}

export function curl(ns: Namespace, argv: string[]): CommandResult {
  const parsed = parseCurlArgs(argv);
  if (!parsed.ok) {
    if (parsed.kind === 'unsupported') return unsupported('curl', parsed.option);
    return fail(`curl: ${parsed.message}\n${HINT}`, 2);
  }
  const args = parsed.args;
  if (args.urls.length === 0) return fail(`curl: no URL specified!\n${HINT}`, 2);
  for (const text of args.urls) if (/^https:/i.test(text)) return unsupported('curl', 'https');
  const session: Session = {
    ns,
    args,
    resolved: resolveEntries(args.resolve),
    seen: new Set(),
    connections: new Map(),
    nextId: 0,
    stderr: '',
  };
  for (const entry of args.resolve) {
    if (entry.split(':').length !== 3) continue;
    if (args.verbose) session.stderr += `* Added ${entry} to DNS cache\n`;
    session.seen.add(entry.split(':').slice(0, 2).join(':'));
  }
  let stdout = '';
  let exitCode = 0;
  for (let i = 0; i < args.urls.length; i++) {
    const transfer = transferOne(session, args.urls[i]!, i === 0);
    if (transfer === 'stalled') {
      for (const cached of session.connections.values()) cached.socket.destroy();
      return fail('packetlab: curl: the transfer stalled with no event pending; give it --max-time\n', 1);
    }
    stdout += transfer.stdout;
    exitCode = transfer.exitCode;
  }
  // curl exits: kept-alive connections close with the process.
  for (const cached of session.connections.values()) cached.socket.destroy();
  return { stdout, stderr: session.stderr, exitCode };
}

/** One URL: resolve, reuse or connect, send, read, print (curl's exit code is the last transfer's). */
function transferOne(session: Session, urlText: string, first: boolean): Transfer | 'stalled' {
  const { ns, args } = session;
  const showErrors = !args.silent || args.showError;
  const verbose = (line: string) => {
    if (args.verbose) session.stderr += `* ${line}\n`;
  };
  const url = parseUrl(urlText);
  if (!url.ok) {
    if (showErrors) session.stderr += `curl: (${url.exit}) ${url.message}\n`;
    return { stdout: '', exitCode: url.exit };
  }
  const target = url.target;
  const hostPort = `${target.host}:${target.port}`;
  const lookupStart = ns.sim.scheduler.now;
  const addr = parseIpv4(target.host) ?? session.resolved.get(hostPort) ?? resolveHost(ns, target.host);
  const lookupSeconds = (ns.sim.scheduler.now - lookupStart) / 1e9;
  // curl's DNS cache: a later URL to the same host and port does not ask again.
  if (addr !== undefined && parseIpv4(target.host) === undefined) session.resolved.set(hostPort, addr);
  const cached = session.connections.get(hostPort);
  if (cached === undefined && addr !== undefined && session.seen.has(hostPort))
    verbose(`Hostname ${target.host} was found in DNS cache`);
  session.seen.add(hostPort);
  const values: WriteOutValues = {
    httpCode: 0,
    remoteIp: '',
    remotePort: 0,
    localIp: '',
    localPort: 0,
    timeTotal: lookupSeconds,
    timeConnect: 0,
    timeStartTransfer: 0,
    timeNamelookup: lookupSeconds,
    sizeDownload: 0,
    sizeHeader: 0,
    sizeUpload: 0,
    numConnects: 0,
    exitCode: 0,
    errorMessage: '',
    urlEffective: target.effective,
    contentType: '',
    method: 'GET',
    scheme: 'HTTP',
  };
  let id = cached?.id ?? session.nextId;
  const finish = (stdout: string, exitCode: number, errorMessage: string): Transfer => {
    values.exitCode = exitCode;
    values.errorMessage = errorMessage;
    if (exitCode !== 0) {
      verbose(errorMessage);
      verbose(`Closing connection ${id}`);
    }
    let out = stdout;
    if (args.writeOut !== undefined) {
      const expanded = writeOut(args.writeOut, values);
      out += expanded.text;
      session.stderr += expanded.stderr;
    }
    if (exitCode !== 0 && showErrors) session.stderr += `curl: (${exitCode}) ${errorMessage}\n`;
    return { stdout: out, exitCode };
  };
  if (addr === undefined) {
    session.nextId++;
    return finish('', 6, `Could not resolve host: ${target.host}`);
  }
  const data = args.data.join('&');
  const method = args.method ?? (args.head ? 'HEAD' : args.data.length > 0 ? 'POST' : 'GET');
  values.method = method;
  const addrText = formatIpv4(addr);
  if (cached !== undefined) {
    session.connections.delete(hostPort);
    // A made-up pointer where curl prints the address of its connection bundle.
    verbose('Found bundle for host: 0x55d5c0de2a40 [serially]');
    verbose('Can not multiplex, even if we wanted to');
    verbose(`Re-using existing connection #${id} with host ${target.host}`);
  } else {
    id = session.nextId++;
    verbose(`  Trying ${addrText}:${target.port}...`);
  }
  const trace: HttpTrace = {
    onConnected: (_socket, reused) => {
      if (!reused) verbose(`Connected to ${target.host} (${addrText}) port ${target.port} (#${id})`);
    },
    onRequest: (head, bodyBytes) => {
      if (!args.verbose) return;
      session.stderr += traceHead('> ', head);
      if (bodyBytes > 0) session.stderr += `} [${bodyBytes} bytes data]\n`;
    },
    onResponseHead: (head, closeDelimited) => {
      if (!args.verbose) return;
      if (!closeDelimited) {
        session.stderr += traceHead('< ', head);
        return;
      }
      // curl says so once the fields are read, before the empty line that ends them.
      const fields = head.slice(0, head.lastIndexOf('\n', head.length - 2) + 1);
      session.stderr += `${traceHead('< ', fields)}* no chunk, no close, no size. Assume close to signal end\n< \r\n`;
    },
    onBodyData: (rawBytes) => {
      // mirrors tool_cb_dbg.c:tool_debug_cb's traced_data: only the first read after a header or text line is
      // shown, so a body read in several reads prints one line, with the first read's size.
      if (args.verbose && !/[{}] \[\d+ bytes data\]\n$/.test(session.stderr))
        session.stderr += `{ [${rawBytes} bytes data]\n`;
    },
  };
  const connectTimeoutMs = args.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const exchange = httpRequest(
    ns,
    {
      dst: addr,
      port: target.port,
      method,
      path: target.path,
      fields: requestFields(args, target, data.length),
      ...(args.data.length > 0 ? { body: data } : {}),
      ...(cached !== undefined ? { socket: cached.socket } : { connectTimeoutMs }),
      ...(args.maxTimeMs !== undefined ? { maxTimeMs: args.maxTimeMs } : {}),
      trace,
    },
    () => {},
  );
  const scheduler = ns.sim.scheduler;
  const limit = scheduler.now + STALL_LIMIT_NS;
  while (!exchange.done) {
    const next = scheduler.nextTime();
    if (next === undefined || next > limit) break;
    scheduler.runNext();
  }
  const result = exchange.result;
  if (result === undefined) {
    exchange.cancel();
    return 'stalled';
  }
  if (result.socket !== undefined) session.connections.set(hostPort, { id, socket: result.socket });
  fillValues(values, result, data.length);
  const exitCode = curlExitCode(result.failure);
  const peer = { host: target.host, port: target.port };
  const output = first ? args.output : undefined;
  if (exitCode !== 0) {
    const detail = curlFailureDetail(result, peer, addrText, connectTimeoutMs);
    if (detail !== undefined) verbose(detail);
    return finish(outputOf(ns, args, output, result, false), exitCode, curlErrorText(result, peer));
  }
  if (args.fail && result.status >= 400)
    return finish('', 22, `The requested URL returned error: ${result.status}`);
  const stdout = outputOf(ns, args, output, result, true);
  verbose(
    result.keptAlive ? `Connection #${id} to host ${target.host} left intact` : `Closing connection ${id}`,
  );
  return finish(stdout, 0, '');
}

/**
 * getaddrinfo(AF_UNSPEC) through the namespace's /etc/resolv.conf (glibc's search list and ndots), driving the
 * simulation until it answers; undefined without a resolv.conf or when the lookup failed.
 */
function resolveHost(ns: Namespace, host: string): Ipv4Addr | undefined {
  const text = readResolvConf(ns);
  const options = text === undefined ? undefined : parseResolvConf(text);
  if (options === undefined) return undefined;
  const lookup = lookupHost(ns, host, options);
  const scheduler = ns.sim.scheduler;
  while (lookup.result === undefined) {
    if (scheduler.nextTime() === undefined) break;
    scheduler.runNext();
  }
  const result = lookup.result;
  return result?.ok === true && result.addresses.length > 0 ? parseIpv4(result.addresses[0]!) : undefined;
}

/** What lands on stdout (or in the -o file): the head with -i or -I, the body unless -I. */
function outputOf(
  ns: Namespace,
  args: CurlArgs,
  output: string | undefined,
  result: HttpResult,
  complete: boolean,
): string {
  const head = args.include || args.head ? result.head : '';
  const body = args.head && complete ? new Uint8Array(0) : result.body;
  if (output === '/dev/null') return '';
  if (output !== undefined) {
    const bytes = new Uint8Array(head.length + body.length);
    for (let i = 0; i < head.length; i++) bytes[i] = head.charCodeAt(i) & 0xff;
    bytes.set(body, head.length);
    ns.sim.files.set(output, bytes);
    return '';
  }
  return head + new TextDecoder().decode(body);
}

/** The transfer's times, from the start of the name lookup as curl counts them (Curl_pgrsTime from the start). */
function fillValues(values: WriteOutValues, result: HttpResult, upload: number): void {
  const lookup = values.timeNamelookup;
  const seconds = (ns: number) => (ns < 0 ? 0 : lookup + (ns - result.startNs) / 1e9);
  values.httpCode = result.status;
  if (result.connectNs >= 0) {
    values.remoteIp = formatIpv4(result.remoteAddr);
    values.remotePort = result.remotePort;
    values.localIp = formatIpv4(result.localAddr);
    values.localPort = result.localPort;
  }
  values.timeTotal = lookup + (result.endNs - result.startNs) / 1e9;
  values.timeConnect = seconds(result.connectNs);
  values.timeStartTransfer = seconds(result.firstByteNs);
  values.sizeDownload = result.bodyBytes;
  values.sizeHeader = result.headerBytes;
  values.sizeUpload = result.connectNs >= 0 ? upload : 0;
  values.numConnects = result.connects;
  values.contentType =
    result.fields.find((field) => field.name.toLowerCase() === 'content-type')?.value ?? '';
}
