// iptables' -w/-W as iptables 1.8.9 (nf_tables) answers them on this machine: -W is ignored with a notice on stderr,
// printed before anything else; -W without -w is a parameter problem (exit 2); iptables-restore takes both silently.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

const NOTICE = 'Ignoring deprecated --wait-interval option.\n';

describe('iptables -w and -W (the wait flags kube-proxy passes every call)', () => {
  const ns = new Simulation({ seed: 'wait-flags' }).addNamespace('node');

  it('-w 5 alone is silent', () => {
    expect(exec(ns, 'iptables -w 5 -N Y -t nat')).toMatchObject({ stdout: '', stderr: '', exitCode: 0 });
  });

  it('-W prints the notice and the command still runs', () => {
    expect(exec(ns, 'iptables -w 5 -W 100000 -N X -t nat')).toMatchObject({ stderr: NOTICE, exitCode: 0 });
    expect(exec(ns, 'iptables -w 5 -W 100000 -N X -t nat')).toMatchObject({
      stderr: `${NOTICE}iptables: Chain already exists.\n`,
      exitCode: 1,
    });
  });

  it('-W without -w is refused', () => {
    expect(exec(ns, 'iptables -W 100000 -N Z -t nat')).toMatchObject({
      stderr: `${NOTICE}iptables v1.8.9 (nf_tables): --wait-interval only makes sense with --wait\n\nTry \`iptables -h' or 'iptables --help' for more information.\n`,
      exitCode: 2,
    });
    expect(exec(ns, 'iptables -S -t nat').stdout).not.toContain('-N Z');
  });

  it('iptables-restore takes -w 5 -W 100000 silently', () => {
    const out = exec(ns, 'iptables-restore -w 5 -W 100000 --noflush --counters', {
      stdin: '*nat\n:A - [0:0]\nCOMMIT\n',
    });
    expect(out).toMatchObject({ stdout: '', stderr: '', exitCode: 0 });
  });
});
