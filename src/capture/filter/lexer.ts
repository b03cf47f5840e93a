// Tokenizer for pcap-filter expressions, mirroring libpcap's scanner.l (longest match, ties to the earlier
// rule); it knows every libpcap keyword, including those of primitives the parser then refuses.
//
// libpcap tokenizes with flex: at each position every rule is tried, the longest match wins and a tie goes to
// the rule listed first. We reproduce that choice among the rules that matter: keywords, punctuation, `$B`
// (ARCnet), MAC addresses, numbers (decimal, 0x hex, 0 octal), dotted IPv4 (`HID`, 2 to 4 parts), IPv6
// (`HID6`), the "bogus ethernet address" rule, named constants (`tcp-syn`, `icmp-echo`, ...), identifiers
// and `\name` escapes. A lexical error does not stop tokenizing: it becomes a token carrying its message, and
// the parser reports it only if the parse reaches it, as bison would.

/** Keywords libpcap's scanner knows; any of them at a place the grammar does not expect is a syntax error. */
const KEYWORDS: ReadonlyMap<string, Keyword> = new Map<string, Keyword>([
  ['dst', 'dst'],
  ['src', 'src'],
  ['link', 'link'],
  ['ether', 'link'],
  ['ppp', 'link'],
  ['slip', 'link'],
  ['fddi', 'link'],
  ['tr', 'link'],
  ['wlan', 'link'],
  ['arp', 'arp'],
  ['rarp', 'rarp'],
  ['ip', 'ip'],
  ['sctp', 'sctp'],
  ['tcp', 'tcp'],
  ['udp', 'udp'],
  ['icmp', 'icmp'],
  ['igmp', 'igmp'],
  ['igrp', 'igrp'],
  ['pim', 'pim'],
  ['vrrp', 'vrrp'],
  ['carp', 'carp'],
  ['radio', 'radio'],
  ['ip6', 'ip6'],
  ['icmp6', 'icmp6'],
  ['ah', 'ah'],
  ['esp', 'esp'],
  ['atalk', 'atalk'],
  ['aarp', 'aarp'],
  ['decnet', 'decnet'],
  ['lat', 'lat'],
  ['sca', 'sca'],
  ['moprc', 'moprc'],
  ['mopdl', 'mopdl'],
  ['iso', 'iso'],
  ['esis', 'esis'],
  ['es-is', 'esis'],
  ['isis', 'isis'],
  ['is-is', 'isis'],
  ['l1', 'l1'],
  ['l2', 'l2'],
  ['iih', 'iih'],
  ['lsp', 'lsp'],
  ['snp', 'snp'],
  ['csnp', 'csnp'],
  ['psnp', 'psnp'],
  ['clnp', 'clnp'],
  ['stp', 'stp'],
  ['ipx', 'ipx'],
  ['netbeui', 'netbeui'],
  ['host', 'host'],
  ['net', 'net'],
  ['mask', 'mask'],
  ['port', 'port'],
  ['portrange', 'portrange'],
  ['proto', 'proto'],
  ['protochain', 'protochain'],
  ['gateway', 'gateway'],
  ['type', 'type'],
  ['subtype', 'subtype'],
  ['direction', 'dir'],
  ['dir', 'dir'],
  ['address1', 'addr1'],
  ['addr1', 'addr1'],
  ['address2', 'addr2'],
  ['addr2', 'addr2'],
  ['address3', 'addr3'],
  ['addr3', 'addr3'],
  ['address4', 'addr4'],
  ['addr4', 'addr4'],
  ['ra', 'ra'],
  ['ta', 'ta'],
  ['less', 'less'],
  ['greater', 'greater'],
  ['byte', 'byte'],
  ['broadcast', 'broadcast'],
  ['multicast', 'multicast'],
  ['and', 'and'],
  ['or', 'or'],
  ['not', 'not'],
  ['len', 'len'],
  ['length', 'len'],
  ['inbound', 'inbound'],
  ['outbound', 'outbound'],
  ['ifindex', 'ifindex'],
  ['vlan', 'vlan'],
  ['mpls', 'mpls'],
  ['pppoed', 'pppoed'],
  ['pppoes', 'pppoes'],
  ['geneve', 'geneve'],
  ['lane', 'lane'],
  ['llc', 'llc'],
  ['metac', 'metac'],
  ['bcc', 'bcc'],
  ['oam', 'oam'],
  ['oamf4', 'oamf4'],
  ['oamf4ec', 'oamf4ec'],
  ['oamf4sc', 'oamf4sc'],
  ['sc', 'sc'],
  ['ilmic', 'ilmic'],
  ['vpi', 'vpi'],
  ['vci', 'vci'],
  ['connectmsg', 'connectmsg'],
  ['metaconnect', 'metaconnect'],
  ['on', 'on'],
  ['ifname', 'on'],
  ['rset', 'rset'],
  ['ruleset', 'rset'],
  ['rnr', 'rnr'],
  ['rulenum', 'rnr'],
  ['srnr', 'srnr'],
  ['subrulenum', 'srnr'],
  ['reason', 'reason'],
  ['action', 'action'],
  ['fisu', 'fisu'],
  ['lssu', 'lssu'],
  ['lsu', 'lssu'],
  ['msu', 'msu'],
  ['hfisu', 'hfisu'],
  ['hlssu', 'hlssu'],
  ['hmsu', 'hmsu'],
  ['sio', 'sio'],
  ['opc', 'opc'],
  ['dpc', 'dpc'],
  ['sls', 'sls'],
  ['hsio', 'hsio'],
  ['hopc', 'hopc'],
  ['hdpc', 'hdpc'],
  ['hsls', 'hsls'],
]);

/** The canonical name of each keyword token (aliases such as `ether` and `length` collapse onto one). */
export type Keyword =
  | 'dst'
  | 'src'
  | 'link'
  | 'arp'
  | 'rarp'
  | 'ip'
  | 'sctp'
  | 'tcp'
  | 'udp'
  | 'icmp'
  | 'igmp'
  | 'igrp'
  | 'pim'
  | 'vrrp'
  | 'carp'
  | 'radio'
  | 'ip6'
  | 'icmp6'
  | 'ah'
  | 'esp'
  | 'atalk'
  | 'aarp'
  | 'decnet'
  | 'lat'
  | 'sca'
  | 'moprc'
  | 'mopdl'
  | 'iso'
  | 'esis'
  | 'isis'
  | 'l1'
  | 'l2'
  | 'iih'
  | 'lsp'
  | 'snp'
  | 'csnp'
  | 'psnp'
  | 'clnp'
  | 'stp'
  | 'ipx'
  | 'netbeui'
  | 'host'
  | 'net'
  | 'mask'
  | 'port'
  | 'portrange'
  | 'proto'
  | 'protochain'
  | 'gateway'
  | 'type'
  | 'subtype'
  | 'dir'
  | 'addr1'
  | 'addr2'
  | 'addr3'
  | 'addr4'
  | 'ra'
  | 'ta'
  | 'less'
  | 'greater'
  | 'byte'
  | 'broadcast'
  | 'multicast'
  | 'and'
  | 'or'
  | 'not'
  | 'len'
  | 'inbound'
  | 'outbound'
  | 'ifindex'
  | 'vlan'
  | 'mpls'
  | 'pppoed'
  | 'pppoes'
  | 'geneve'
  | 'lane'
  | 'llc'
  | 'metac'
  | 'bcc'
  | 'oam'
  | 'oamf4'
  | 'oamf4ec'
  | 'oamf4sc'
  | 'sc'
  | 'ilmic'
  | 'vpi'
  | 'vci'
  | 'connectmsg'
  | 'metaconnect'
  | 'on'
  | 'rset'
  | 'rnr'
  | 'srnr'
  | 'reason'
  | 'action'
  | 'fisu'
  | 'lssu'
  | 'msu'
  | 'hfisu'
  | 'hlssu'
  | 'hmsu'
  | 'sio'
  | 'opc'
  | 'dpc'
  | 'sls'
  | 'hsio'
  | 'hopc'
  | 'hdpc'
  | 'hsls';

/** Names the scanner turns straight into numbers (ICMP types, TCP flag bits, header field offsets). */
const NAMED_NUMBERS: ReadonlyMap<string, number> = new Map([
  ['icmptype', 0],
  ['icmpcode', 1],
  ['icmp-echoreply', 0],
  ['icmp-unreach', 3],
  ['icmp-sourcequench', 4],
  ['icmp-redirect', 5],
  ['icmp-echo', 8],
  ['icmp-routeradvert', 9],
  ['icmp-routersolicit', 10],
  ['icmp-timxceed', 11],
  ['icmp-paramprob', 12],
  ['icmp-tstamp', 13],
  ['icmp-tstampreply', 14],
  ['icmp-ireq', 15],
  ['icmp-ireqreply', 16],
  ['icmp-maskreq', 17],
  ['icmp-maskreply', 18],
  ['icmp6type', 0],
  ['icmp6code', 1],
  ['icmp6-destinationunreach', 1],
  ['icmp6-packettoobig', 2],
  ['icmp6-timeexceeded', 3],
  ['icmp6-parameterproblem', 4],
  ['icmp6-echo', 128],
  ['icmp6-echoreply', 129],
  ['icmp6-multicastlistenerquery', 130],
  ['icmp6-multicastlistenerreportv1', 131],
  ['icmp6-multicastlistenerdone', 132],
  ['icmp6-routersolicit', 133],
  ['icmp6-routeradvert', 134],
  ['icmp6-neighborsolicit', 135],
  ['icmp6-neighboradvert', 136],
  ['icmp6-redirect', 137],
  ['icmp6-routerrenum', 138],
  ['icmp6-nodeinformationquery', 139],
  ['icmp6-nodeinformationresponse', 140],
  ['icmp6-ineighbordiscoverysolicit', 141],
  ['icmp6-ineighbordiscoveryadvert', 142],
  ['icmp6-multicastlistenerreportv2', 143],
  ['icmp6-homeagentdiscoveryrequest', 144],
  ['icmp6-homeagentdiscoveryreply', 145],
  ['icmp6-mobileprefixsolicit', 146],
  ['icmp6-mobileprefixadvert', 147],
  ['icmp6-certpathsolicit', 148],
  ['icmp6-certpathadvert', 149],
  ['icmp6-multicastrouteradvert', 151],
  ['icmp6-multicastroutersolicit', 152],
  ['icmp6-multicastrouterterm', 153],
  ['tcpflags', 13],
  ['tcp-fin', 0x01],
  ['tcp-syn', 0x02],
  ['tcp-rst', 0x04],
  ['tcp-push', 0x08],
  ['tcp-ack', 0x10],
  ['tcp-urg', 0x20],
  ['tcp-ece', 0x40],
  ['tcp-cwr', 0x80],
]);

/** Punctuation and operators; `&&`, `||` and `not` become `and`, `or` and `not` keywords instead. */
export type Punct =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | ':'
  | '['
  | ']'
  | '!'
  | '<'
  | '>'
  | '('
  | ')'
  | '&'
  | '|'
  | '^'
  | '='
  | '>='
  | '<='
  | '!='
  | '<<'
  | '>>';

/** One token with its position (character offset) in the filter text. */
export type Token =
  | { readonly kind: 'keyword'; readonly keyword: Keyword; readonly text: string; readonly at: number }
  | { readonly kind: 'punct'; readonly punct: Punct; readonly text: string; readonly at: number }
  /** A number: decimal, `0x` hex, `0` octal, or a named constant such as `tcp-syn`. */
  | { readonly kind: 'num'; readonly value: number; readonly text: string; readonly at: number }
  /** A dotted IPv4 address or prefix of one (`10.1`, `10.1.2.3`), still text: its meaning depends on context. */
  | { readonly kind: 'hid'; readonly text: string; readonly at: number }
  | { readonly kind: 'hid6'; readonly text: string; readonly at: number }
  /** A MAC address in one of libpcap's four spellings. */
  | { readonly kind: 'eid'; readonly text: string; readonly at: number }
  /** An ARCnet address (`$1f`). */
  | { readonly kind: 'aid'; readonly text: string; readonly at: number }
  /** A name (host, port, protocol) or a backslash-escaped keyword; `name` is without the backslash. */
  | { readonly kind: 'id'; readonly name: string; readonly text: string; readonly at: number }
  /** A lexical error; `message` is what libpcap reports, or undefined for a plain syntax error. */
  | {
      readonly kind: 'error';
      readonly message: string | undefined;
      readonly text: string;
      readonly at: number;
    }
  | { readonly kind: 'eof'; readonly text: ''; readonly at: number };

const ONE_CHAR_PUNCT = '+-*/%:[]!<>()&|^=';
const TWO_CHAR_PUNCT: ReadonlyMap<string, Punct> = new Map<string, Punct>([
  ['>=', '>='],
  ['<=', '<='],
  ['!=', '!='],
  ['==', '='],
  ['<<', '<<'],
  ['>>', '>>'],
]);

const AID_RE = /\$[0-9A-Fa-f][0-9A-Fa-f]?/y;
const MAC_RES: readonly RegExp[] = [
  /[0-9A-Fa-f]{1,2}(?::[0-9A-Fa-f]{1,2}){5}/y,
  /[0-9A-Fa-f]{1,2}(?:-[0-9A-Fa-f]{1,2}){5}/y,
  /[0-9A-Fa-f]{1,2}(?:\.[0-9A-Fa-f]{1,2}){5}/y,
  /[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}/y,
  /[0-9A-Fa-f]{12}/y,
];
const NUM_RE = /0[xX][0-9A-Fa-f]+|[0-9]+/y;
const NUM_PART = '(?:0[xX][0-9A-Fa-f]+|[0-9]+)';
const HID_RE = new RegExp(`${NUM_PART}(?:\\.${NUM_PART}){1,3}`, 'y');
const V6_CANDIDATE_RE = /[0-9A-Fa-f:]*(?:\.(?:0[xX][0-9A-Fa-f]+|[0-9]+)){0,3}/y;
const BOGUS_MAC_RE = /[0-9A-Fa-f]{1,2}:+(?:[0-9A-Fa-f]{1,2}:+)+/y;
const ID_RE = /[A-Za-z0-9](?:[-_.A-Za-z0-9]*[.A-Za-z0-9])?/y;
const ESCAPED_ID_RE = /\\[^ !()\n\t]+/y;
const WHITESPACE = ' \r\n\t';

/** Tokenizes a whole filter expression; never throws. The last token is always `eof`. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    if (WHITESPACE.includes(text[at]!)) {
      at++;
      continue;
    }
    const token = longestMatch(text, at);
    tokens.push(token);
    at += Math.max(token.text.length, 1);
  }
  tokens.push({ kind: 'eof', text: '', at: text.length });
  return tokens;
}

/** The token flex would pick at `at`: the longest match, ties going to the rule that comes first. */
function longestMatch(text: string, at: number): Token {
  let best: Token | undefined;
  const offer = (candidate: Token | undefined): void => {
    if (candidate !== undefined && (best === undefined || candidate.text.length > best.text.length)) {
      best = candidate;
    }
  };
  // Rules in scanner.l order; `offer` keeps the first of equally long matches.
  const word = matchAt(ID_RE, text, at);
  if (word !== undefined) {
    const keyword = KEYWORDS.get(word);
    if (keyword !== undefined) offer({ kind: 'keyword', keyword, text: word, at });
  }
  const two = text.slice(at, at + 2);
  if (two === '&&') offer({ kind: 'keyword', keyword: 'and', text: two, at });
  if (two === '||') offer({ kind: 'keyword', keyword: 'or', text: two, at });
  if (ONE_CHAR_PUNCT.includes(text[at]!))
    offer({ kind: 'punct', punct: text[at] as Punct, text: text[at]!, at });
  const twoPunct = TWO_CHAR_PUNCT.get(two);
  if (twoPunct !== undefined) offer({ kind: 'punct', punct: twoPunct, text: two, at });
  const aid = matchAt(AID_RE, text, at);
  if (aid !== undefined) offer({ kind: 'aid', text: aid, at });
  for (const re of MAC_RES) {
    const mac = matchAt(re, text, at);
    if (mac !== undefined) offer({ kind: 'eid', text: mac, at });
  }
  const num = matchAt(NUM_RE, text, at);
  if (num !== undefined) offer(numberToken(num, at));
  const hid = matchAt(HID_RE, text, at);
  if (hid !== undefined) offer({ kind: 'hid', text: hid, at });
  const v6 = matchIpv6(text, at);
  if (v6 !== undefined) {
    // libpcap's scanner hands the match to getaddrinfo(), which is stricter than the pattern.
    offer(
      ipv6Words(v6) === undefined
        ? { kind: 'error', message: `bogus IPv6 address ${v6}`, text: v6, at }
        : { kind: 'hid6', text: v6, at },
    );
  }
  const bogus = matchAt(BOGUS_MAC_RE, text, at);
  if (bogus !== undefined)
    offer({ kind: 'error', message: `bogus ethernet address ${bogus}`, text: bogus, at });
  if (word !== undefined) {
    const value = NAMED_NUMBERS.get(word);
    if (value !== undefined) offer({ kind: 'num', value, text: word, at });
    offer({ kind: 'id', name: word, text: word, at });
  }
  const escaped = matchAt(ESCAPED_ID_RE, text, at);
  if (escaped !== undefined) offer({ kind: 'id', name: escaped.slice(1), text: escaped, at });
  offer({ kind: 'error', message: undefined, text: text[at]!, at });
  return best!;
}

function matchAt(re: RegExp, text: string, at: number): string | undefined {
  re.lastIndex = at;
  const match = re.exec(text);
  return match === null || match[0].length === 0 ? undefined : match[0];
}

/** A number token as libpcap's `stou` reads it: 0x hex, leading-0 octal, else decimal; 32 bits at most. */
function numberToken(text: string, at: number): Token {
  let value: number;
  if (/^0[xX]/.test(text)) {
    value = Number.parseInt(text.slice(2), 16);
  } else if (text.length > 1 && text[0] === '0') {
    if (/[89]/.test(text)) {
      return { kind: 'error', message: `number ${text} contains non-octal digit`, text, at };
    }
    value = Number.parseInt(text.slice(1), 8);
  } else {
    value = Number.parseInt(text, 10);
  }
  if (!(value <= 0xffff_ffff))
    return { kind: 'error', message: `number ${text} overflows 32 bits`, text, at };
  return { kind: 'num', value, text, at };
}

/** The longest prefix at `at` that is an IPv6 address in one of scanner.l's shapes, if any. */
function matchIpv6(text: string, at: number): string | undefined {
  const candidate = matchAt(V6_CANDIDATE_RE, text, at);
  if (candidate === undefined || !candidate.includes(':')) return undefined;
  for (let length = candidate.length; length >= 2; length--) {
    const prefix = candidate.slice(0, length);
    if (isIpv6Shape(prefix)) return prefix;
  }
  return undefined;
}

/** True for 8 groups, or fewer around one `::`, of 1-4 hex digits, optionally ending in a dotted quad. */
function isIpv6Shape(text: string): boolean {
  let groupsText = text;
  let groupBudget = 8;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!new RegExp(`^${NUM_PART}(?:\\.${NUM_PART}){3}$`).test(tail)) return false;
    groupsText = text.slice(0, lastColon + 1);
    groupBudget = 6;
    // "a:b:c:d:e:f:" must keep its last colon as a separator before the quad: drop it unless it is part of "::".
    if (!groupsText.endsWith('::')) groupsText = groupsText.slice(0, -1);
  }
  const halves = groupsText.split('::');
  if (halves.length > 2) return false;
  const group = /^[0-9A-Fa-f]{1,4}$/;
  const count = (half: string): number | undefined => {
    if (half === '') return 0;
    const parts = half.split(':');
    return parts.every((part) => group.test(part)) ? parts.length : undefined;
  };
  if (halves.length === 1) {
    const groups = count(halves[0]!);
    return groups === groupBudget;
  }
  const left = count(halves[0]!);
  const right = count(halves[1]!);
  if (left === undefined || right === undefined) return false;
  return left + right <= groupBudget - 1;
}

/** An IPv6 address as four 32-bit words (most significant first), or undefined when inet_pton would refuse it. */
export function ipv6Words(text: string): number[] | undefined {
  let groupsText = text;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const quadText = text.slice(lastColon + 1);
  if (quadText.includes('.')) {
    const octets = quadText.split('.');
    if (
      octets.length !== 4 ||
      !octets.every((octet) => /^(0|[1-9][0-9]{0,2})$/.test(octet) && Number(octet) <= 255)
    ) {
      return undefined;
    }
    const [a, b, c, d] = octets.map(Number) as [number, number, number, number];
    tail.push(a * 256 + b, c * 256 + d);
    groupsText = text.slice(0, lastColon + 1);
    if (!groupsText.endsWith('::')) groupsText = groupsText.slice(0, -1);
  }
  const halves = groupsText.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const parts = half.split(':');
    if (!parts.every((part) => /^[0-9A-Fa-f]{1,4}$/.test(part))) return undefined;
    return parts.map((part) => Number.parseInt(part, 16));
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === undefined || rest === undefined) return undefined;
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return undefined;
  const all = [...head, ...Array<number>(8 - explicit).fill(0), ...rest, ...tail];
  return [0, 1, 2, 3].map((word) => (all[word * 2]! * 0x1_0000 + all[word * 2 + 1]!) >>> 0);
}
