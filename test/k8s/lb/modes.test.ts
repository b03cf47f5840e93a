// The load balancer's `http` mode (X-Forwarded-For, HAProxy's option forwardfor), a health check on a fixed port
// (kube-proxy's 10256 whatever the Service: Local's pod-less node stays in rotation), and close() leaving the LB's
// namespace clean so another controller can take its place.

import { describe, expect, it } from 'vitest';
import { latin1, latin1Bytes } from '../../../src/app/http/message.ts';
import { loadBalancerController } from '../../../src/k8s/lb/controller.ts';
import { ForwardedForInserter } from '../../../src/k8s/lb/forwarded-for.ts';
import { exec } from '../../../src/tools/exec.ts';
import { formatIpv4 } from '../../../src/wire/address.ts';
import { lbLab } from './lab.ts';

const feed = (inserter: ForwardedForInserter, text: string): string =>
  inserter
    .feed(latin1Bytes(text))
    .map((piece) => latin1(piece))
    .join('');

describe('ForwardedForInserter', () => {
  it('appends the field to every request head, after the client’s own, and passes bodies untouched', () => {
    const inserter = new ForwardedForInserter('203.0.113.10');
    const first = 'POST /a HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 1.2.3.4\r\nContent-Length: 5\r\n\r\n';
    // The head arrives in two pieces, the body's end with the next request.
    expect(feed(inserter, first.slice(0, 20))).toBe('');
    expect(feed(inserter, `${first.slice(20)}he`)).toBe(
      'POST /a HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 1.2.3.4\r\nContent-Length: 5\r\nX-Forwarded-For: 203.0.113.10\r\n\r\nhe',
    );
    expect(feed(inserter, 'lloGET /b HTTP/1.1\nHost: x\n\n')).toBe(
      'lloGET /b HTTP/1.1\nHost: x\nX-Forwarded-For: 203.0.113.10\r\n\n',
    );
  });

  it('a chunked body: the field on that head, then the rest of the connection as it is', () => {
    const inserter = new ForwardedForInserter('203.0.113.10');
    const text =
      'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n';
    expect(feed(inserter, text)).toBe(
      'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nX-Forwarded-For: 203.0.113.10\r\n\r\n3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n',
    );
    expect(feed(inserter, 'GET / HTTP/1.1\r\n\r\n')).toBe('GET / HTTP/1.1\r\n\r\n');
  });
});

describe('the load balancer in http mode', () => {
  it('the pods see the LB as the TCP peer and the client in X-Forwarded-For, on every request', () => {
    const { sim, client, pods } = lbLab({ mode: 'http', device: 'ext', policy: 'Cluster' });
    sim.run(1e9);
    for (let i = 0; i < 2; i++)
      expect(exec(client, 'curl -sS -m 3 http://172.18.255.200/sante').stdout).toMatch(/^ok from /);
    const records = pods.flatMap((pod) => pod.records);
    expect(records.map((record) => [formatIpv4(record.peerAddr), record.forwardedFor])).toEqual([
      ['172.18.0.1', '203.0.113.10'],
      ['172.18.0.1', '203.0.113.10'],
    ]);
  });
});

describe('the health check on a fixed port', () => {
  it('kube-proxy’s 10256 for a Local Service keeps the node without an endpoint in rotation', () => {
    const { sim, controller } = lbLab({
      mode: 'passthrough',
      device: 'ext',
      policy: 'Local',
      healthCheck: { port: 10256 },
    });
    sim.run(1e9);
    expect(controller.views()[0]!.inRotation).toEqual(['formation-worker', 'formation-worker2']);
    expect(new Set(controller.health.probes.map((probe) => probe.target))).toEqual(
      new Set(['172.18.0.3:10256', '172.18.0.4:10256']),
    );
  });
});

describe('close()', () => {
  it('deletes the addresses and the passthrough table, so another controller takes the same address', () => {
    const { sim, lb, store, client, controller } = lbLab({
      mode: 'passthrough',
      device: 'ext',
      policy: 'Local',
    });
    sim.run(1e9);
    controller.close();
    expect(exec(lb, 'ip -br addr show dev ext').stdout).not.toContain('172.18.255.200');
    expect(exec(lb, 'nft list tables').stdout).not.toContain('packetlab-lb');
    const next = loadBalancerController(lb, store, { mode: 'proxy', device: 'ext' });
    sim.run(1e9);
    expect(next.views().map((view) => view.ingress)).toEqual(['172.18.255.200']);
    expect(exec(client, 'curl -sS -m 3 http://172.18.255.200/sante').stdout).toBe(
      'ok from formation-worker\n',
    );
  });
});
