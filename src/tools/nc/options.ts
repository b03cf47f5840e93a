// nc's command line as netcat-openbsd 1.219 (Debian 12) reads it: glibc getopt over its option string, the
// argument checks of main() with their exact texts, port lists (names, ranges); options it has but packetlab
// does not model answer `packetlab: nc -X is not supported`.

import { parsePort, portName } from '../../netfilter/iptables/names.ts';
import { type CommandResult, fail, unsupported } from '../result.ts';

/** usage() of netcat.c, as Debian's 1.219 prints it on stderr. */
export const NC_USAGE = `usage: nc [-46CDdFhklNnrStUuvZz] [-I length] [-i interval] [-M ttl]
\t  [-m minttl] [-O length] [-P proxy_username] [-p source_port]
\t  [-q seconds] [-s sourceaddr] [-T keyword] [-V rtable] [-W recvlimit]
\t  [-w timeout] [-X proxy_protocol] [-x proxy_address[:port]]
\t  [destination] [port]
`;

/** help(): the banner, usage and the command summary, all on stderr, exit 0. */
const NC_HELP = `OpenBSD netcat (Debian patchlevel 1.219-1)
${NC_USAGE}\tCommand Summary:
\t\t-4\t\tUse IPv4
\t\t-6\t\tUse IPv6
\t\t-b\t\tAllow broadcast
\t\t-C\t\tSend CRLF as line-ending
\t\t-D\t\tEnable the debug socket option
\t\t-d\t\tDetach from stdin
\t\t-F\t\tPass socket fd
\t\t-h\t\tThis help text
\t\t-I length\tTCP receive buffer length
\t\t-i interval\tDelay interval for lines sent, ports scanned
\t\t-k\t\tKeep inbound sockets open for multiple connects
\t\t-l\t\tListen mode, for inbound connects
\t\t-M ttl\t\tOutgoing TTL / Hop Limit
\t\t-m minttl\tMinimum incoming TTL / Hop Limit
\t\t-N\t\tShutdown the network socket after EOF on stdin
\t\t-n\t\tSuppress name/port resolutions
\t\t-O length\tTCP send buffer length
\t\t-P proxyuser\tUsername for proxy authentication
\t\t-p port\t\tSpecify local port for remote connects
\t\t-q secs\t\tquit after EOF on stdin and delay of secs
\t\t-r\t\tRandomize remote ports
\t\t-S\t\tEnable the TCP MD5 signature option
\t\t-s sourceaddr\tLocal source address
\t\t-T keyword\tTOS value
\t\t-t\t\tAnswer TELNET negotiation
\t\t-U\t\tUse UNIX domain socket
\t\t-u\t\tUDP mode
\t\t-V rtable\tSpecify alternate routing table
\t\t-v\t\tVerbose
\t\t-W recvlimit\tTerminate after receiving a number of packets
\t\t-w timeout\tTimeout for connects and final net reads
\t\t-X proto\tProxy protocol: "4", "5" (SOCKS) or "connect"
\t\t-x addr[:port]\tSpecify proxy address and port
\t\t-Z\t\tDCCP mode
\t\t-z\t\tZero-I/O mode [used for scanning]
\tPort numbers can be individual or ranges: lo-hi [inclusive]
`;

const OPTSTRING = '46bCDdFhI:i:klM:m:NnO:P:p:q:rSs:T:tUuV:vW:w:X:x:Zz';

export interface NcOptions {
  /** -u */
  readonly udp: boolean;
  /** -l */
  readonly listen: boolean;
  /** -k */
  readonly keepListening: boolean;
  /** -z */
  readonly zeroIo: boolean;
  /** -v */
  readonly verbose: boolean;
  /** -n */
  readonly numeric: boolean;
  /** -N, or -q with a value of 0 or more: shutdown(SHUT_WR) after EOF on stdin. */
  readonly shutdownOnEof: boolean;
  /** -q: seconds to linger after EOF on stdin, -1 (the default) to wait for the peer. */
  readonly quitAfterEof: number;
  /** -d */
  readonly detachStdin: boolean;
  /** -w, in milliseconds; -1 when absent (no timeout). */
  readonly timeoutMs: number;
  /** -s */
  readonly sourceAddr: string | undefined;
  /** -p */
  readonly sourcePort: string | undefined;
  /** The host to connect to, or the address to listen on (undefined: any). */
  readonly host: string | undefined;
  /** The port words (connect mode: a list with names and ranges; listen mode: one). */
  readonly ports: readonly string[];
}

/**
 * OpenBSD strtonum: a decimal integer in [min, max], else "invalid", "too small" or "too large"
 * (strtoll's leading blanks and sign are accepted).
 */
export function strtonum(
  text: string,
  min: number,
  max: number,
): number | 'invalid' | 'too small' | 'too large' {
  const match = /^[ \t\n\v\f\r]*([+-]?\d+)$/.exec(text);
  if (match === null) return 'invalid';
  const value = Number(match[1]);
  if (value < min) return 'too small';
  if (value > max) return 'too large';
  return value;
}

/** The option letters netcat-openbsd has that packetlab does not model. */
const UNMODELLED = new Set([
  '6',
  'b',
  'C',
  'D',
  'F',
  'I',
  'i',
  'M',
  'm',
  'O',
  'P',
  'r',
  'S',
  'T',
  't',
  'U',
  'W',
  'x',
  'Z',
]);

const INT_MAX = 2147483647;
const INT_MIN = -2147483648;

/** main()'s option loop and argument checks; a string result is the whole failure. */
export function parseNcOptions(args: readonly string[]): NcOptions | CommandResult {
  const scanned = scanShortOptions(args, OPTSTRING);
  let udp = false;
  let listen = false;
  let keepListening = false;
  let zeroIo = false;
  let verbose = false;
  let numeric = false;
  let shutdownOnEof = false;
  let quitAfterEof = -1;
  let detachStdin = false;
  let timeoutMs = -1;
  let sourceAddr: string | undefined;
  let sourcePort: string | undefined;
  let unmodelled: string | undefined;
  for (const { flag, value } of scanned.options) {
    // getopt's complaint comes when the loop reaches the bad option, after those before it ran.
    if (flag === '?') return fail(`nc: ${value}\n${NC_USAGE}`);
    switch (flag) {
      case '4':
        break;
      case 'd':
        detachStdin = true;
        break;
      case 'h':
        return fail(NC_HELP, 0);
      case 'k':
        keepListening = true;
        break;
      case 'l':
        listen = true;
        break;
      case 'N':
        shutdownOnEof = true;
        break;
      case 'n':
        numeric = true;
        break;
      case 'p':
        sourcePort = value;
        break;
      case 'q': {
        const q = strtonum(value, INT_MIN, INT_MAX);
        if (typeof q === 'string') return fail(`nc: quit timer ${q}: ${value}\n`);
        quitAfterEof = q;
        if (q >= 0) shutdownOnEof = true;
        break;
      }
      case 's':
        sourceAddr = value;
        break;
      case 'u':
        udp = true;
        break;
      case 'V':
        return fail('nc: no alternate routing table support available\n');
      case 'v':
        verbose = true;
        break;
      case 'w': {
        const w = strtonum(value, 0, Math.trunc(INT_MAX / 1000));
        if (typeof w === 'string') return fail(`nc: timeout ${w}: ${value}\n`);
        timeoutMs = w * 1000;
        break;
      }
      case 'X':
        if (value.toLowerCase() !== 'connect' && value !== '4' && value !== '5')
          return fail('nc: unsupported proxy protocol\n');
        unmodelled ??= '-X';
        break;
      case 'z':
        zeroIo = true;
        break;
      default:
        if (UNMODELLED.has(flag)) unmodelled ??= `-${flag}`;
    }
  }
  const rest = scanned.operands;
  if (unmodelled !== undefined) return unsupported('nc', unmodelled);

  // "Cruft to make sure options are clean, and used properly."
  let host: string | undefined;
  let ports: string[] = [];
  if (rest.length === 0 && listen) {
    host = sourceAddr;
    if (sourcePort !== undefined) ports = [sourcePort];
  } else if (rest.length === 1 && sourcePort === undefined && sourceAddr === undefined) {
    if (listen) ports = [rest[0]!];
  } else if (rest.length >= 2) {
    if (listen && (sourcePort !== undefined || sourceAddr !== undefined || rest.length > 2))
      return fail(NC_USAGE);
    host = rest[0]!;
    ports = rest.slice(1);
  } else return fail(NC_USAGE);
  if (ports.length === 0) return fail('nc: missing port number\n');
  if (listen && zeroIo) return fail('nc: cannot use -z and -l\n');
  if (!listen && keepListening) return fail('nc: must use -l with -k\n');
  return {
    udp,
    listen,
    keepListening,
    zeroIo,
    verbose,
    numeric,
    shutdownOnEof,
    quitAfterEof,
    detachStdin,
    timeoutMs,
    sourceAddr,
    sourcePort,
    host,
    ports,
  };
}

/**
 * glibc getopt for short options: clusters (-zv), attached or separate arguments (-w1, -w 1),
 * operands permuted after the options, `--` ends the options. A bad option ends the list as
 * `?` with getopt's complaint for its value.
 */
function scanShortOptions(
  args: readonly string[],
  optstring: string,
): { options: { flag: string; value: string }[]; operands: string[] } {
  const options: { flag: string; value: string }[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const flag = arg[j]!;
      const at = optstring.indexOf(flag);
      if (at < 0 || flag === ':') {
        options.push({ flag: '?', value: `invalid option -- '${flag}'` });
        return { options, operands };
      }
      if (optstring[at + 1] !== ':') {
        options.push({ flag, value: '' });
        continue;
      }
      if (j + 1 < arg.length) options.push({ flag, value: arg.slice(j + 1) });
      else if (i + 1 < args.length) options.push({ flag, value: args[++i]! });
      else {
        options.push({ flag: '?', value: `option requires an argument -- '${flag}'` });
        return { options, operands };
      }
      break;
    }
  }
  return { options, operands };
}

/**
 * build_ports: each word a service name, a range lo-hi (in order, lowest first) or a port
 * number (strtoport's checks); returns the ports or the failure.
 */
export function buildPorts(words: readonly string[], proto: 'tcp' | 'udp'): number[] | CommandResult {
  const ports: number[] = [];
  for (const word of words) {
    const service = /^\d/.test(word) ? undefined : parsePort(word, proto);
    if (service !== undefined) {
      ports.push(service);
      continue;
    }
    const dash = word.indexOf('-');
    if (/^\d/.test(word) && dash >= 0) {
      const hi = strtoport(word.slice(dash + 1));
      if (typeof hi !== 'number') return hi;
      const lo = strtoport(word.slice(0, dash));
      if (typeof lo !== 'number') return lo;
      for (let port = Math.min(lo, hi); port <= Math.max(lo, hi); port++) ports.push(port);
      continue;
    }
    const port = strtoport(word);
    if (typeof port !== 'number') return port;
    ports.push(port);
  }
  return ports;
}

function strtoport(text: string): number | CommandResult {
  const port = strtonum(text, 1, 65535);
  return typeof port === 'number' ? port : fail(`nc: port number ${port}: ${text}\n`);
}

/**
 * getaddrinfo's service lookup for a local port (-p, or the port of -l): a number (truncated to
 * 16 bits as glibc's gaih_inet_serv does) or a name; undefined is "Servname not supported".
 */
export function localPort(text: string, proto: 'tcp' | 'udp'): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) & 0xffff;
  return parsePort(text, proto);
}

/** getservbyport's name for connection_info, `*` when /etc/services has none or with -n. */
export function serviceName(port: number, proto: 'tcp' | 'udp', numeric: boolean): string {
  if (numeric) return '*';
  const name = portName(port, proto, false);
  return name === String(port) ? '*' : name;
}
