// The shell session on the tour's two namespaces (no cluster, so fast): bash's errors and builtins, entering a
// namespace, captures in the foreground with -c, under timeout, in the background with jobs/kill, and virtual time.

import { describe, expect, it } from 'vitest';
import { vethShell } from '../../scenarios/shell-worlds.ts';
import { parseDuration, ShellSession, type ShellWorld } from '../../src/story/shell-session.ts';

function session(): ShellSession {
  const world = vethShell({ seed: 'shell', args: [] });
  if ('usage' in world) throw new Error(world.usage);
  return new ShellSession(world as ShellWorld);
}

/** Runs a line that must finish by itself; its text and status. */
function typed(shell: ShellSession, line: string): { text: string; exitCode: number } {
  const step = shell.run(line);
  if (step.kind === 'running') throw new Error(`${line} is still running`);
  return { text: step.text, exitCode: step.exitCode };
}

describe('ShellSession', () => {
  it('answers an unknown program as bash does, exit 127, and echo $? prints the last status', () => {
    const shell = session();
    expect(typed(shell, 'foo --bar')).toEqual({ text: 'bash: foo: command not found\n', exitCode: 127 });
    expect(typed(shell, 'echo $?')).toEqual({ text: '127\n', exitCode: 0 });
    expect(typed(shell, 'echo $?').text).toBe('0\n');
    expect(typed(shell, 'false').exitCode).toBe(1);
    expect(shell.lastStatus).toBe(1);
  });

  it('runs each line in the namespace it names, and a namespace entered with bash until exit', () => {
    const shell = session();
    expect(shell.prompt).toBe('# ');
    expect(typed(shell, 'ip netns exec a ip -br addr show veth-a').text).toMatch(
      /^veth-a@if\d+ +UP +10\.0\.0\.1\/24 /,
    );
    expect(typed(shell, 'ip route')).toEqual({
      text: 'packetlab: this lab has no host namespace: run it in one, ip netns exec NAME ip route\n',
      exitCode: 1,
    });
    expect(typed(shell, 'sudo ip netns exec a ip -br addr show veth-a').text).toMatch(/^veth-a@if\d+ +UP /);
    expect(typed(shell, 'ip netns exec b bash').exitCode).toBe(0);
    expect(shell.prompt).toBe('root@b:/# ');
    expect(typed(shell, 'ip route').text).toBe(
      '10.0.0.0/24 dev veth-b proto kernel scope link src 10.0.0.2 \n',
    );
    expect(typed(shell, 'crictl ps')).toEqual({ text: 'bash: crictl: command not found\n', exitCode: 127 });
    expect(typed(shell, 'exit')).toEqual({ text: 'exit\n', exitCode: 127 });
    expect(shell.prompt).toBe('# ');
    const left = shell.run('exit 4');
    expect(left).toEqual({ kind: 'exit', text: '', exitCode: 4 });
  });

  it('refuses what it cannot run: shell operators, a ping with no count', () => {
    const shell = session();
    expect(typed(shell, 'ip netns exec a ip route | grep veth')).toEqual({
      text: 'packetlab: shell: one command a line: no pipes, redirections, ; or &&\n',
      exitCode: 2,
    });
    expect(typed(shell, 'ip netns exec a ping 10.0.0.2').exitCode).toBe(2);
    expect(typed(shell, "ip netns exec a tcpdump -ni any 'icmp")).toEqual({
      text: "bash: unexpected EOF while looking for matching `''\n",
      exitCode: 2,
    });
  });

  it('advances the virtual clock while a command runs, with sleep, and a little between commands', () => {
    const shell = session();
    const sim = shell.world.sim;
    const start = sim.now;
    typed(shell, 'ip netns exec a ping -c 3 -i 0.5 10.0.0.2');
    // Three pings half a second apart, then the pause a user takes before the next command.
    expect(sim.now - start).toBeGreaterThanOrEqual(1e9);
    const before = sim.now;
    typed(shell, 'sleep 2');
    expect(sim.now - before).toBe(2e9 + 100e6);
    expect(typed(shell, 'sleep 2x')).toEqual({ text: "sleep: invalid time interval '2x'\n", exitCode: 1 });
  });

  it('runs a capture in the foreground until its -c count, and under timeout until the duration (exit 124)', () => {
    const shell = session();
    const step = shell.run('ip netns exec b tcpdump -ni veth-b -c 2 icmp');
    expect(step.kind).toBe('running');
    if (step.kind !== 'running') return;
    expect(step.text).toContain('listening on veth-b, link-type EN10MB (Ethernet)');
    // Nothing on the wire yet: virtual time passes, the capture waits.
    expect(step.job.advance(1e9)).toBe('');
    expect(step.job.done).toBe(false);
    expect(shell.finish(step.job)).toBe(
      '0 packets captured\n0 packets received by filter\n0 packets dropped by kernel\n',
    );

    const start = shell.world.sim.now;
    const timed = typed(shell, 'timeout 3 ip netns exec b tcpdump -ni veth-b');
    expect(timed.exitCode).toBe(124);
    expect(timed.text).toMatch(/listening on veth-b.*\n0 packets captured\n/);
    expect(shell.world.sim.now - start).toBe(3e9 + 100e6);
  });

  it('runs a capture in the background: its lines after later commands, Done at its count, kill %N', () => {
    const shell = session();
    const started = typed(shell, 'ip netns exec b tcpdump -ni veth-b -c 4 icmp &');
    expect(started.text.split('\n')[0]).toBe('[1] 4242');
    const second = typed(shell, 'ip netns exec b tcpdump -ni veth-b arp &');
    expect(second.text.split('\n')[0]).toBe('[2] 4243');
    expect(typed(shell, 'jobs').text).toBe(
      '[1]-  Running                 ip netns exec b tcpdump -ni veth-b -c 4 icmp &\n' +
        '[2]+  Running                 ip netns exec b tcpdump -ni veth-b arp &\n',
    );
    const ping = typed(shell, 'ip netns exec a ping -c 2 10.0.0.2');
    const lines = ping.text.split('\n');
    expect(
      lines.filter((line) => / IP 10\.0\.0\.1 > 10\.0\.0\.2: ICMP echo request/.test(line)),
    ).toHaveLength(2);
    expect(lines).toContain('4 packets captured');
    expect(lines).toContain('[1]-  Done                    ip netns exec b tcpdump -ni veth-b -c 4 icmp');
    // The ARP capture saw the request and the reply before the first echo.
    expect(lines.filter((line) => line.includes(' ARP, '))).toHaveLength(2);
    const killed = typed(shell, 'kill %2');
    expect(killed.text).toBe(
      '2 packets captured\n2 packets received by filter\n0 packets dropped by kernel\n' +
        '[2]+  Terminated              ip netns exec b tcpdump -ni veth-b arp\n',
    );
    expect(typed(shell, 'kill %2')).toEqual({ text: 'bash: kill: %2: no such job\n', exitCode: 1 });
    expect(typed(shell, 'jobs').text).toBe('');
  });

  it('keeps the history of what was typed', () => {
    const shell = session();
    typed(shell, 'echo one');
    typed(shell, '');
    typed(shell, 'echo two');
    expect(typed(shell, 'history').text).toBe('    1  echo one\n    2  echo two\n    3  history\n');
  });

  it("completes the first word from builtins and commands, later ones from commands and the world's names", () => {
    const shell = session();
    expect(shell.complete('jo')).toEqual(['jobs']);
    expect(shell.complete('tcp')).toEqual(['tcpdump']);
    expect(shell.complete('ip netns exec ')).toEqual(expect.arrayContaining(['a', 'b', 'bash']));
    expect(shell.complete('ip netns exec a tcpdump -i veth-')).toEqual([]);
  });

  it("reads coreutils' durations", () => {
    expect(parseDuration('2')).toBe(2e9);
    expect(parseDuration('0.5s')).toBe(5e8);
    expect(parseDuration('1m')).toBe(60e9);
    expect(parseDuration('5ms')).toBeUndefined();
  });
});
