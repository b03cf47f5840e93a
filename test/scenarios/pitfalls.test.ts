// The pitfall scenarios (ping to a Service address, the tunnel MTU, egress port exhaustion): every check passes,
// the transcripts show the facts the checks stand on, and one seed always tells the same story.

import { describe, expect, it } from 'vitest';
import { pitfallMtuStory, pitfallPingStory, pitfallPortsStory } from '../../scenarios/pitfalls.ts';
import { type StoryResult, transcript } from '../../src/story/story.ts';

function failing(result: StoryResult): string[] {
  return result.checks.filter((check) => !check.pass).map((check) => `${check.name}: ${check.actual}`);
}

/** The output of the first command whose line contains `part`. */
function outputOf(result: StoryResult, part: string): string {
  for (const step of result.steps)
    if (step.kind === 'command' && step.command.includes(part)) return step.output;
  throw new Error(`no command with ${part}`);
}

describe('pitfall-ping', () => {
  it('iptables: the echo request is routed untranslated and the Docker host says net unreachable; curl answers', () => {
    const result = pitfallPingStory('iptables');
    expect(failing(result)).toEqual([]);
    expect(result.ok).toBe(true);
    const ping = outputOf(result, 'ping -c 2 -W 1 10.96.40.12');
    expect(ping).toContain('From 172.18.0.1 icmp_seq=1 Destination Net Unreachable');
    expect(ping).toContain('2 packets transmitted, 0 received, +2 errors, 100% packet loss');
    expect(outputOf(result, 'curl -s http://10.96.40.12/sante')).toMatch(/^ok signalements-7d9f-[ab]\n$/);
    expect(outputOf(result, 'iptables-save -c -t nat')).toMatch(
      /\[1:60\] -A KUBE-SERVICES -d 10\.96\.40\.12\/32 -p tcp .* --dport 80 -j KUBE-SVC-/,
    );
    expect(outputOf(result, 'conntrack -L -p icmp')).toContain('[UNREPLIED] src=10.96.40.12 dst=172.18.0.3');
  });

  it('nftables: cluster-ips-check rejects it with port unreachable, nothing leaves the node', () => {
    const result = pitfallPingStory('nftables');
    expect(failing(result)).toEqual([]);
    const ping = outputOf(result, 'ping -c 2 -W 1 10.96.40.12');
    expect(ping).toContain('From 10.244.1.1 icmp_seq=2 Destination Port Unreachable');
    const capture = outputOf(result, "tcpdump -ni any 'icmp or host 10.96.40.12'");
    expect(capture).toMatch(
      /veth\w+ Out IP 10\.244\.1\.1 > 10\.244\.1\.5: ICMP 10\.96\.40\.12 protocol 1 port \d+ unreachable/,
    );
    expect(capture).not.toContain('eth0  Out IP 172.18.0.3 > 10.96.40.12');
    expect(outputOf(result, 'nft list chain ip kube-proxy cluster-ips-check')).toContain(
      'ip daddr @cluster-ips reject',
    );
  });

  it('one seed, one transcript', () => {
    expect(transcript(pitfallPingStory('nftables', 7))).toEqual(transcript(pitfallPingStory('nftables', 7)));
  });
});

describe('pitfall-mtu', () => {
  const result = pitfallMtuStory();

  it('every check passes', () => {
    expect(failing(result)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('/rapport ends with curl 28 and the search prints its sizes and 1422', () => {
    const lines = transcript(result);
    const stall = lines.indexOf(
      "$ kubectl exec diag -- curl -s -o /dev/null -w '%{http_code} %{size_download}\\n' --max-time 5 http://10.244.2.7:8000/rapport",
    );
    expect(lines.slice(stall + 1, stall + 3)).toEqual(['000 0', 'command terminated with exit code 28']);
    expect(lines).toContain(
      'sizes tried: 736 passes, 1104 passes, 1288 passes, 1380 passes, 1426 lost, 1403 passes, 1414 passes, 1420 passes, 1423 lost, 1421 passes, 1422 passes',
    );
    expect(lines).toContain(
      "largest that passes: 1422 (1422 + 8 ICMP + 20 IP = 1450 bytes, flannel.1's MTU)",
    );
    expect(outputOf(result, '-s 1422 -c 1')).toContain('1430 bytes from 10.244.2.7: icmp_seq=1 ttl=62');
  });

  it('the two captures: 1448-byte segments on W2 cni0, none out of W1 flannel.1; the DROP rule counted', () => {
    const sender = outputOf(result, "formation-worker2 tcpdump -ni cni0 'tcp port 8000 or icmp'");
    expect(sender).toMatch(
      /IP 10\.244\.2\.7\.8000 > 10\.244\.1\.5\.\d+: Flags \[\.\], seq 1:1449, .* length 1448/,
    );
    expect(sender).not.toContain('ICMP');
    const receiver = outputOf(result, "formation-worker tcpdump -ni flannel.1 'tcp port 8000 or icmp'");
    expect(receiver).not.toContain('length 1448');
    expect(outputOf(result, 'iptables -L OUTPUT -v -n')).toMatch(
      /^ +[1-9]\d* +\d+ DROP .*icmptype 3 code 4$/m,
    );
  });

  it('the remedy: MTU 1450 in the pods, mss 1410, /rapport whole', () => {
    const lines = transcript(result);
    expect(lines.filter((line) => line === '200 64000')).toHaveLength(1);
    expect(outputOf(result, "tcpdump -ni flannel.1 'tcp port 8000'")).toContain('options [mss 1410,');
  });

  it('one seed, one transcript', () => {
    expect(transcript(pitfallMtuStory())).toEqual(transcript(result));
  });
});

describe('pitfall-ports', () => {
  const result = pitfallPortsStory();

  it('every check passes', () => {
    expect(failing(result)).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it('the storm: curl 28 failures in the report, insert_failed = drop > 0, entries on the 64 ports', () => {
    const lines = transcript(result);
    const storm = lines.indexOf('load generator, 60 new clients/s for 1.5 s:');
    const failures = lines.slice(storm).find((line) => line.startsWith('failures '));
    expect(failures).toMatch(/^failures +curl 28=[1-9]\d*$/);
    const stats = lines.slice(storm).find((line) => line.startsWith('cpu=0'));
    const [, failed, drop] = /insert_failed=(\d+) drop=(\d+)/.exec(stats ?? '') ?? [];
    expect(Number(failed)).toBeGreaterThan(0);
    expect(drop).toBe(failed);
    expect(outputOf(result, '--state ESTABLISHED')).toMatch(
      /^tcp +6 \d+ ESTABLISHED src=10\.244\.1\.5 dst=203\.0\.113\.10 sport=\d+ dport=80 src=203\.0\.113\.10 dst=172\.18\.0\.3 sport=80 dport=400[0-3]\d /m,
    );
  });

  it('the remedies: one keep-alive connection, four SNAT rules sharing the load, the gateway on three addresses', () => {
    const lines = transcript(result);
    const pool = lines.indexOf('load generator, keep-alive pool:');
    expect(lines.slice(pool).find((line) => line.startsWith('connections '))).toMatch(/^connections +1$/);
    const spread = outputOf(result, 'iptables -t nat -L EGRESS-SPREAD -v -n');
    expect(spread.split('\n').filter((line) => /^ +[1-9]\d* +\d+ SNAT /.test(line))).toHaveLength(4);
    expect(outputOf(result, 'formation-worker2 iptables -t nat -S EGRESS-GW-POOL')).toContain(
      '-A EGRESS-GW-POOL -p tcp -j SNAT --to-source 172.18.0.102:40000-40031',
    );
  });

  it('one seed, one transcript', () => {
    expect(transcript(pitfallPortsStory())).toEqual(transcript(result));
  });
});
