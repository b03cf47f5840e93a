// iptables-translate 1.8.9 against packetlab's for the rules packetlab translates (tcp/udp ports, comment, the
// issue-12 extensions, verdicts and jumps; -N, -X, -F; commands it does not translate; rules with an extension that
// has no translation, printed as `nft # ...`). The real tool needs no namespace: one shell script runs every line.

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { run } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';

const LINES = [
  '-A INPUT -p tcp --dport 22 -j ACCEPT',
  '-A INPUT -p tcp ! --sport 1:1024 --dport 80 -j DROP',
  '-A INPUT -p udp ! --dport 53 -j ACCEPT',
  '-A INPUT -p udp ! --sport 1:2 --dport 3 -j ACCEPT',
  '-A INPUT -m limit --limit 3/min -j ACCEPT',
  '-A INPUT -m limit --limit 3/min --limit-burst 7',
  '-A INPUT -m u32 --u32 0=1 -j DROP',
  "-A FORWARD -m comment --comment 'hi there' -j DROP",
  '-I INPUT -s 10.0.0.0/8 -j DROP',
  '-N FOO',
  '-X FOO',
  '-F',
  '-t nat -F',
  '-A INPUT -j FOO',
  '-A INPUT -g FOO',
  '-A INPUT -m time --timestart 09:00 -j ACCEPT',
  '-A INPUT -m time --weekdays Mon',
  '-A INPUT -m time',
  '-A INPUT -m time --monthdays 3',
  '-P INPUT DROP',
  '-R INPUT 1 -j ACCEPT',
  '-D INPUT 1',
  '-A INPUT -p sctp --dport 80 -j ACCEPT',
  '-A INPUT -p sctp -m sctp --chunk-types all INIT -j DROP',
  '-A INPUT -p sctp -m sctp --chunk-types any INIT -j DROP',
  '-A INPUT -m hashlimit --hashlimit-above 5/s --hashlimit-mode srcip --hashlimit-name x -j DROP',
  '-A INPUT -m hashlimit --hashlimit-upto 5/s --hashlimit-name x',
  '-A INPUT -m helper --helper ftp -j ACCEPT',
  '-t raw -A PREROUTING -m rpfilter --invert -j DROP',
  '-t raw -A PREROUTING -m rpfilter --loose --validmark -j DROP',
  '-A INPUT -m string --algo bm --string x',
  '-A INPUT -m policy --dir in --pol none',
  '-A INPUT -m policy --dir out --pol none',
  '-A INPUT -p esp -m esp --espspi 5',
  '-A INPUT -p ah -m ah --ahspi 5:6',
  '-A INPUT -p tcp -m ecn --ecn-tcp-cwr',
  '-A INPUT -m tos --tos 0x10',
  '-A INPUT -j NFLOG --nflog-group 3 --nflog-prefix hi',
  '-A INPUT -j NFLOG --nflog-threshold 5 --nflog-prefix a --nflog-size 3 --nflog-group 2',
  '-A INPUT -j NFLOG',
  '-A INPUT -j NFQUEUE --queue-num 3 --queue-bypass',
  '-A INPUT -j NFQUEUE --queue-balance 1:3 --queue-cpu-fanout',
  '-t mangle -A POSTROUTING -p udp -j CHECKSUM --checksum-fill',
  '-t nat -A PREROUTING -j NETMAP --to 10.0.0.0/24',
  '-t mangle -A OUTPUT -j TOS --set-tos 0x10',
  '-t mangle -A OUTPUT -j TOS --and-tos 0x03',
  '-t mangle -A OUTPUT -j DSCP --set-dscp 10',
  '-t mangle -A OUTPUT -p tcp -j ECN --ecn-tcp-remove',
  '-A INPUT ! -s 10.0.0.1 ! -i eth+ -p udp --sport 53 -j DROP',
  '-A INPUT -p 47 -j ACCEPT',
  '-A INPUT ! -p udp -j ACCEPT',
  '-A INPUT -f -j DROP',
  '-A INPUT ! -f -p udp ! --dport 1:100 -j RETURN',
  '-A INPUT -m comment --comment x -m limit --limit 1/s -j ACCEPT',
  '-A OUTPUT -o eth0 -d 192.168.0.0/16 -p udp -m udp --sport 1000 --dport 2000 -j ACCEPT',
  '-A INPUT',
  '-A INPUT -j QUEUE',
  '-A INPUT --foo',
  '-A INPUT -o eth0',
  '-A INPUT -p tcp -m ecn --ecn-tcp-ece -m time --weekdays Sat,Sun -m policy --dir in --pol ipsec -j NFLOG --nflog-size 10',
  '-A INPUT -p udp -m string --algo kmp --hex-string "|00|" -m limit --limit 10/hour',
];

interface Outcome {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

function onRealTool(): Outcome[] {
  const dir = tmpdir();
  const script = join(dir, `packetlab-translate-${process.pid}.sh`);
  const out = join(dir, `packetlab-translate-${process.pid}.out`);
  const err = join(dir, `packetlab-translate-${process.pid}.err`);
  const lines = LINES.map(
    (line) =>
      `iptables-translate ${line} >${out} 2>${err}; rc=$?; echo "@@out"; cat ${out}; echo "@@err"; cat ${err}; echo "@@rc=$rc"`,
  );
  writeFileSync(script, `${lines.join('\n')}\nrm -f ${out} ${err}\n`);
  const { stdout } = run('sh', [script]);
  const outcomes: Outcome[] = [];
  const pattern = /@@out\n([\s\S]*?)@@err\n([\s\S]*?)@@rc=(\d+)\n/g;
  for (let match = pattern.exec(stdout); match !== null; match = pattern.exec(stdout))
    outcomes.push({ stdout: match[1]!, stderr: match[2]!, exitCode: Number(match[3]) });
  return outcomes;
}

describe('differential: iptables-translate', () => {
  it('prints the nft commands iptables-translate 1.8.9 prints', (ctx) => {
    if (!requireTool('iptables-translate', ctx)) return;
    const real = onRealTool();
    const ns = new Simulation({ seed: 'translate' }).addNamespace('t');
    const ours = LINES.map((line) => {
      const { stdout, stderr, exitCode } = exec(ns, `iptables-translate ${line}`);
      return { stdout, stderr, exitCode };
    });
    expect(real).toHaveLength(LINES.length);
    // `nft` with no newline then exit 1 for what is not translated; the rest is the command line.
    expect(ours).toEqual(real);
  });
});
