// glibc's `options single-request` and `single-request-reopen` against packetlab's resolver: `getent ahosts NAME` in
// a namespace whose resolv.conf sets the option, asking dns-peer.mjs (which prints each query with the sender's
// port) in another namespace. Without an option A and AAAA leave one port together; single-request sends them one
// after the other from one port; single-request-reopen sends AAAA from a new port once A is answered: the
// mitigation of the DNS insert race (scenarios/bug-dns-race.ts), compared as the pattern of ports.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResolvConf } from '../../src/app/dns/resolv-conf.ts';
import { lookupHost } from '../../src/app/dns/resolver.ts';
import { clusterDns } from '../../src/k8s/dns/cluster-dns.ts';
import { DNS_TYPE_A } from '../../src/wire/dns.ts';
import { must, port, service, storeOf } from '../k8s/services-fixture.ts';
import { RealNamespaces, requireNetns } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';
import { twoHosts } from '../support/two-hosts.ts';

const SERVICE = 'signalements.default.svc.cluster.local';
const OPTIONS = ['', 'single-request', 'single-request-reopen'] as const;
const resolvConf = (option: string) => `nameserver 10.0.0.2\n${option === '' ? '' : `options ${option}\n`}`;

/** `A name P0`, `AAAA name P1`...: the queries in order, ports renamed by first appearance. */
function portPattern(lines: readonly string[]): string[] {
  const names = new Map<string, string>();
  return lines.map((line) => {
    const [type, name, sender] = line.split(' ');
    if (!names.has(sender!)) names.set(sender!, `P${names.size}`);
    return `${type} ${name} ${names.get(sender!)}`;
  });
}

function packetlabQueries(option: string): string[] {
  const { a, b, sim } = twoHosts(`resolver-reopen-${option}`);
  const store = storeOf(sim);
  must(store.create(service('signalements', { clusterIP: '10.96.40.12', ports: [port(80, 8000)] })));
  clusterDns(b, store);
  const lookup = lookupHost(a, `${SERVICE}.`, parseResolvConf(resolvConf(option))!);
  sim.run(30e9);
  expect(lookup.result).toEqual({ ok: true, addresses: ['10.96.40.12'] });
  return lookup.sent.map((q) => `${q.type === DNS_TYPE_A ? 'A' : 'AAAA'} ${q.name} ${q.srcPort}`);
}

async function linuxQueries(namespaces: RealNamespaces, option: string): Promise<string[]> {
  namespaces.add('cli');
  namespaces.add('dns');
  namespaces.ip(
    'cli',
    'link',
    'add',
    'eth0',
    'type',
    'veth',
    'peer',
    'name',
    'eth0',
    'netns',
    namespaces.name('dns'),
  );
  namespaces.ip('cli', 'addr', 'add', '10.0.0.1/24', 'dev', 'eth0');
  namespaces.ip('dns', 'addr', 'add', '10.0.0.2/24', 'dev', 'eth0');
  namespaces.ip('cli', 'link', 'set', 'eth0', 'up');
  namespaces.ip('dns', 'link', 'set', 'eth0', 'up');
  const etc = join('/etc/netns', namespaces.name('cli'));
  const parentExisted = existsSync('/etc/netns');
  mkdirSync(etc, { recursive: true });
  try {
    writeFileSync(join(etc, 'resolv.conf'), resolvConf(option));
    const peer = join(import.meta.dirname, 'dns-peer.mjs');
    const server = spawn(
      'ip',
      [
        'netns',
        'exec',
        namespaces.name('dns'),
        'node',
        peer,
        '10.0.0.2',
        '5000',
        '--ports',
        `${SERVICE}=10.96.40.12`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    server.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (output.includes('ready\n')) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    const got = namespaces.exec('cli', 'getent', ['ahosts', `${SERVICE}.`]);
    expect(got.exitCode).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.kill('SIGTERM');
    return output.split('\n').filter((line) => line !== '' && line !== 'ready');
  } finally {
    rmSync(etc, { recursive: true, force: true });
    if (!parentExisted)
      try {
        rmdirSync('/etc/netns');
      } catch {}
  }
}

describe("glibc's single-request options on the kernel and in packetlab", () => {
  it.for(OPTIONS)(
    'options %s: the same queries from the same pattern of source ports',
    { timeout: 20_000 },
    async (option, ctx) => {
      if (!requireNetns(ctx) || !requireTool('getent', ctx) || !requireTool('node', ctx)) return;
      const namespaces = new RealNamespaces();
      let linux: string[];
      try {
        linux = await linuxQueries(namespaces, option);
      } finally {
        namespaces.cleanup();
      }
      const expected =
        option === 'single-request-reopen'
          ? [`A ${SERVICE} P0`, `AAAA ${SERVICE} P1`]
          : [`A ${SERVICE} P0`, `AAAA ${SERVICE} P0`];
      expect(portPattern(linux)).toEqual(expected);
      expect(portPattern(packetlabQueries(option))).toEqual(portPattern(linux));
    },
  );
});
