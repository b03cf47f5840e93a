// Named stateful objects on packets, on the kernel and on packetlab: a counter two rules share, a quota and a limit
// named by rules (nft_objref), listed by `nft list ruleset`, `list counters`, `list quotas` and `reset counters`.
// Five pings, 0.2 s apart; every object and counter must match.

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { exec } from '../../src/tools/exec.ts';
import { RealNamespaces, requireNetns, run } from '../support/netns.ts';
import { requireTool, type SkippableTest } from '../support/tools.ts';
import { differential, outputOf } from './harness.ts';
import { twoHosts } from './topologies.ts';

const RULESET = `table ip objects {
  counter requests { comment "echo requests" }
  counter replies { packets 10 bytes 1000 }
  quota small { 200 bytes }
  limit slow { rate 1/second burst 2 packets }
  chain output {
    type filter hook output priority filter; policy accept;
    icmp type echo-request counter name "requests"
    icmp type echo-request quota name "small" counter
    icmp type echo-request limit name "slow" counter
    icmp type echo-request counter name requests
  }
  chain input {
    type filter hook input priority filter; policy accept;
    icmp type echo-reply counter name replies
  }
}
`;

describe('differential: named counters, quotas and limits on packets', () => {
  it('counts five pings the same on both sides', async (ctx) => {
    const scenario = twoHosts('nft-objects')
      .nft('a', RULESET)
      .ping('a', '10.0.0.2', { count: 5, interval: 0.2 })
      .observe('a', 'nft', 'list', 'ruleset')
      .observe('a', 'nft', 'list', 'quotas')
      .observe('a', 'nft', 'reset', 'counters')
      .observe('a', 'nft', 'list', 'counters')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const listing = outputOf(result.linux, 'a: nft list ruleset');
    // Both rules count every request on the one counter.
    expect(listing).toContain('counter requests {\n\t\tcomment "echo requests"\n\t\tpackets 10 bytes 840');
    expect(listing).toContain('counter replies {\n\t\tpackets 15 bytes 1420');
    expect(listing).toContain('quota small {\n\t\t200 bytes used 200 bytes');
    expect(listing).toContain('limit name "slow" counter packets 2 bytes 168');
    expect(outputOf(result.linux, 'a: nft list counters')).toContain('packets 0 bytes 0');
  });
});

const CT_COUNT = `table ip count {
  chain output {
    type filter hook output priority filter; policy accept;
    icmp type echo-request ct count 1 counter
    icmp type echo-request ct count over 1 counter
  }
}
`;

describe('differential: ct count (nft_connlimit) on packets', () => {
  it('counts the connections two ping runs make', async (ctx) => {
    const scenario = twoHosts('nft-ct-count')
      .nft('a', CT_COUNT)
      .ping('a', '10.0.0.2', { count: 2, interval: 0.2 })
      .ping('a', '10.0.0.2', { count: 3, interval: 0.2 })
      .observe('a', 'nft', 'list', 'ruleset')
      .build();
    const result = await differential(ctx, scenario);
    if (result === undefined) return;
    const listing = outputOf(result.linux, 'a: nft list ruleset');
    // The first run's echo id is one connection; the second run's makes two.
    expect(listing).toContain('ct count 1 counter packets 2 bytes 168');
    expect(listing).toContain('ct count over 1 counter packets 3 bytes 252');
  });
});

/** Object commands after LOAD, each through the real nft and packetlab's, in one script on the real side. */
const LOAD = `table ip t {
  counter c1 { packets 5 bytes 100 }
  counter c2 { comment "hi" }
  quota q1 { over 100 mbytes used 10 kbytes }
  quota q2 { 1000 bytes }
  limit l1 { rate 10/second burst 5 packets }
  limit l2 { rate over 1 mbytes/second burst 10 kbytes }
  limit l3 { rate 400/minute }
  set s { type ipv4_addr; }
  chain c {
    type filter hook input priority 0;
    counter name c1
    counter name "c2"
    quota name q1 drop
    limit name l1 accept
    ip saddr 1.2.3.4 counter name c1 limit name l3
  }
}
table inet x {
  quota qq { until 5 kbytes used 1 bytes; comment "zz" }
  limit lk { rate 5 kbytes/minute burst 2 kbytes ; comment "lim" }
}
table ip empty {
}
`;

const COMMANDS = [
  'list ruleset',
  '-a list ruleset',
  '-s list ruleset',
  'list counters',
  'list counter ip t c1',
  'list counters table ip t',
  '-a list counters',
  'list quotas',
  'list limits',
  'list quota ip t q1',
  'list limit inet x lk',
  'list counters inet',
  'list counters table ip nope',
  'list counter ip nope c',
  'list counter ip t nope',
  'reset counter ip t c1',
  'list counter ip t c1',
  'reset quotas table inet x',
  'reset quota ip t q1',
  'list quotas',
  '-s reset counters',
  'reset limits',
  'delete counter ip t c1',
  'delete counter ip t nope',
  'delete counter ip t handle 3',
  'delete limit ip t handle 99',
  'create counter ip t c1',
  'add counter ip t c1 { packets 9 bytes 9 }',
  'add counter ip t c0',
  'add counter ip t cx packets 1 bytes 2',
  'add counter ip t c1 c2',
  'add counter ip nope c',
  'add quota ip t qx',
  'add quota ip t qy 10 bytes',
  'add quota ip t q1 { 5 kbytes }',
  'add limit ip t ly rate 1/second',
  'add limit ip t lz { rate 0/second }',
  'add limit ip t l1 { rate 3/minute }',
  'add limit ip t lq { rate 10/second; comment "a"; }',
  'add counter ip t k { comment "a"; packets 1 bytes 2 }',
  'add rule ip t c counter name nope',
  'add rule ip t c quota name c1',
  'add rule ip t c counter name c1 counter name c2 drop',
  'delete quota ip t q2',
  'delete quota ip t q1',
  'list ruleset',
  '-j list ruleset',
  '-j list counters',
  '-j list quotas table inet x',
  '-j list limits',
];

const JSON_FORMS = `table ip j {
  chain c {
    type filter hook prerouting priority 0;
    rt ip nexthop 10.0.0.1
    rt classid 5
    socket transparent 1
    socket mark 0x1
    socket wildcard 0
    meta l4proto tcp tproxy to :8080
    tcp dport 80 tproxy to 10.0.0.1:8080
    tcp dport 80 tproxy ip to 10.0.0.1
  }
  chain p {
    type nat hook prerouting priority dstnat;
    dnat to ip saddr map { 10.0.0.1 : 10.0.0.2 }
    tcp dport 80 dnat to numgen inc mod 2 map { 0 : 10.0.0.1, 1 : 10.0.0.2 }
  }
}
`;

/** Loads `load` and runs `commands` through the real nft (one script) and packetlab's; asserts the same output. */
function compareCommands(ctx: SkippableTest, load: string, commands: readonly string[]): void {
  if (!requireNetns(ctx) || !requireTool('nft', ctx)) return;
  const real = new RealNamespaces();
  let linux: string[];
  try {
    real.add('objects');
    const file = join(tmpdir(), `${real.prefix}-objects.nft`);
    writeFileSync(file, load);
    const lines = ['#!/bin/sh', `nft -f ${file}`];
    for (const command of commands) lines.push(`nft ${quoteWords(command)} 2>&1; echo "@@rc=$?"`);
    const script = join(tmpdir(), `${real.prefix}-objects.sh`);
    writeFileSync(script, `${lines.join('\n')}\n`);
    const result = run('ip', ['netns', 'exec', real.name('objects'), 'sh', script]);
    linux = [...result.stdout.matchAll(/([\s\S]*?)@@rc=(\d+)\n/g)].map((m) => `${m[1]}@@rc=${m[2]}`);
  } finally {
    real.cleanup();
  }
  const sim = new Simulation({ seed: 'nft-objects' });
  sim.files.set('/tmp/objects.nft', new TextEncoder().encode(load));
  const ns = sim.addNamespace('objects');
  expect(exec(ns, 'nft -f /tmp/objects.nft').exitCode).toBe(0);
  const ours = commands.map((command) => {
    const result = exec(ns, `nft ${quoteWords(command)}`);
    return `${result.stdout}${result.stderr}@@rc=${result.exitCode}`;
  });
  for (let i = 0; i < commands.length; i++) expect(ours[i], commands[i]).toBe(linux[i]);
}

describe('differential: nft object commands', () => {
  it('lists, resets, adds and refuses named objects as nft 1.0.6 does', (ctx) => {
    compareCommands(ctx, LOAD, COMMANDS);
  });

  it('prints rt, socket, tproxy and NAT maps in JSON as libnftables does', (ctx) => {
    compareCommands(ctx, JSON_FORMS, ['-j list ruleset']);
  });
});

/** The command's words as a shell line: flags and keywords bare, the rest single-quoted. */
function quoteWords(command: string): string {
  return `'${command.replaceAll("'", "'\\''")}'`.replace(/^'(-[a-z]) /, "$1 '");
}
