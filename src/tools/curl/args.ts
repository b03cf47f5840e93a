// curl 7.88.1's command line as tool_getparam.c reads it, for the options packetlab's curl models: clustered short
// flags, values attached or in the next word, long options, and curl's own error texts; known options it does
// not model are named so the caller can answer "not supported". No config files (-K), no globbing, one URL.

export interface CurlArgs {
  silent: boolean;
  showError: boolean;
  verbose: boolean;
  include: boolean;
  head: boolean;
  fail: boolean;
  output: string | undefined;
  writeOut: string | undefined;
  headers: string[];
  data: string[];
  method: string | undefined;
  maxTimeMs: number | undefined;
  connectTimeoutMs: number | undefined;
  resolve: string[];
  urls: string[];
}

export type ParsedArgs =
  | { readonly ok: true; readonly args: CurlArgs }
  /** curl's own complaint (printed as `curl: TEXT` plus the help hint, exit 2). */
  | { readonly ok: false; readonly kind: 'usage'; readonly message: string }
  /** A real curl option packetlab does not model. */
  | { readonly ok: false; readonly kind: 'unsupported'; readonly option: string };

type Flag = 'silent' | 'showError' | 'verbose' | 'include' | 'head' | 'fail';
type Valued =
  | 'output'
  | 'writeOut'
  | 'header'
  | 'data'
  | 'request'
  | 'maxTime'
  | 'connectTimeout'
  | 'resolve'
  | 'url';

interface OptionSpec {
  readonly long: string;
  readonly short: string | undefined;
  readonly kind: { readonly flag: Flag } | { readonly valued: Valued };
}

const OPTIONS: readonly OptionSpec[] = [
  { long: 'silent', short: 's', kind: { flag: 'silent' } },
  { long: 'show-error', short: 'S', kind: { flag: 'showError' } },
  { long: 'verbose', short: 'v', kind: { flag: 'verbose' } },
  { long: 'include', short: 'i', kind: { flag: 'include' } },
  { long: 'head', short: 'I', kind: { flag: 'head' } },
  { long: 'fail', short: 'f', kind: { flag: 'fail' } },
  { long: 'output', short: 'o', kind: { valued: 'output' } },
  { long: 'write-out', short: 'w', kind: { valued: 'writeOut' } },
  { long: 'header', short: 'H', kind: { valued: 'header' } },
  { long: 'data', short: 'd', kind: { valued: 'data' } },
  { long: 'data-raw', short: undefined, kind: { valued: 'data' } },
  { long: 'request', short: 'X', kind: { valued: 'request' } },
  { long: 'max-time', short: 'm', kind: { valued: 'maxTime' } },
  { long: 'connect-timeout', short: undefined, kind: { valued: 'connectTimeout' } },
  { long: 'resolve', short: undefined, kind: { valued: 'resolve' } },
  { long: 'url', short: undefined, kind: { valued: 'url' } },
];

/** Real curl options that packetlab's curl does not model (the common ones; anything else is unknown). */
const UNMODELLED_LONG = new Set([
  'location',
  'insecure',
  'user',
  'proxy',
  'ipv4',
  'ipv6',
  'user-agent',
  'referer',
  'cookie',
  'cookie-jar',
  'form',
  'upload-file',
  'remote-name',
  'parallel',
  'no-buffer',
  'progress-bar',
  'http1.0',
  'http1.1',
  'http2',
  'compressed',
  'retry',
  'interface',
  'local-port',
  'limit-rate',
  'config',
  'data-binary',
  'data-urlencode',
  'get',
  'cacert',
  'cert',
  'key',
  'tcp-nodelay',
  'keepalive-time',
  'no-keepalive',
  'dump-header',
  'trace',
  'trace-ascii',
  'stderr',
  'range',
  'continue-at',
  'next',
  'haproxy-protocol',
  'unix-socket',
  'noproxy',
  'fail-with-body',
  'dns-servers',
  'doh-url',
  'tlsv1.2',
  'resolve-all',
]);
const UNMODELLED_SHORT: Readonly<Record<string, string>> = {
  L: 'location',
  k: 'insecure',
  u: 'user',
  x: 'proxy',
  '4': 'ipv4',
  '6': 'ipv6',
  A: 'user-agent',
  e: 'referer',
  b: 'cookie',
  c: 'cookie-jar',
  F: 'form',
  T: 'upload-file',
  O: 'remote-name',
  Z: 'parallel',
  N: 'no-buffer',
  '#': 'progress-bar',
  '0': 'http1.0',
  K: 'config',
  G: 'get',
  D: 'dump-header',
  r: 'range',
  C: 'continue-at',
  ':': 'next',
  E: 'cert',
  j: 'junk-session-cookies',
  J: 'remote-header-name',
  l: 'list-only',
  n: 'netrc',
  p: 'proxytunnel',
  q: 'disable',
  R: 'remote-time',
  t: 'telnet-option',
  U: 'proxy-user',
  V: 'version',
  y: 'speed-time',
  Y: 'speed-limit',
  z: 'time-cond',
  h: 'help',
  M: 'manual',
  B: 'use-ascii',
  P: 'ftp-port',
  Q: 'quote',
  a: 'append',
  g: 'globoff',
};

/** curl's str2udouble for -m and --connect-timeout: a non-negative decimal number of seconds. */
function seconds(text: string): number | undefined {
  if (!/^[0-9]*\.?[0-9]+$|^[0-9]+\.$/.test(text)) return undefined;
  return Math.round(Number(text) * 1000);
}

export function parseCurlArgs(argv: readonly string[]): ParsedArgs {
  const args: CurlArgs = {
    silent: false,
    showError: false,
    verbose: false,
    include: false,
    head: false,
    fail: false,
    output: undefined,
    writeOut: undefined,
    headers: [],
    data: [],
    method: undefined,
    maxTimeMs: undefined,
    connectTimeoutMs: undefined,
    resolve: [],
    urls: [],
  };
  const apply = (spec: OptionSpec, shown: string, value: string | undefined): string | undefined => {
    const kind = spec.kind;
    if ('flag' in kind) {
      args[kind.flag] = true;
      return undefined;
    }
    if (value === undefined) return `option ${shown}: requires parameter`;
    switch (kind.valued) {
      case 'output':
        args.output = value;
        return undefined;
      case 'writeOut':
        args.writeOut = value;
        return undefined;
      case 'header':
        args.headers.push(value);
        return undefined;
      case 'data':
        args.data.push(value);
        return undefined;
      case 'request':
        args.method = value;
        return undefined;
      case 'maxTime':
      case 'connectTimeout': {
        const ms = seconds(value);
        if (ms === undefined) return `option ${shown}: expected a proper numerical parameter`;
        if (kind.valued === 'maxTime') args.maxTimeMs = ms;
        else args.connectTimeoutMs = ms;
        return undefined;
      }
      case 'resolve':
        args.resolve.push(value);
        return undefined;
      case 'url':
        args.urls.push(value);
        return undefined;
      default:
        return unreachable(kind.valued);
    }
  };
  let onlyUrls = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (onlyUrls || !word.startsWith('-') || word === '-') {
      args.urls.push(word);
      continue;
    }
    if (word === '--') {
      onlyUrls = true;
      continue;
    }
    if (word.startsWith('--')) {
      // curl has no --opt=value form: `--max-time=3` is an unknown option.
      const name = word.slice(2);
      if (name === 'no-progress-meter') continue; // packetlab's curl never draws the meter
      const bare = name.startsWith('no-') ? name.slice(3) : name;
      const spec = OPTIONS.find(
        (option) => option.long === name || ('flag' in option.kind && option.long === bare),
      );
      if (spec === undefined) {
        if (UNMODELLED_LONG.has(name)) return { ok: false, kind: 'unsupported', option: `--${name}` };
        return { ok: false, kind: 'usage', message: `option ${word}: is unknown` };
      }
      if ('flag' in spec.kind) {
        args[spec.kind.flag] = !name.startsWith('no-');
        continue;
      }
      const error = apply(spec, `--${name}`, argv[++i]);
      if (error !== undefined) return { ok: false, kind: 'usage', message: error };
      continue;
    }
    // Short options cluster (-sSv); a valued one takes the rest of the word or the next word.
    for (let j = 1; j < word.length; j++) {
      const letter = word[j]!;
      const spec = OPTIONS.find((option) => option.short === letter);
      if (spec === undefined) {
        if (UNMODELLED_SHORT[letter] !== undefined)
          return { ok: false, kind: 'unsupported', option: `-${letter}` };
        return { ok: false, kind: 'usage', message: `option ${word}: is unknown` };
      }
      if ('flag' in spec.kind) {
        args[spec.kind.flag] = true;
        continue;
      }
      const rest = word.slice(j + 1);
      const value = rest !== '' ? rest : argv[++i];
      const error = apply(spec, `-${letter}`, value);
      if (error !== undefined) return { ok: false, kind: 'usage', message: error };
      break;
    }
  }
  return { ok: true, args };
}

function unreachable(value: never): never {
  throw new Error(`unhandled curl option ${String(value)}`);
}
