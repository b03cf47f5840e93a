// `define`, `$variables` and `include` as nft 1.0.6 read them (outputs and errors pinned from the real tool on this
// machine): values substituted, set variables flattened into the sets they are elements of, includes from the
// simulation's files (absolute paths, `-I` directories, globs), and nft's errors for each misuse.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

const DIR = '/srv/nft';

const BASE = `define HOST = 10.0.0.1
define PORTS = { 22, 80 }
define NETS = { $HOST, 192.168.0.0/16 }
define IF = "eth0"
table ip t {
  chain c {
    ip saddr $HOST tcp dport $PORTS accept
    ip saddr $NETS drop
    iifname $IF accept
    ip daddr { $HOST, 1.1.1.1 } accept
    tcp dport { $PORTS, 443 } drop
  }
}
`;

const BASE_LISTED = `table ip t {
\tchain c {
\t\tip saddr 10.0.0.1 tcp dport { 22, 80 } accept
\t\tip saddr { 10.0.0.1, 192.168.0.0/16 } drop
\t\tiifname "eth0" accept
\t\tip daddr { 1.1.1.1, 10.0.0.1 } accept
\t\ttcp dport { 22, 80, 443 } drop
`;

function node(files: Record<string, string>) {
  const sim = new Simulation({ seed: 'nft-define' });
  for (const [path, text] of Object.entries(files)) sim.files.set(path, new TextEncoder().encode(text));
  return sim.addNamespace('n');
}

describe('nft define and include', () => {
  it('substitutes variables, flattening a set variable written as an element of a set', () => {
    const ns = node({ [`${DIR}/base.nft`]: BASE });
    expect(exec(ns, `nft -f ${DIR}/base.nft`)).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(exec(ns, 'nft list ruleset').stdout).toBe(`${BASE_LISTED}\t}\n}\n`);
  });

  it('defines on the command line, and refuses an unknown identifier at its name', () => {
    const ns = node({});
    const script = "nft 'define X = 1.2.3.4; add table ip u; add chain ip u c; add rule ip u c ip saddr $X'";
    expect(exec(ns, script).exitCode).toBe(0);
    expect(exec(ns, "nft add rule ip u c ip saddr '$Y'").stderr).toBe(
      "Error: unknown identifier 'Y'\nadd rule ip u c ip saddr $Y\n                          ^\n",
    );
    expect(exec(ns, 'nft list ruleset').stdout).toContain('\t\tip saddr 1.2.3.4\n');
  });

  it('includes by absolute path or from -I, and shares the defines of the file included', () => {
    const main = 'include "base.nft"\nadd rule ip t c ip saddr $HOST counter\n';
    const ns = node({ [`${DIR}/base.nft`]: BASE, [`${DIR}/main.nft`]: main });
    // A relative name is searched in the -I directories and /etc, not beside the file.
    expect(exec(ns, `nft -f ${DIR}/main.nft`).stderr).toBe(
      `${DIR}/main.nft:1:1-19: Error: File not found: base.nft\ninclude "base.nft"\n^^^^^^^^^^^^^^^^^^^\n`,
    );
    expect(exec(ns, `nft -I ${DIR} -f ${DIR}/main.nft`).exitCode).toBe(0);
    expect(exec(ns, 'nft list ruleset').stdout).toBe(
      `${BASE_LISTED}\t\tip saddr 10.0.0.1 counter packets 0 bytes 0\n\t}\n}\n`,
    );
  });

  it('a glob includes its matches in order, and none is no error', () => {
    const ns = node({
      [`${DIR}/glob.nft`]: `include "${DIR}/part-*.inc"\ninclude "${DIR}/*.none"\n`,
      [`${DIR}/part-2.inc`]: 'add chain ip t c2\n',
      [`${DIR}/part-1.inc`]: 'add table ip t\n',
    });
    expect(exec(ns, `nft -f ${DIR}/glob.nft`).exitCode).toBe(0);
    expect(exec(ns, 'nft list ruleset').stdout).toBe('table ip t {\n\tchain c2 {\n\t}\n}\n');
  });

  it('names the include an error in an included file came through', () => {
    const ns = node({
      [`${DIR}/outer.nft`]: `include "${DIR}/bad.inc"\n`,
      [`${DIR}/bad.inc`]: 'add table ip t\nadd chain ip t c\nadd rule ip t c ip saddr 1.2.3.4 frob\n',
    });
    const result = exec(ns, `nft -f ${DIR}/outer.nft`);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([
      `In file included from ${DIR}/outer.nft:1:1-27:`,
      `${DIR}/bad.inc:3:38-38: Error: syntax error, unexpected newline`,
    ]);
  });

  it('refuses a redefinition, an unknown identifier inside a define, and a variable as a table name', () => {
    const ns = node({
      '/e.nft': 'define X = 1\ndefine X = 2\n',
      '/j.nft': 'define A = { 1.1.1.1, $B }\n',
      '/i.nft': 'define T = t\nadd table ip $T\n',
      '/m.nft': 'define X = 1.1.1.1\nredefine X = 2\nundefine X\nundefine Y\n',
    });
    expect(exec(ns, 'nft -f /e.nft').stderr).toBe(
      "/e.nft:2:8-8: Error: redefinition of symbol 'X'\ndefine X = 2\n       ^\n",
    );
    expect(exec(ns, 'nft -f /j.nft').stderr).toBe(
      "/j.nft:1:24-24: Error: unknown identifier 'B'\ndefine A = { 1.1.1.1, $B }\n                       ^\n",
    );
    expect(exec(ns, 'nft -f /i.nft').stderr).toBe(
      "/i.nft:2:14-14: Error: syntax error, unexpected '$', expecting string\nadd table ip $T\n             ^\n",
    );
    expect(exec(ns, 'nft -f /m.nft').exitCode).toBe(0);
  });
});
