// The `nft` command through the façade: the incident's commands as the seed types them (shell quoting
// included), `-f` from the simulation's files, `-c`, `-a`, `-v`, listings and nft's own command-line errors.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, spawn } from '../../../src/tools/exec.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): string => readFileSync(join(here, 'fixtures', name), 'utf8');

function node() {
  const sim = new Simulation({ seed: 'nft-tool' });
  return { sim, ns: sim.addNamespace('node') };
}

describe('nft command', () => {
  it('runs the incident commands from the seed', () => {
    const { ns } = node();
    expect(exec(ns, 'nft add table inet debug')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(
      exec(ns, "nft add chain inet debug trace '{ type filter hook prerouting priority -301; }'").exitCode,
    ).toBe(0);
    expect(exec(ns, 'nft add rule inet debug trace tcp dport 30080 meta nftrace set 1').exitCode).toBe(0);
    expect(exec(ns, 'nft list ruleset').stdout).toBe(fixture('incident.list'));
    expect(exec(ns, 'nft list table inet debug').stdout).toBe(fixture('incident.list'));
  });

  it('loads files from the simulation with -f, and checks them with -c', () => {
    const { sim, ns } = node();
    sim.files.set('kube-proxy.nft', new TextEncoder().encode(fixture('kube-proxy.nft')));
    expect(exec(ns, 'nft -c -f kube-proxy.nft')).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(exec(ns, 'nft list ruleset').stdout).toBe('');
    expect(exec(ns, 'nft -f kube-proxy.nft').exitCode).toBe(0);
    expect(exec(ns, 'nft list ruleset').stdout).toBe(fixture('kube-proxy.list'));
    expect(exec(ns, 'nft -f missing.nft')).toEqual({
      stdout: '',
      stderr: 'internal:0:0-0: Error: Could not open file "missing.nft": No such file or directory\n\n\n',
      exitCode: 1,
    });
  });

  it('reads standard input with -f -, naming it /dev/stdin in errors', () => {
    const { ns } = node();
    expect(exec(ns, 'nft -f -', { stdin: 'add table ip t\n' }).exitCode).toBe(0);
    expect(exec(ns, 'nft -f -', { stdin: 'add rule ip t nope accept\n' }).stderr).toBe(
      '/dev/stdin:1:15-18: Error: Could not process rule: No such file or directory\n' +
        'add rule ip t nope accept\n' +
        '              ^^^^\n',
    );
  });

  it('shows handles with -a where nft puts them', () => {
    const { ns } = node();
    exec(ns, 'nft add table ip t');
    exec(ns, "nft 'add chain ip t c { type filter hook input priority 0; }'");
    exec(ns, 'nft add rule ip t c tcp dport 22 accept');
    const lines = exec(ns, 'nft -a list ruleset').stdout.split('\n');
    expect(lines[0]).toMatch(/^table ip t \{ # handle \d+$/);
    expect(lines[1]).toMatch(/^\tchain c \{ # handle \d+$/);
    expect(lines[2]).toBe('\t\ttype filter hook input priority filter; policy accept;');
    const handle = /# handle (\d+)$/.exec(lines[3]!)![1];
    expect(lines[3]).toBe(`\t\ttcp dport 22 accept # handle ${handle}`);
    expect(exec(ns, `nft delete rule ip t c handle ${handle}`).exitCode).toBe(0);
    expect(exec(ns, 'nft list chain ip t c').stdout).toBe(
      'table ip t {\n\tchain c {\n\t\ttype filter hook input priority filter; policy accept;\n\t}\n}\n',
    );
  });

  it('answers options and mistakes as nft does', () => {
    const { ns } = node();
    expect(exec(ns, 'nft -v').stdout).toBe('nftables v1.0.6 (Lester Gooch #5)\n');
    expect(exec(ns, 'nft')).toEqual({ stdout: '', stderr: 'nft: no command specified\n', exitCode: 1 });
    expect(exec(ns, 'nft -x')).toEqual({ stdout: '', stderr: "nft: invalid option -- 'x'\n", exitCode: 1 });
    expect(exec(ns, 'nft list ruleset bogus')).toEqual({
      stdout: '',
      stderr:
        'Error: syntax error, unexpected string, expecting end of file or newline or semicolon\n' +
        'list ruleset bogus\n             ^^^^^\n',
      exitCode: 1,
    });
    // The shell strips the quotes, so nft sees a comment of two words: its own error.
    exec(ns, 'nft add table ip filter');
    exec(ns, 'nft add chain ip filter input');
    expect(exec(ns, 'nft add rule ip filter input iifname eth0 accept comment "hello world"').stderr).toBe(
      'Error: syntax error, unexpected string, expecting end of file or newline or semicolon\n' +
        'add rule ip filter input iifname eth0 accept comment hello world\n' +
        '                                                           ^^^^^\n',
    );
  });

  it('runs other commands at once when spawned', () => {
    const { ns } = node();
    const result = spawn(ns, 'nft add table ip t');
    expect(result).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(exec(ns, 'nft list tables').stdout).toBe('table ip t\n');
  });
});
