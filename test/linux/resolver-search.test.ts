// glibc's search list against packetlab's resolver: `getent ahosts NAME` in a namespace whose resolv.conf is a pod's
// (`ip netns exec` bind-mounts /etc/netns/NS/resolv.conf), asking a small DNS server in another namespace; the
// queries that server saw, in order, are what packetlab's lookupHost sends for the same names to clusterDns (the
// kernel side's server answers as clusterDns does: NXDOMAIN in cluster.local, SERVFAIL outside it).

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseResolvConf, podResolvConf } from '../../src/app/dns/resolv-conf.ts';
import { lookupHost } from '../../src/app/dns/resolver.ts';
import { clusterDns } from '../../src/k8s/dns/cluster-dns.ts';
import { DNS_TYPE_A } from '../../src/wire/dns.ts';
import { must, port, service, storeOf } from '../k8s/services-fixture.ts';
import { RealNamespaces, requireNetns } from '../support/netns.ts';
import { requireTool } from '../support/tools.ts';
import { twoHosts } from '../support/two-hosts.ts';

const SERVICE = 'signalements.default.svc.cluster.local';
/** A pod's file, with 1 s timeouts so the silent name's four tries take 4 s, not 20. */
const RESOLV_CONF = podResolvConf('default', { nameserver: '10.0.0.2' }).replace(
  'ndots:5',
  'ndots:5 timeout:1',
);
/** Bare, fewer dots than ndots, unknown everywhere, absolute, at ndots, and never answered. */
const NAMES = [
  'signalements',
  'signalements.default.svc',
  'example.com',
  `${SERVICE}.`,
  'a.b.c.d.e.f',
  'silent',
];

/** The queries, as `A name` / `AAAA name` lines, that packetlab's resolver sends for each name in turn. */
function packetlabQueries(): { queries: string[]; results: string[] } {
  const { a, b, sim } = twoHosts('resolver-search');
  const store = storeOf(sim);
  must(store.create(service('signalements', { clusterIP: '10.96.40.12', ports: [port(80, 8000)] })));
  clusterDns(b, store);
  // The kernel peer never answers names starting with `silent`: here a server that reads and drops everything.
  const silent = twoHosts('resolver-search-silent');
  silent.b.udp.bind(0, 53, () => {});
  const options = parseResolvConf(RESOLV_CONF)!;
  const queries: string[] = [];
  const results: string[] = [];
  for (const name of NAMES) {
    const client = name.startsWith('silent') ? silent : { a, sim };
    const lookup = lookupHost(client.a, name, options);
    client.sim.run(30e9);
    for (const query of lookup.sent)
      queries.push(`${query.type === DNS_TYPE_A ? 'A' : 'AAAA'} ${query.name}`);
    results.push(lookup.result?.ok ? lookup.result.addresses.join(' ') : 'fail');
  }
  return { queries, results };
}

/** The same lookups by the machine's glibc; undefined when the kernel side cannot run. */
async function linuxQueries(namespaces: RealNamespaces): Promise<{ queries: string[]; results: string[] }> {
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
    writeFileSync(join(etc, 'resolv.conf'), RESOLV_CONF);
    const server = spawn(
      'ip',
      [
        'netns',
        'exec',
        namespaces.name('dns'),
        'node',
        join(import.meta.dirname, 'dns-peer.mjs'),
        '10.0.0.2',
        '20000',
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
    const results: string[] = [];
    for (const name of NAMES) {
      const got = namespaces.exec('cli', 'getent', ['ahosts', name]);
      const addrs = [
        ...new Set(
          got.stdout
            .split('\n')
            .filter(Boolean)
            .map((line) => line.split(/\s+/)[0]),
        ),
      ];
      results.push(got.exitCode === 0 ? addrs.join(' ') : 'fail');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.kill('SIGTERM');
    return { queries: output.split('\n').filter((line) => line !== '' && line !== 'ready'), results };
  } finally {
    rmSync(etc, { recursive: true, force: true });
    // Only the empty directory this case made: another process's files there stay.
    if (!parentExisted)
      try {
        rmdirSync('/etc/netns');
      } catch {}
  }
}

describe("glibc's search list (res_search) on the kernel and in packetlab", () => {
  it('asks the same names in the same order, A and AAAA together, and stops at the first answer', {
    timeout: 30_000,
  }, async (ctx) => {
    if (!requireNetns(ctx) || !requireTool('getent', ctx) || !requireTool('node', ctx)) return;
    const namespaces = new RealNamespaces();
    let linux: { queries: string[]; results: string[] };
    try {
      linux = await linuxQueries(namespaces);
    } finally {
      namespaces.cleanup();
    }
    const packetlab = packetlabQueries();
    // What glibc 2.36 asked on this machine (2026-12-01), pinned so a change on either side shows.
    expect(linux.queries).toEqual([
      'A signalements.default.svc.cluster.local',
      'AAAA signalements.default.svc.cluster.local',
      'A signalements.default.svc.default.svc.cluster.local',
      'AAAA signalements.default.svc.default.svc.cluster.local',
      'A signalements.default.svc.svc.cluster.local',
      'AAAA signalements.default.svc.svc.cluster.local',
      'A signalements.default.svc.cluster.local',
      'AAAA signalements.default.svc.cluster.local',
      'A example.com.default.svc.cluster.local',
      'AAAA example.com.default.svc.cluster.local',
      'A example.com.svc.cluster.local',
      'AAAA example.com.svc.cluster.local',
      'A example.com.cluster.local',
      'AAAA example.com.cluster.local',
      // SERVFAIL (outside the zone): send_dg's next_ns, then the second attempt; the search then ends (EAI_AGAIN).
      'A example.com',
      'AAAA example.com',
      'A example.com',
      'AAAA example.com',
      'A signalements.default.svc.cluster.local',
      'AAAA signalements.default.svc.cluster.local',
      // At ndots the name goes first as is; its SERVFAIL (twice) does not end res_search, the search list follows.
      'A a.b.c.d.e.f',
      'AAAA a.b.c.d.e.f',
      'A a.b.c.d.e.f',
      'AAAA a.b.c.d.e.f',
      'A a.b.c.d.e.f.default.svc.cluster.local',
      'AAAA a.b.c.d.e.f.default.svc.cluster.local',
      'A a.b.c.d.e.f.svc.cluster.local',
      'AAAA a.b.c.d.e.f.svc.cluster.local',
      'A a.b.c.d.e.f.cluster.local',
      'AAAA a.b.c.d.e.f.cluster.local',
      // A timeout stops the search list (done++), but the name as is is still asked, twice.
      'A silent.default.svc.cluster.local',
      'AAAA silent.default.svc.cluster.local',
      'A silent.default.svc.cluster.local',
      'AAAA silent.default.svc.cluster.local',
      'A silent',
      'AAAA silent',
      'A silent',
      'AAAA silent',
    ]);
    expect(packetlab.queries).toEqual(linux.queries);
    expect(packetlab.results).toEqual(linux.results);
  });
});
