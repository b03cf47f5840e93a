// kube-proxy's own way of comparing rulesets (pkg/proxy/iptables/proxier_test.go: sortIPTablesRules over
// pkg/util/iptables/testing/parse.go ParseIPTablesDump and IPTablesDump.String), so a golden dump from its tests and
// our rendered text are compared after the same sort: tables by name, chains KUBE-NODEPORTS, KUBE-SERVICES, then
// KUBE-* alphabetically, then the others; the rules of KUBE-NODEPORTS and KUBE-SERVICES stably by the service name in
// their comment (the nat "must be the last rule" rule kept last); each chain's rules in chain order.

interface DumpRule {
  readonly raw: string;
  readonly comment: string | undefined;
}

interface DumpChain {
  readonly name: string;
  readonly rules: DumpRule[];
  deleted: boolean;
}

interface DumpTable {
  readonly name: string;
  readonly chains: DumpChain[];
}

/** The value of `--comment`, unquoted, as iptablestest.ParseRule finds it. */
function commentOf(rule: string): string | undefined {
  const at = rule.indexOf('--comment ');
  if (at < 0) return undefined;
  const rest = rule.slice(at + '--comment '.length);
  if (rest.startsWith('"')) return rest.slice(1, rest.indexOf('"', 1));
  const space = rest.indexOf(' ');
  return space < 0 ? rest : rest.slice(0, space);
}

/** ParseIPTablesDump, for the lines kube-proxy writes. */
export function parseDump(text: string): DumpTable[] {
  const tables: DumpTable[] = [];
  let table: DumpTable | undefined;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('*')) {
      table = { name: line.slice(1), chains: [] };
      tables.push(table);
    } else if (line === 'COMMIT') {
      table = undefined;
    } else if (table === undefined) {
      throw new Error(`line outside a table: ${line}`);
    } else if (line.startsWith(':')) {
      table.chains.push({ name: line.slice(1).split(' ')[0]!, rules: [], deleted: false });
    } else if (line.startsWith('-A ')) {
      const name = line.split(' ')[1]!;
      const chain = table.chains.find((c) => c.name === name);
      if (chain === undefined) throw new Error(`rule for an undeclared chain: ${line}`);
      chain.rules.push({ raw: line, comment: commentOf(line) });
    } else if (line.startsWith('-X ')) {
      const chain = table.chains.find((c) => c.name === line.slice(3));
      if (chain === undefined) throw new Error(`delete of an undeclared chain: ${line}`);
      chain.deleted = true;
    } else {
      throw new Error(`cannot parse: ${line}`);
    }
  }
  return tables;
}

function serviceNameOf(comment: string): string {
  const i = comment.search(/[ :]/);
  return i < 0 ? comment : comment.slice(0, i);
}

/** orderByCommentServiceName as a comparator (rules without a comment compare equal). */
function byServiceName(a: DumpRule, b: DumpRule): number {
  if (a.comment === undefined || b.comment === undefined) return 0;
  const x = serviceNameOf(a.comment);
  const y = serviceNameOf(b.comment);
  return x < y ? -1 : x > y ? 1 : 0;
}

function chainRank(name: string): number {
  if (name === 'KUBE-NODEPORTS') return 0;
  if (name === 'KUBE-SERVICES') return 1;
  return name.startsWith('KUBE-') ? 2 : 3;
}

/** sortIPTablesRules, then IPTablesDump.String(). */
export function sortIPTablesRules(text: string): string {
  const tables = parseDump(text).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const table of tables) {
    table.chains.sort(
      (a, b) => chainRank(a.name) - chainRank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    for (const chain of table.chains) {
      if (chain.name === 'KUBE-NODEPORTS') chain.rules.sort(byServiceName);
      if (chain.name === 'KUBE-SERVICES' && table.name === 'filter') chain.rules.sort(byServiceName);
      if (chain.name === 'KUBE-SERVICES' && table.name === 'nat') {
        const last = (r: DumpRule) => r.comment?.includes('must be the last rule') === true;
        chain.rules.sort((a, b) => (last(a) ? 1 : 0) - (last(b) ? 1 : 0) || byServiceName(a, b));
      }
    }
  }
  let out = '';
  for (const table of tables) {
    out += `*${table.name}\n`;
    for (const chain of table.chains) out += `:${chain.name} - [0:0]\n`;
    for (const chain of table.chains) for (const rule of chain.rules) out += `${rule.raw}\n`;
    for (const chain of table.chains) if (chain.deleted) out += `-X ${chain.name}\n`;
    out += 'COMMIT\n';
  }
  return out;
}

/** Strips the common leading tabs of a Go raw-string dump (dedent.Dedent) and a leading newline. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[\t ]*/.exec(l)![0].length);
  const cut = Math.min(...indents);
  return lines.map((l) => l.slice(cut)).join('\n');
}
