// `packetlab shell` as a script drives it: bin/packetlab.mjs with the lesson's commands on standard input (not a
// terminal), each echoed after its prompt with what it printed; the exit status is the last command's. Then the
// errors: an unknown scenario, bad arguments, a scenario with no shell.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { packetlabScript } from '../support/packetlab-cli.ts';

function shell(args: readonly string[], input: string) {
  const run = spawnSync(process.execPath, [packetlabScript(), 'shell', ...args], {
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { stdout: run.stdout, stderr: run.stderr, status: run.status };
}

/** The lesson's session, typed verbatim. */
const SCRIPT = [
  'kubectl get pods -o wide',
  'docker exec formation-worker ip route',
  'kubectl exec diag -- ping -M do -s 1422 -c 1 10.244.2.7',
  "docker exec formation-worker tcpdump -ni any -c 4 'icmp' &",
  'kubectl exec diag -- ping -c 1 10.244.2.7',
  'docker exec -it formation-worker bash',
  'conntrack -L -p icmp',
  'exit',
  'traceroute 10.244.2.7',
].join('\n');

/** The output of the command typed after `prompt line`, up to the next prompt. */
function outputOf(transcript: string, line: string): string[] {
  const lines = transcript.split('\n');
  const at = lines.findIndex(
    (candidate) => candidate.endsWith(`$ ${line}`) || candidate.endsWith(`# ${line}`),
  );
  expect(at, `no prompt for ${line}`).toBeGreaterThanOrEqual(0);
  const next = lines.findIndex((candidate, i) => i > at && /^(\$ |root@[\w-]+:\/# )/.test(candidate));
  return lines.slice(at + 1, next < 0 ? undefined : next);
}

describe('packetlab shell with a script on standard input', () => {
  it("runs the lesson's commands on the formation cluster, each after its prompt, in virtual time", () => {
    const first = shell(['lesson-case', '2', 'kindnet', 'iptables'], `${SCRIPT}\n`);
    expect(first.stderr).toBe('');
    const out = first.stdout;
    expect(out.split('\n')[0]).toMatch(
      /^kind cluster formation \(kindnet, kube-proxy iptables\), as case 2 starts\./,
    );
    expect(
      outputOf(out, 'kubectl get pods -o wide').map((row) => row.split(/ +/).slice(0, 7).join(' ')),
    ).toEqual([
      'NAME READY STATUS RESTARTS AGE IP NODE',
      'diag 1/1 Running 0 2s 10.244.1.5 formation-worker',
      'signalements-7d9f-a 1/1 Running 0 2s 10.244.2.7 formation-worker2',
      'signalements-7d9f-b 1/1 Running 0 2s 10.244.1.9 formation-worker',
    ]);
    expect(outputOf(out, 'docker exec formation-worker ip route')).toContain(
      '10.244.2.0/24 via 172.18.0.4 dev eth0 ',
    );
    expect(outputOf(out, 'kubectl exec diag -- ping -M do -s 1422 -c 1 10.244.2.7')).toContain(
      '1 packets transmitted, 1 received, 0% packet loss, time 0ms',
    );
    // The background capture's lines come after the command that made the packets, then bash's Done line.
    const ping = outputOf(out, 'kubectl exec diag -- ping -c 1 10.244.2.7');
    expect(
      ping.filter((line) =>
        / (In|Out) +IP 10\.244\.(1\.5 > 10\.244\.2\.7|2\.7 > 10\.244\.1\.5): ICMP/.test(line),
      ),
    ).toHaveLength(4);
    expect(ping.at(-1)).toBe(
      "[1]+  Done                    docker exec formation-worker tcpdump -ni any -c 4 'icmp'",
    );
    // Inside the node: its own conntrack table holds both pings' flows.
    const entries = outputOf(out, 'conntrack -L -p icmp');
    expect(out).toContain('root@formation-worker:/# conntrack -L -p icmp');
    expect(
      entries.filter(
        (line) => line.startsWith('icmp     1 ') && line.includes('src=10.244.1.5 dst=10.244.2.7'),
      ),
    ).toHaveLength(2);
    expect(outputOf(out, 'traceroute 10.244.2.7')).toEqual(['bash: traceroute: command not found', '']);
    expect(first.status).toBe(127);

    const again = shell(['lesson-case', '2', 'kindnet', 'iptables'], `${SCRIPT}\n`);
    expect(again.stdout).toBe(out);
  });

  it('exits with exit N, and refuses an unknown scenario, bad arguments, a flag it does not know', () => {
    const left = shell(['veth'], 'ip netns exec a ping -c 1 10.0.0.2\nexit 3\nip netns list\n');
    expect(left.status).toBe(3);
    expect(left.stdout).toContain('# exit 3\n');
    expect(left.stdout).not.toContain('# ip netns list');
    expect(shell(['nope'], '')).toEqual({
      stdout: '',
      stderr: "packetlab: unknown scenario 'nope' (packetlab list shows them)\n",
      status: 2,
    });
    expect(shell(['lesson-case', '9'], '')).toMatchObject({
      stderr: 'usage: packetlab shell lesson-case [1-6] [flannel-vxlan|kindnet] [iptables|nftables]\n',
      status: 2,
    });
    const flag = shell(['veth', '--cni', 'kindnet'], '');
    expect(flag.status).toBe(2);
    expect(flag.stderr.split('\n')[0]).toBe("packetlab: unknown option '--cni'");
  });
});
