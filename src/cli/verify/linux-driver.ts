// Runs a harness scenario (src/harness/scenario.ts) on the real Linux kernel, in throw-away network namespaces that
// share nothing with the host: iproute2, bridge, sysctl, iptables-restore and nft build it, tcpdump captures, ping, the
// peers (peers/*.mjs) and tcpreplay make the traffic. Used by `packetlab verify` and by test/linux's cases.
//
// Safety: every namespace is named PREFIX-NAME with a prefix unique to this process and run;
// commands run only through `ip netns exec PREFIX-NAME`, and scenario words naming a namespace
// can only name the scenario's own (scenario.ts refuses any other). No device is ever moved to
// or linked with the host's namespace, so no frame can leave the sandbox. Teardown always
// runs: children are killed by pid, then every namespace of the prefix is deleted (also at
// process exit, and namespaces left by a dead process of ours are swept at the next start).
//
// Two settings quiet the kernel where packetlab has nothing to model, so captures hold only
// the scenario's traffic: IPv6 off (no router solicitations, MLD or DAD) and
// `igmp_link_local_mcast_reports=0` (no IGMP reports for the bridge's 224.0.0.106).

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PcapWriter, readPcap } from '../../capture/pcap.ts';
import {
  type CaptureResult,
  type CommandOutput,
  commandLabel,
  framesLabel,
  framesLines,
  type Observed,
  tcpLabels,
  udpLabels,
} from '../../harness/observed.ts';
import { normalisePortLines, portsLabel } from '../../harness/ports-lines.ts';
import type { Command, Scenario, TrafficStep, Word } from '../../harness/scenario.ts';

/** The kernel side's peers: next to this file in a checkout, copied into dist/ by the build (tsconfig.build.json). */
const PEERS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'peers');
export const UDP_PEER = join(PEERS_DIR, 'udp-peer.mjs');
export const TCP_PEER = join(PEERS_DIR, 'tcp-peer.mjs');
export const PORTS_PEER = join(PEERS_DIR, 'ports-peer.mjs');
/**
 * The http step's server: Go's net/http with the reference routes, built once per process. Only in a checkout
 * (test/ is not in the package): an installed package cannot run http steps.
 */
export const GO_SERVER = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'test',
  'app',
  'http',
  'go-server',
  'main.go',
);
/** Every harness namespace starts with this, then the owning pid in base 36, then `x`. */
const FAMILY = 'plh';
const QUIET_SYSCTLS = [
  'net.ipv6.conf.all.disable_ipv6=1',
  'net.ipv6.conf.default.disable_ipv6=1',
  'net.ipv4.igmp_link_local_mcast_reports=0',
];
/** How long a capture keeps running after the last traffic, so the kernel's last frames reach tcpdump. */
const CAPTURE_TAIL_MS = 150;
/** How long a background monitor may take to subscribe before the traffic starts anyway (it prints nothing when ready). */
const MONITOR_SUBSCRIBE_MS = 5_000;
/** NETLINK_NETFILTER: the `Eth` column of /proc/net/netlink for the sockets of nft monitor and conntrack -E. */
const NETLINK_NETFILTER = '12';

const liveNamespaces = new Set<string>();
const liveChildren = new Set<ChildProcess>();
/** Children whose process ended and whose pipes are drained. */
const closedChildren = new WeakSet<ChildProcess>();
let exitHook = false;
let runs = 0;
let goBinary: Promise<string> | undefined;

/** `go build` of the reference server into a temporary directory removed at exit; the path of the binary. */
function goServerBinary(): Promise<string> {
  goBinary ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packetlab-harness-go-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const binary = join(dir, 'server');
    const env = {
      ...process.env,
      GOCACHE: process.env.GOCACHE ?? join(tmpdir(), 'plab-gocache'),
      HOME: process.env.HOME ?? tmpdir(),
      GOTOOLCHAIN: 'local',
      GOFLAGS: '',
    };
    const built = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const child = spawn('go', ['build', '-o', binary, GO_SERVER], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      child.once('error', (error) => resolve({ status: 127, stderr: String(error) }));
      child.once('close', (status) => resolve({ status, stderr }));
    });
    if (built.status !== 0) throw new Error(`go build ${GO_SERVER}: ${built.stderr}`);
    return binary;
  })();
  return goBinary;
}

/** Waits until the file at `path` keeps its size for two polls 50 ms apart (at most 5 s). */
async function untilStill(path: string): Promise<void> {
  const size = () => {
    try {
      return statSync(path).size;
    } catch {
      return -1;
    }
  };
  let last = size();
  let still = 0;
  for (let waited = 0; waited < 5_000 && still < 2; waited += 50) {
    await sleep(50);
    const now = size();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}

/**
 * True once process `pid` holds a NETLINK_NETFILTER socket bound to a multicast group: conntrack -E (groups 0x7,
 * NFNLGRP_CONNTRACK_NEW to _DESTROY) and nft monitor (NFNLGRP_NFTABLES, NFNLGRP_NFTRACE) print nothing when ready,
 * but from that moment the kernel queues every event on the socket (netlink_broadcast). Read from the process's own
 * view of /proc/net/netlink (its namespace's table: `sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode`), matched
 * to its file descriptors by inode. `ip netns exec` execs the program in the pid it was started with.
 */
function subscribedToNetfilter(pid: number): boolean {
  const inodes = new Set<string>();
  let table: string;
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (target.startsWith('socket:[')) inodes.add(target.slice('socket:['.length, -1));
      } catch {
        // closed between the listing and the read
      }
    }
    table = readFileSync(`/proc/${pid}/net/netlink`, 'utf8');
  } catch {
    return false;
  }
  return table
    .split('\n')
    .slice(1)
    .some((line) => {
      const [, eth, , groups, , , , , , inode] = line.trim().split(/\s+/);
      return (
        eth === NETLINK_NETFILTER &&
        groups !== undefined &&
        /[1-9a-f]/.test(groups) &&
        inodes.has(inode ?? '')
      );
    });
}

/** Polls `ready` every 10 ms until it holds or `timeoutMs` passed. */
async function until(ready: () => boolean, timeoutMs: number): Promise<void> {
  for (let waited = 0; waited < timeoutMs && !ready(); waited += 10) await sleep(10);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function deleteNamespace(name: string): void {
  spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  liveNamespaces.delete(name);
}

/** Names of the host's namespaces (`ip netns list` prints "NAME" or "NAME (id: N)"). */
export function listNamespaces(): string[] {
  const listed = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' });
  return (listed.stdout ?? '')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name !== '');
}

/** Deletes harness namespaces whose owning process is gone (a run killed before its teardown). */
function sweepOrphans(): void {
  for (const name of listNamespaces()) {
    const match = /^plh([0-9a-z]+)x/.exec(name);
    if (match === null) continue;
    const pid = Number.parseInt(match[1]!, 36);
    if (pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') deleteNamespace(name);
    }
  }
}

function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const child of liveChildren) child.kill('SIGKILL');
    for (const name of [...liveNamespaces]) deleteNamespace(name);
  });
}

/** A command run without blocking the event loop; killed after `timeoutMs`. */
function spawnAsync(
  program: string,
  args: readonly string[],
  timeoutMs = 30_000,
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      stderr += `harness: killed after ${timeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ status: 127, stdout, stderr: `${stderr}${error}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ status: code ?? 128, stdout, stderr });
    });
  });
}

function output(label: string, result: ReturnType<typeof spawnSync>): CommandOutput {
  const stdout = String(result.stdout ?? '');
  let stderr = String(result.stderr ?? '');
  if (result.error !== undefined) stderr += `harness: ${result.error.message}\n`;
  return { label, stdout, stderr, exitCode: result.status ?? 128 };
}

/** A started child whose stdout or stderr we watch for a line. */
function waitForText(
  child: ChildProcess,
  stream: 'stdout' | 'stderr',
  text: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`no "${text}" within ${timeoutMs} ms: ${seen}`)),
      timeoutMs,
    );
    child[stream]?.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before "${text}": ${seen}`));
    });
  });
}

/**
 * Waits until the child has ended and its output pipes are drained ('close'), killing it
 * after `timeoutMs`; what it wrote before is never lost.
 */
function closed(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (closedChildren.has(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const giveUp = setTimeout(resolve, timeoutMs + 3_000);
    child.once('close', () => {
      clearTimeout(kill);
      clearTimeout(giveUp);
      resolve();
    });
  });
}

function collect(child: ChildProcess): () => string {
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return () => text;
}

/**
 * The command line that runs argv inside namespace `name`: `ip -n` and `bridge -n` switch
 * namespace themselves (twice as fast as `ip netns exec`, which also remounts /sys).
 */
function inNamespace(name: string, argv: readonly string[]): [string, string[]] {
  const [program, ...args] = argv;
  if (program === 'ip' || program === 'bridge') return [program, ['-n', name, ...args]];
  return ['ip', ['netns', 'exec', name, ...argv]];
}

/** An `ip`/`bridge` command whose words survive `-batch` parsing unchanged. */
function batchable(command: Command): boolean {
  return (
    (command.argv[0] === 'ip' || command.argv[0] === 'bridge') &&
    command.stdin === undefined &&
    command.argv.every((word) => typeof word !== 'string' || /^[^\s"'\\#]+$/.test(word))
  );
}

/** A peer server's output without its `ready` line. */
function peerLines(output: string): string {
  return output
    .split('\n')
    .filter((line) => line !== '' && line !== 'ready')
    .map((line) => `${line}\n`)
    .join('');
}

class LinuxRun {
  readonly prefix = `${FAMILY}${process.pid.toString(36)}x${(runs++).toString(36)}`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'packetlab-harness-'));
  private readonly created: string[] = [];
  private readonly children = new Set<ChildProcess>();
  private framesFiles = 0;

  constructor(private readonly scenario: Scenario) {}

  nsName(short: string): string {
    if (!this.scenario.namespaces.includes(short)) throw new Error(`no namespace ${short} in the scenario`);
    return `${this.prefix}-${short}`;
  }

  /** `ip netns add` for each name, then the quieting sysctls, in parallel (each costs a process start). */
  private async addNamespaces(names: readonly string[]): Promise<void> {
    // allSettled: a failure must not let teardown start while other additions are in flight.
    const settled = await Promise.allSettled(
      names.map(async (name) => {
        const added = await spawnAsync('ip', ['netns', 'add', name]);
        if (added.status !== 0) throw new Error(`ip netns add ${name}: ${added.stderr}`);
        this.created.push(name);
        liveNamespaces.add(name);
        const quiet = await spawnAsync('ip', ['netns', 'exec', name, 'sysctl', '-q', '-w', ...QUIET_SYSCTLS]);
        if (quiet.status !== 0) throw new Error(`${name}: sysctl: ${quiet.stderr}`);
      }),
    );
    for (const result of settled) if (result.status === 'rejected') throw result.reason;
  }

  /** `ip -n NAME -batch -` over the given argument lists; throws when one fails. */
  private batch(name: string, lines: readonly (readonly string[])[]): void {
    const result = spawnSync('ip', ['-n', name, '-batch', '-'], {
      encoding: 'utf8',
      timeout: 20_000,
      input: lines.map((line) => `${line.join(' ')}\n`).join(''),
    });
    if (result.status !== 0) throw new Error(`${name}: ip -batch: ${result.stderr}${result.error ?? ''}`);
  }

  private word(word: Word): string {
    if (typeof word === 'string') return word;
    if ('ns' in word) return this.nsName(word.ns);
    const path = join(this.dir, word.file.replaceAll('/', '_'));
    writeFileSync(path, word.text);
    return path;
  }

  run(command: Command, timeoutMs = 30_000): CommandOutput {
    const [program, args] = inNamespace(
      this.nsName(command.ns),
      command.argv.map((word) => this.word(word)),
    );
    const result = spawnSync(program, args, {
      encoding: 'utf8',
      timeout: timeoutMs,
      ...(command.stdin !== undefined ? { input: command.stdin } : {}),
    });
    const out = output(commandLabel(command), result);
    return { ...out, stdout: this.unprefix(out.stdout), stderr: this.unprefix(out.stderr) };
  }

  /** Outputs name namespaces by the scenario's names. */
  private unprefix(text: string): string {
    return text.replaceAll(`${this.prefix}-`, '');
  }

  private start(name: string, argv: string[]): ChildProcess {
    const child = spawn('ip', ['netns', 'exec', name, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.add(child);
    liveChildren.add(child);
    child.once('exit', () => liveChildren.delete(child));
    child.once('close', () => closedChildren.add(child));
    // Flowing from the start, so an unread pipe never holds back 'close' (listeners added in this tick see everything).
    child.stdout?.resume();
    child.stderr?.resume();
    return child;
  }

  async execute(): Promise<Observed> {
    const scenario = this.scenario;
    const switchNs = (segment: string): string => `${this.prefix}-seg-${segment}`;
    await this.addNamespaces([
      ...scenario.namespaces.map((short) => this.nsName(short)),
      ...scenario.segments.map((segment) => switchNs(segment.name)),
    ]);
    for (const segment of scenario.segments) {
      // The switch: a bridge whose ports have the segment's MTU, in a namespace of its own.
      const name = switchNs(segment.name);
      this.batch(name, [
        ['link', 'set', 'lo', 'up'],
        ['link', 'add', 'switch', 'mtu', String(segment.mtu), 'type', 'bridge'],
        ['link', 'set', 'switch', 'up'],
      ]);
      const ports = segment.ports.map((port, i) => {
        const portName = `port${i + 1}`;
        this.batch(this.nsName(port.ns), [
          [
            'link',
            'add',
            port.ifname,
            'mtu',
            String(port.mtu),
            'type',
            'veth',
            'peer',
            'name',
            portName,
            'netns',
            name,
          ],
          ['link', 'set', port.ifname, 'address', port.mac, 'up'],
        ]);
        return ['link', 'set', portName, 'mtu', String(segment.mtu), 'master', 'switch', 'up'];
      });
      this.batch(name, ports);
    }
    const setup = this.runSetup(scenario.setup);

    const bulk = scenario.traffic.some((step) => step.kind === 'tcp' && step.bytes !== undefined);
    const captures = await Promise.all(
      scenario.captures.map(async (capture, i) => {
        const path = join(this.dir, `capture-${i}.pcap`);
        const argv = [
          'tcpdump',
          '-n',
          '-U',
          '--immediate-mode',
          // Immediate mode gives the ring one slot per snapshot length (256 KiB): the default 2 MiB
          // holds 8 frames, and a bulk transfer's bursts were dropped; 64 MiB holds 256.
          ...(bulk ? ['-B', '65536'] : []),
          '-Z',
          'root',
          '-i',
          capture.iface,
          '-w',
          path,
        ];
        if (!capture.promiscuous) argv.push('-p');
        if (capture.filter !== '') argv.push(capture.filter);
        const child = this.start(this.nsName(capture.ns), argv);
        await waitForText(child, 'stderr', 'listening on', 10_000);
        return { capture, path, child };
      }),
    );

    // nft monitor and conntrack -E print nothing once subscribed: the traffic starts when their netlink socket is.
    const monitors = scenario.monitors.map((command) => {
      const child = this.start(
        this.nsName(command.ns),
        command.argv.map((word) => this.word(word)),
      );
      const stderr: string[] = [];
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
      return { command, child, stdout: collect(child), stderr };
    });
    for (const { child } of monitors) {
      const pid = child.pid;
      if (pid !== undefined)
        await until(
          () => child.exitCode !== null || child.signalCode !== null || subscribedToNetfilter(pid),
          MONITOR_SUBSCRIBE_MS,
        );
    }

    const traffic: CommandOutput[] = [];
    for (const step of scenario.traffic) {
      switch (step.kind) {
        case 'command':
          traffic.push(this.run(step.command));
          break;
        case 'udp':
          traffic.push(...(await this.udp(step)));
          break;
        case 'frames':
          traffic.push(await this.frames(step));
          break;
        case 'tcp':
          traffic.push(...(await this.tcp(step)));
          break;
        case 'ports':
          traffic.push(await this.ports(step));
          break;
        case 'http':
          traffic.push(await this.http(step));
          break;
        case 'wait':
          await sleep(step.ms);
          break;
        default:
          step satisfies never;
      }
    }

    if (captures.length > 0 || monitors.length > 0) await sleep(CAPTURE_TAIL_MS);
    // A bulk transfer's frames can still be on their way from the ring to the file (tcpdump -U writes one at a
    // time): wait until every capture file has stopped growing before stopping tcpdump.
    for (const { path } of captures) await untilStill(path);
    const monitored: CommandOutput[] = [];
    for (const { command, child, stdout, stderr } of monitors) {
      child.kill('SIGINT');
      await closed(child, 5_000);
      monitored.push({
        label: commandLabel(command),
        stdout: this.unprefix(stdout()),
        stderr: this.unprefix(stderr.join('')),
        // Stopped by us: the exit status says how, not whether it worked.
        exitCode: 0,
      });
    }
    const captured: CaptureResult[] = [];
    for (const { capture, path, child } of captures) {
      child.kill('SIGINT');
      await closed(child, 5_000);
      const label = `${capture.ns}/${capture.iface}`;
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(readFileSync(path));
      } catch (error) {
        captured.push({ label, linkType: 0, frames: [], error: String(error) });
        continue;
      }
      const read = readPcap(bytes);
      if (!read.ok) captured.push({ label, linkType: 0, frames: [], error: read.error });
      else
        captured.push({
          label,
          linkType: read.file.linkType,
          frames: read.file.records.map((record) => record.data),
          timesNs: read.file.records.map((record) => record.timeNs),
        });
    }

    const observe = [...scenario.observe.map((command) => this.run(command)), ...monitored];
    return { side: 'linux', setup, traffic, captures: captured, observe };
  }

  /**
   * Set-up commands must succeed silently on the kernel (a failure or any output is an error
   * in the scenario, thrown). Consecutive `ip` (or `bridge`) commands of one namespace run as
   * one `ip -n NS -batch -`: the kernel side's set-up takes a tenth of the time.
   */
  private runSetup(commands: readonly Command[]): CommandOutput[] {
    const results: CommandOutput[] = [];
    let i = 0;
    while (i < commands.length) {
      const first = commands[i]!;
      let end = i + 1;
      if (batchable(first))
        while (
          end < commands.length &&
          batchable(commands[end]!) &&
          commands[end]!.ns === first.ns &&
          commands[end]!.argv[0] === first.argv[0]
        )
          end++;
      const group = commands.slice(i, end);
      const [program, args] = inNamespace(this.nsName(first.ns), [String(first.argv[0]), '-batch', '-']);
      const result =
        group.length === 1
          ? this.run(first)
          : output(
              group.map(commandLabel).join('; '),
              spawnSync(program, args, {
                encoding: 'utf8',
                timeout: 30_000,
                input: group
                  .map(
                    (command) =>
                      `${command.argv
                        .slice(1)
                        .map((w) => this.word(w))
                        .join(' ')}\n`,
                  )
                  .join(''),
              }),
            );
      if (result.exitCode !== 0 || result.stdout !== '' || result.stderr !== '') {
        const failed = /Command failed -:(\d+)/.exec(result.stderr);
        const label = failed !== null ? commandLabel(group[Number(failed[1]) - 1]!) : result.label;
        throw new Error(
          `a set-up command ${result.exitCode !== 0 ? 'failed' : 'printed'} on the kernel: ${label}\n${result.stdout}${result.stderr}`,
        );
      }
      for (const command of group)
        results.push({ label: commandLabel(command), stdout: '', stderr: '', exitCode: 0 });
      i = end;
    }
    return results;
  }

  private async udp(step: Extract<TrafficStep, { kind: 'udp' }>): Promise<CommandOutput[]> {
    const labels = udpLabels(step);
    const serverTimeout = step.count * step.timeoutMs + 2_000;
    const server = this.start(this.nsName(step.server.ns), [
      process.execPath,
      UDP_PEER,
      'serve',
      step.server.bind,
      String(step.server.port),
      String(step.count),
      String(serverTimeout),
    ]);
    const serverOut = collect(server);
    await waitForText(server, 'stdout', 'ready\n', 10_000);
    const client = await this.peerClient(UDP_PEER, step, step.count * step.timeoutMs + 10_000);
    // The server ends by itself after `count` datagrams; fewer came when the path is broken.
    await closed(server, 1_000);
    return [
      { label: labels.client, ...client, exitCode: client.status },
      { label: labels.server, stdout: peerLines(serverOut()), stderr: '', exitCode: 0 },
    ];
  }

  /** `node PEER send BIND PORT DST DST_PORT COUNT PAYLOAD TIMEOUT_MS` in the client's namespace, to its end. */
  private peerClient(
    peer: string,
    step: Extract<TrafficStep, { kind: 'udp' | 'tcp' }>,
    timeoutMs: number,
  ): ReturnType<typeof spawnAsync> {
    return spawnAsync(
      'ip',
      [
        'netns',
        'exec',
        this.nsName(step.client.ns),
        process.execPath,
        peer,
        'send',
        step.client.bind,
        String(step.client.port),
        step.dst,
        String(step.dstPort),
        String(step.count),
        step.payload,
        String(step.timeoutMs),
        ...(step.kind === 'tcp' && step.bytes !== undefined ? [String(step.bytes)] : []),
        ...(step.kind === 'tcp' && step.keepAliveMs !== undefined
          ? ['', String(step.keepAliveMs), String(step.idleMs ?? 0)]
          : []),
      ],
      timeoutMs,
    );
  }

  /**
   * A bulk transfer compares segments with packetlab's, which are MSS-sized: the veths of both
   * peers' namespaces stop handing 64 KiB super-segments to the capture (gso_max_segs 1).
   */
  private async withoutGso(namespaces: readonly string[]): Promise<void> {
    for (const ns of namespaces) {
      const listed = await spawnAsync(
        'ip',
        ['-n', this.nsName(ns), '-o', 'link', 'show', 'type', 'veth'],
        10_000,
      );
      for (const match of listed.stdout.matchAll(/^\d+: ([^:@]+)/gm)) {
        const set = await spawnAsync(
          'ip',
          ['-n', this.nsName(ns), 'link', 'set', 'dev', match[1]!, 'gso_max_segs', '1'],
          10_000,
        );
        if (set.status !== 0) throw new Error(`gso_max_segs on ${match[1]}: ${set.stderr}`);
      }
    }
  }

  /** tcp-peer.mjs on both sides: the server (if any) first, ready before the client starts. */
  private async tcp(step: Extract<TrafficStep, { kind: 'tcp' }>): Promise<CommandOutput[]> {
    const labels = tcpLabels(step);
    const lifetime = (step.count + 2) * step.timeoutMs + 2_000 + (step.readAfterMs ?? 0) + (step.idleMs ?? 0);
    let serverOut: (() => string) | undefined;
    let server: ChildProcess | undefined;
    if (step.bytes !== undefined)
      await this.withoutGso([step.client.ns, ...(step.server ? [step.server.ns] : [])]);
    if (step.server !== undefined) {
      server = this.start(this.nsName(step.server.ns), [
        process.execPath,
        TCP_PEER,
        'serve',
        step.server.bind,
        String(step.server.port),
        String(lifetime),
        ...(step.bytes !== undefined ? [String(step.readAfterMs ?? 0)] : []),
      ]);
      serverOut = collect(server);
      await waitForText(server, 'stdout', 'ready\n', 10_000);
    }
    // While the server listens and before the client connects (`ss -tln`).
    const results: CommandOutput[] = (step.whileListening ?? []).map((command) => this.run(command));
    const client = await this.peerClient(TCP_PEER, step, lifetime + 10_000);
    results.push({ label: labels.client, ...client, exitCode: client.status });
    if (server !== undefined && serverOut !== undefined) {
      // The server ends by itself once its connection closed (or after its lifetime when none came).
      await closed(server, lifetime);
      results.push({ label: labels.server, stdout: peerLines(serverOut()), stderr: '', exitCode: 0 });
    }
    return results;
  }

  /**
   * The reference Go server listening at the step's address (it prints its port when listening), then curl in the
   * client's namespace to its end; the server is killed `lingerMs` later, once the connection's close went by.
   */
  private async http(step: Extract<TrafficStep, { kind: 'http' }>): Promise<CommandOutput> {
    const binary = await goServerBinary();
    const server = this.start(this.nsName(step.server.ns), [
      binary,
      `${step.server.bind}:${step.server.port}`,
    ]);
    await waitForText(server, 'stdout', `${step.server.port}\n`, 10_000);
    const [program, args] = inNamespace(
      this.nsName(step.client.ns),
      step.client.argv.map((word) => this.word(word)),
    );
    const curl = await spawnAsync(program, args, 30_000);
    await sleep(step.lingerMs);
    server.kill('SIGKILL');
    await closed(server, 2_000);
    return {
      label: commandLabel(step.client),
      stdout: this.unprefix(curl.stdout),
      stderr: this.unprefix(curl.stderr),
      exitCode: curl.status,
    };
  }

  /** ports-peer.mjs: the server (if any) listening on its ports, then the client's actions; the server is stopped after. */
  private async ports(step: Extract<TrafficStep, { kind: 'ports' }>): Promise<CommandOutput> {
    let budget = 10_000;
    for (const action of step.actions)
      budget +=
        action.kind === 'connect'
          ? action.count * action.timeoutMs
          : action.kind === 'wait'
            ? action.ms
            : 1_000;
    let server: ChildProcess | undefined;
    if (step.server !== undefined) {
      server = this.start(this.nsName(step.server.ns), [
        process.execPath,
        PORTS_PEER,
        'serve',
        step.server.ports.join(','),
        String(budget),
      ]);
      await waitForText(server, 'stdout', 'ready\n', 10_000);
    }
    const client = await spawnAsync(
      'ip',
      [
        'netns',
        'exec',
        this.nsName(step.client),
        process.execPath,
        PORTS_PEER,
        'run',
        JSON.stringify(step.actions),
      ],
      budget,
    );
    if (server !== undefined) {
      server.kill('SIGTERM');
      await closed(server, 2_000);
    }
    return {
      label: portsLabel(step),
      stdout: normalisePortLines(client.stdout, step),
      stderr: this.unprefix(client.stderr),
      exitCode: client.status,
    };
  }

  /**
   * Crafted frames: a pcap file in the run's directory replayed by `tcpreplay -i IFACE` (an
   * AF_PACKET socket, so dev_queue_xmit). Only the "Actual: N packets (B bytes)" and failed
   * counts are reported, not the timing statistics. A frame the driver drops (a veth peer's MTU)
   * returns ENOBUFS, which tcpreplay retries forever: the timeout ends it and fails the step.
   */
  private async frames(step: Extract<TrafficStep, { kind: 'frames' }>): Promise<CommandOutput> {
    const path = join(this.dir, `frames-${this.framesFiles++}.pcap`);
    const writer = new PcapWriter();
    for (const frame of step.frames) writer.write(0, frame);
    writeFileSync(path, writer.bytes());
    const replay = await spawnAsync(
      'ip',
      ['netns', 'exec', this.nsName(step.ns), 'tcpreplay', '--topspeed', '-i', step.iface, path],
      10_000,
    );
    const actual = /^Actual: (\d+) packets \((\d+) bytes\)/m.exec(replay.stdout);
    const failed = Number(/^\s*Failed packets:\s+(\d+)/m.exec(replay.stdout)?.[1] ?? 0);
    const lines = [framesLines.sent(Number(actual?.[1] ?? 0), Number(actual?.[2] ?? 0))];
    if (failed > 0) lines.push(framesLines.failed(failed));
    return {
      label: framesLabel(step),
      stdout: lines.map((line) => `${line}\n`).join(''),
      // tcpreplay's warnings ("Unable to send packet: ...") are its own words; a failure shows as the count.
      stderr: actual === null || replay.status !== 0 ? this.unprefix(replay.stderr) : '',
      exitCode: replay.status,
    };
  }

  /** Kills what we started, deletes every namespace of this run's prefix and the temporary files. */
  async teardown(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL');
    for (const child of this.children) await closed(child, 2_000);
    const names = new Set(this.created.splice(0));
    for (const name of listNamespaces()) if (name.startsWith(`${this.prefix}-`)) names.add(name);
    await Promise.all(
      [...names].map(async (name) => {
        await spawnAsync('ip', ['netns', 'del', name]);
        liveNamespaces.delete(name);
      }),
    );
    // Whatever an interrupted parallel delete left behind goes one by one.
    for (const name of listNamespaces()) if (name.startsWith(`${this.prefix}-`)) deleteNamespace(name);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Builds and runs `scenario` on the kernel and returns what it observed; always tears down. */
export async function runLinux(scenario: Scenario): Promise<Observed> {
  installExitHook();
  sweepOrphans();
  const run = new LinuxRun(scenario);
  try {
    return await run.execute();
  } finally {
    await run.teardown();
  }
}
