// getopt_long's reading of iptables' long options, as iptables 1.8.9 does it (expected values printed by the real
// iptables on this machine): an unambiguous abbreviation is the option (`--sour`, `--mar`, `--dp` once -p tcp loads
// tcp), an ambiguous one is unknown (`--s`, `--d`, `--de`, `--ma`), the message names the option as written, and
// `--` ends the options (the words after it are "unknown arguments"). And iptables-restore's tokenizer: a quote left
// open keeps the rest of the line with its newline (found by test/linux/shapes-mutations.test.ts).

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';

const TRY = "Try `iptables -h' or 'iptables --help' for more information.\n";

function namespace() {
  return new Simulation({ seed: 'long-options' }).addNamespace('n');
}

describe('iptables long options as getopt_long reads them', () => {
  it('unambiguous abbreviations are the option they abbreviate', () => {
    const ns = namespace();
    for (const line of [
      'iptables -A INPUT --sour 1.2.3.4',
      'iptables -A INPUT -m mark --mar 1',
      'iptables -A INPUT -p tcp --dp 80',
      'iptables -A INPUT -m tcp -p tcp --sp 1',
      'iptables -A INPUT -s 1.2.3.4 --',
    ])
      expect(exec(ns, line), line).toMatchObject({ exitCode: 0, stderr: '' });
    expect(exec(ns, 'iptables -S INPUT').stdout).toBe(
      '-P INPUT ACCEPT\n-A INPUT -s 1.2.3.4/32\n-A INPUT -m mark --mark 0x1\n-A INPUT -p tcp -m tcp --dport 80\n' +
        '-A INPUT -p tcp -m tcp --sport 1\n-A INPUT -s 1.2.3.4/32\n',
    );
  });

  it('ambiguous abbreviations are unknown; a missing argument is named as written', () => {
    const ns = namespace();
    const cases: [string, string][] = [
      ['iptables -A INPUT --s 1.2.3.4', 'unknown option "--s"'],
      ['iptables -A INPUT -p tcp --d 80', 'unknown option "--d"'],
      ['iptables -A INPUT --de 1.2.3.4', 'unknown option "--de"'],
      ['iptables -A INPUT -m mark --ma 1', 'unknown option "--ma"'],
      ['iptables -A INPUT -p tcp --dp', 'option "--dp" requires an argument'],
    ];
    for (const [line, message] of cases)
      expect(exec(ns, line), line).toMatchObject({
        exitCode: 2,
        stderr: `iptables v1.8.9 (nf_tables): ${message}\n${TRY}`,
      });
  });

  it('-- ends the options: the matches are checked first, then the words left are refused', () => {
    const ns = namespace();
    const unknown = `iptables v1.8.9 (nf_tables): unknown arguments found on commandline\n${TRY}`;
    const noComment = `iptables v1.8.9 (nf_tables): comment: option "--comment" must be specified\n\n${TRY}`;
    expect(exec(ns, 'iptables -A INPUT -m comment --comment x -- -j ACCEPT').stderr).toBe(unknown);
    expect(exec(ns, 'iptables -A INPUT -m comment --comment x -- foo').stderr).toBe(unknown);
    expect(exec(ns, 'iptables -A INPUT -m comment --').stderr).toBe(noComment);
    expect(exec(ns, 'iptables -A INPUT -m comment -- foo').stderr).toBe(noComment);
  });

  it('iptables-restore: a quote left open takes the rest of the line and its newline', () => {
    const ns = namespace();
    const input =
      '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -m comment --comment "ca\n-A INPUT -m comment --comment "\nCOMMIT\n';
    expect(exec(ns, 'iptables-restore', { stdin: input })).toMatchObject({ exitCode: 0, stderr: '' });
    expect(exec(ns, 'iptables-save -t filter').stdout).toContain(
      '-A INPUT -m comment --comment "ca\n"\n-A INPUT -m comment --comment "\n"\nCOMMIT\n',
    );
  });
});
