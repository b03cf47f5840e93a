// The differential harness's scenario description: plain data both drivers run (namespaces, underlay segments, the
// commands that build the topology, captures, traffic (ping, UDP and TCP exchanges, crafted frames) and what to observe).
//
// A scenario is the list of commands a CNI would run, as argument vectors, each in one
// namespace. The real driver runs them with `ip netns exec PREFIX-NS ...`, the packetlab
// driver with `exec(ns, ...)`. Words that name a namespace (`ip link add ... netns W1`) or a
// file (`nft -f FILE`) are objects, so each driver can substitute its own name or path; a
// plain string after `netns` is refused, so no command can reach outside the scenario.
// Every device the builder creates gets an explicit MAC address, so frames compare byte for byte.

export type { Command, SegmentPort, SegmentSpec, Word } from '../k8s/plan.ts';

import type { Command, SegmentPort, SegmentSpec, Word } from '../k8s/plan.ts';

export interface CaptureSpec {
  readonly ns: string;
  readonly iface: string;
  /** A pcap-filter expression (tcpdump's), or '' for everything. */
  readonly filter: string;
  /**
   * Whether tcpdump puts the interface in promiscuous mode (its default). Off by default here
   * (`-p`), so watching does not change what happens: a promiscuous bridge passes every frame
   * it forwards up to its own device (br_handle_frame_finish's local_rcv).
   */
  readonly promiscuous: boolean;
}

/** The label a capture is reported under: `ns/iface`. */
export function captureLabel(capture: CaptureSpec): string {
  return `${capture.ns}/${capture.iface}`;
}

export interface UdpEndpoint {
  readonly ns: string;
  /** The address to bind ('0.0.0.0' for any). */
  readonly bind: string;
  readonly port: number;
}

export type TrafficStep =
  /** A command whose output is compared (ping, mostly). */
  | { readonly kind: 'command'; readonly command: Command }
  /**
   * A UDP exchange between fixed ports: the server echoes each datagram back; the client
   * sends `count` datagrams one after the other, waiting up to `timeoutMs` for each answer.
   */
  | {
      readonly kind: 'udp';
      readonly client: UdpEndpoint;
      readonly server: UdpEndpoint;
      /** Where the client sends to (a Service address when NAT is in the way). */
      readonly dst: string;
      readonly dstPort: number;
      readonly count: number;
      readonly payload: string;
      readonly timeoutMs: number;
    }
  /**
   * Crafted frames, whole Ethernet frames sent one after the other on `iface` of `ns` as a packet
   * socket sends them (sendto → dev_queue_xmit): taps on `iface` see them as outgoing, then the
   * device transmits them. The kernel side replays them with tcpreplay; packetlab with packetSend.
   */
  | {
      readonly kind: 'frames';
      readonly ns: string;
      readonly iface: string;
      readonly frames: readonly Uint8Array[];
    }
  /**
   * A TCP exchange between fixed ports (tcp-peer.mjs): the server, when there is one, accepts
   * one connection and echoes; the client connects, sends `count` messages one after the other
   * (each waits for its echo or `timeoutMs`), then ends the connection. Without a server the
   * client meets whatever answers `dst` (a reset, an ICMP error, a REJECT, silence).
   */
  | {
      readonly kind: 'tcp';
      readonly client: UdpEndpoint;
      readonly server: UdpEndpoint | undefined;
      readonly dst: string;
      readonly dstPort: number;
      readonly count: number;
      readonly payload: string;
      readonly timeoutMs: number;
      /**
       * Commands run once the server listens, before the client connects (`ss -tln`): the only
       * moment a listening socket exists, since the server stops listening at its one accept.
       * Their outputs come before the peers' lines.
       */
      readonly whileListening?: readonly Command[];
      /**
       * A bulk transfer instead of an echo: the client writes this many bytes ('x') at once and
       * ends; the server does not echo, reads from `readAfterMs` after its accept on (not before:
       * the data waits in its receive buffer), then prints the total and ends too. The kernel's
       * veths then send MSS-sized segments (gso_max_segs 1), as packetlab's do.
       */
      readonly bytes?: number;
      readonly readAfterMs?: number;
      /**
       * An echo client that turns SO_KEEPALIVE on at connect (Node's setKeepAlive(true, ms):
       * TCP_KEEPIDLE in seconds) and stays idle `idleMs` after its last echo before it ends.
       */
      readonly keepAliveMs?: number;
      readonly idleMs?: number;
    }
  /**
   * Local ports (ports-peer.mjs, packetlab-ports.ts): one client process runs `actions` in order,
   * keeping its connections open until a `close`; the server (if any) listens on 0.0.0.0 at each of
   * its ports and accepts everything. Outputs are normalised by ports-lines.ts (parity, range, steps).
   */
  | {
      readonly kind: 'ports';
      readonly client: string;
      readonly server: { readonly ns: string; readonly ports: readonly number[] } | undefined;
      /** The client's ip_local_port_range while the step runs, which the normaliser checks ports against. */
      readonly range: readonly [number, number];
      readonly actions: readonly PortsAction[];
    }
  /**
   * An HTTP exchange: the reference server (test/app/http/go-server/main.go, Go's net/http, on the kernel;
   * packetlab's httpServer with the same routes, test/linux/http-routes.ts) listens at `server`, then `client` (a
   * curl command line) runs to its end; the server lives until `lingerMs` after curl exited, so the
   * connection's close lands in the captures. curl's stdout, stderr and exit code are compared.
   */
  | {
      readonly kind: 'http';
      readonly server: UdpEndpoint;
      readonly client: Command;
      readonly lingerMs: number;
    }
  /** Let time pass (real time on the kernel side, virtual time in packetlab). */
  | { readonly kind: 'wait'; readonly ms: number };

/** One action of a ports step. */
export type PortsAction =
  /** `count` connect() calls without bind(), one after the other, each waiting for its outcome; `steps` reports the port steps. */
  | {
      readonly kind: 'connect';
      readonly dst: string;
      readonly port: number;
      readonly count: number;
      readonly timeoutMs: number;
      readonly steps?: boolean;
    }
  /** end() on every open connection (the client closes first: TIME_WAIT on its side), waiting for each. */
  | { readonly kind: 'close' }
  /** listen() on 0.0.0.0 port 0 (bind()'s search, with Node's SO_REUSEADDR), closed at once. */
  | { readonly kind: 'listen0' }
  /** `count` UDP sockets bound to 0.0.0.0 port 0 (udp_lib_get_port), kept until the step ends. */
  | { readonly kind: 'udp0'; readonly count: number }
  /** A write to /proc/sys in the client's namespace. */
  | { readonly kind: 'sysctl'; readonly key: string; readonly value: string }
  | { readonly kind: 'wait'; readonly ms: number };

export interface Scenario {
  readonly name: string;
  readonly namespaces: readonly string[];
  readonly segments: readonly SegmentSpec[];
  /** Run in order after the namespaces and segments exist; any failure aborts the run. */
  readonly setup: readonly Command[];
  /** Started before the traffic, stopped after it. */
  readonly captures: readonly CaptureSpec[];
  readonly traffic: readonly TrafficStep[];
  /** Commands run after the traffic; their output is compared. */
  readonly observe: readonly Command[];
  /**
   * Commands running in the background for the whole traffic phase (`nft monitor trace`), started
   * after the captures and stopped (SIGINT) with them; their output is compared after `observe`'s.
   */
  readonly monitors: readonly Command[];
}

/** The programs a scenario may run; anything else is a programmer error. */
export const ALLOWED_PROGRAMS = [
  'ip',
  'ipset',
  'bridge',
  'sysctl',
  'iptables',
  'iptables-restore',
  'iptables-save',
  'nft',
  'ping',
  'conntrack',
  'ss',
  'tc',
  'nc',
] as const;

const NAME = /^[a-z][a-z0-9]{0,7}$/;
/** curl options that name a file (the harness lets curl write only to /dev/null). */
const CURL_FILE_OPTIONS =
  /^(-[a-zA-Z]*[oOKDTbcFd]|--(output|remote-name|config|dump-header|trace|trace-ascii|stderr|upload-file|cookie|cookie-jar|form|libcurl|netrc-file|etag-save|etag-compare|write-out=@|data-binary|data)\b)/;
/** Crafted frames per step: a case describes a handful, byte by byte. */
const MAX_CRAFTED_FRAMES = 100;
const IFNAME = /^[A-Za-z][A-Za-z0-9._-]{0,14}$/;

export interface PingOptions {
  readonly count?: number;
  /** Payload size (`-s`). */
  readonly size?: number;
  /** `-M do` (true) or `-M dont` (false); unset leaves ping's default. */
  readonly df?: boolean;
  readonly ttl?: number;
  /** Seconds to wait for answers after the last request (`-W`). */
  readonly wait?: number;
  /** Seconds between requests (`-i`). */
  readonly interval?: number;
}

/** What a UDP or TCP exchange step takes: dstPort defaults to the server's port, 1 message of 'packetlab N', 1 s. */
export interface ExchangeOptions {
  readonly client: UdpEndpoint;
  readonly server?: UdpEndpoint;
  readonly dst: string;
  readonly dstPort?: number;
  readonly count?: number;
  readonly payload?: string;
  readonly timeoutMs?: number;
}

/** Builds a Scenario step by step; `build()` returns the frozen plain data. */
export class ScenarioBuilder {
  private readonly namespaces: string[] = [];
  private readonly segments = new Map<string, { mtu: number; ports: SegmentPort[] }>();
  private readonly setup: Command[] = [];
  private readonly captures: CaptureSpec[] = [];
  private readonly traffic: TrafficStep[] = [];
  private readonly observations: Command[] = [];
  private readonly monitors: Command[] = [];
  private readonly macs = new Map<string, string>();

  constructor(readonly name: string) {}

  /** A namespace with `lo` up. Names are short (up to 8 lowercase letters and digits). */
  namespace(name: string): this {
    if (!NAME.test(name)) throw new Error(`bad namespace name ${name}`);
    if (this.namespaces.includes(name)) throw new Error(`namespace ${name} twice`);
    this.namespaces.push(name);
    this.run(name, 'ip', 'link', 'set', 'lo', 'up');
    return this;
  }

  /** An underlay segment; plug node interfaces into it with `attach`. */
  segment(name: string, options: { mtu?: number } = {}): this {
    if (!NAME.test(name) || this.segments.has(name)) throw new Error(`bad or duplicate segment ${name}`);
    this.segments.set(name, { mtu: options.mtu ?? 1500, ports: [] });
    return this;
  }

  /** Plugs `ns` into a segment as `ifname` (up, MTU 1500 unless given), as Docker does for a kind node. */
  attach(segment: string, ns: string, ifname: string, options: { mtu?: number } = {}): this {
    const spec = this.segments.get(segment);
    if (spec === undefined) throw new Error(`no segment ${segment}`);
    this.requireNs(ns);
    spec.ports.push({
      ns,
      ifname: this.checkIfname(ifname),
      mac: this.allocateMac(ns, ifname),
      mtu: options.mtu ?? 1500,
    });
    return this;
  }

  /** `ip link add A [mtu M] type veth peer name B netns NSB`, then both MACs set explicitly; both ends stay down. */
  veth(nsA: string, nameA: string, nsB: string, nameB: string, options: { mtu?: number } = {}): this {
    this.requireNs(nsA);
    this.requireNs(nsB);
    const mtu = options.mtu !== undefined ? ['mtu', String(options.mtu)] : [];
    this.command(nsA, [
      'ip',
      'link',
      'add',
      this.checkIfname(nameA),
      ...mtu,
      'type',
      'veth',
      'peer',
      'name',
      this.checkIfname(nameB),
      'netns',
      { ns: nsB },
    ]);
    this.run(nsA, 'ip', 'link', 'set', 'dev', nameA, 'address', this.allocateMac(nsA, nameA));
    this.run(nsB, 'ip', 'link', 'set', 'dev', nameB, 'address', this.allocateMac(nsB, nameB));
    return this;
  }

  /** `ip link add NAME [mtu M] type bridge` with an explicit MAC (a Linux bridge keeps a MAC that was set). */
  bridge(ns: string, name: string, options: { mtu?: number } = {}): this {
    this.requireNs(ns);
    const mtu = options.mtu !== undefined ? ['mtu', String(options.mtu)] : [];
    this.run(ns, 'ip', 'link', 'add', this.checkIfname(name), ...mtu, 'type', 'bridge');
    this.run(ns, 'ip', 'link', 'set', 'dev', name, 'address', this.allocateMac(ns, name));
    return this;
  }

  /** `ip link add NAME type vxlan id ID local A dev D dstport P [nolearning]` with an explicit MAC. */
  vxlan(
    ns: string,
    name: string,
    options: { id: number; local: string; dev: string; dstport: number; learning: boolean },
  ): this {
    this.requireNs(ns);
    this.run(
      ns,
      'ip',
      'link',
      'add',
      this.checkIfname(name),
      'type',
      'vxlan',
      'id',
      String(options.id),
      'local',
      options.local,
      'dev',
      options.dev,
      'dstport',
      String(options.dstport),
      ...(options.learning ? [] : ['nolearning']),
    );
    this.run(ns, 'ip', 'link', 'set', 'dev', name, 'address', this.allocateMac(ns, name));
    return this;
  }

  /** `ip link set dev DEV address MAC` for a device created by a plain command, with the builder's next MAC. */
  pinMac(ns: string, dev: string): this {
    this.requireNs(ns);
    return this.run(
      ns,
      'ip',
      'link',
      'set',
      'dev',
      this.checkIfname(dev),
      'address',
      this.allocateMac(ns, dev),
    );
  }

  /** The MAC the builder gave `ns`/`dev` (for neighbour and FDB entries). */
  macOf(ns: string, dev: string): string {
    const mac = this.macs.get(`${ns}/${dev}`);
    if (mac === undefined) throw new Error(`no device ${dev} in ${ns}`);
    return mac;
  }

  /** `ip link set DEV master BRIDGE`. */
  master(ns: string, dev: string, bridge: string): this {
    return this.run(ns, 'ip', 'link', 'set', 'dev', dev, 'master', bridge);
  }

  up(ns: string, ...devs: string[]): this {
    for (const dev of devs) this.run(ns, 'ip', 'link', 'set', 'dev', dev, 'up');
    return this;
  }

  addr(ns: string, cidr: string, dev: string): this {
    return this.run(ns, 'ip', 'addr', 'add', cidr, 'dev', dev);
  }

  /** `ip route ARGS...`. */
  route(ns: string, ...args: string[]): this {
    return this.run(ns, 'ip', 'route', ...args);
  }

  /** `ip rule ARGS...`. */
  rule(ns: string, ...args: string[]): this {
    return this.run(ns, 'ip', 'rule', ...args);
  }

  /** `ip neigh ARGS...`. */
  neigh(ns: string, ...args: string[]): this {
    return this.run(ns, 'ip', 'neigh', ...args);
  }

  /** `bridge fdb ARGS...`. */
  fdb(ns: string, ...args: string[]): this {
    return this.run(ns, 'bridge', 'fdb', ...args);
  }

  sysctl(ns: string, key: string, value: string | number): this {
    return this.run(ns, 'sysctl', '-q', '-w', `${key}=${value}`);
  }

  /** `iptables-restore` with the ruleset on standard input. */
  iptablesRestore(ns: string, ruleset: string): this {
    this.requireNs(ns);
    this.setup.push({ ns, argv: ['iptables-restore'], stdin: ruleset });
    return this;
  }

  /** `nft -f FILE` with the ruleset in a file. */
  nft(ns: string, ruleset: string, fileName = 'ruleset.nft'): this {
    return this.command(ns, ['nft', '-f', { file: fileName, text: ruleset }]);
  }

  /** Any allowed command, as words. */
  run(ns: string, ...argv: string[]): this {
    return this.command(ns, argv);
  }

  /** Any allowed command, with namespace and file words. */
  command(ns: string, argv: readonly Word[], stdin?: string): this {
    this.setup.push(this.checked({ ns, argv, ...(stdin !== undefined ? { stdin } : {}) }));
    return this;
  }

  /** A tcpdump on `iface` of `ns` for the whole traffic phase (not promiscuous unless asked). */
  capture(ns: string, iface: string, options: { filter?: string; promiscuous?: boolean } = {}): this {
    this.requireNs(ns);
    this.captures.push({
      ns,
      iface: this.checkIfname(iface),
      filter: options.filter ?? '',
      promiscuous: options.promiscuous ?? false,
    });
    return this;
  }

  /** `ping -n [-c N] [-s S] [-M do|dont] [-t TTL] [-W S] [-i S] DST` in `ns`; its output is compared. */
  ping(ns: string, dst: string, options: PingOptions = {}): this {
    const argv = ['ping', '-n', '-c', String(options.count ?? 1)];
    if (options.interval !== undefined) argv.push('-i', String(options.interval));
    if (options.size !== undefined) argv.push('-s', String(options.size));
    if (options.df !== undefined) argv.push('-M', options.df ? 'do' : 'dont');
    if (options.ttl !== undefined) argv.push('-t', String(options.ttl));
    if (options.wait !== undefined) argv.push('-W', String(options.wait));
    argv.push(dst);
    return this.step({ kind: 'command', command: this.checked({ ns, argv }) });
  }

  /** Any allowed command run in the traffic phase; its output is compared (`ping -m 16 ...`). */
  act(ns: string, ...argv: string[]): this {
    return this.step({ kind: 'command', command: this.checked({ ns, argv }) });
  }

  /** A plan command (namespace and file words, stdin) run in the traffic phase; its output is compared. */
  actCommand(ns: string, argv: readonly Word[], stdin?: string): this {
    return this.step({
      kind: 'command',
      command: this.checked({ ns, argv, ...(stdin !== undefined ? { stdin } : {}) }),
    });
  }

  /** A UDP exchange between fixed ports; see TrafficStep. */
  udp(options: ExchangeOptions & { server: UdpEndpoint }): this {
    this.requireNs(options.client.ns);
    this.requireNs(options.server.ns);
    return this.step({
      kind: 'udp',
      client: options.client,
      server: options.server,
      dst: options.dst,
      dstPort: options.dstPort ?? options.server.port,
      count: options.count ?? 1,
      payload: options.payload ?? 'packetlab',
      timeoutMs: options.timeoutMs ?? 1000,
    });
  }

  /**
   * A TCP exchange between fixed ports; see TrafficStep: an echo of `count` messages, or a bulk
   * transfer of `bytes` read by the server from `readAfterMs` on.
   * `whileListening` commands (`{ ns, argv }`) run once the server listens, before the client connects.
   */
  tcp(
    options: ExchangeOptions & {
      readonly whileListening?: readonly {
        readonly ns: string;
        readonly argv: readonly string[];
        readonly stdin?: string;
      }[];
      readonly bytes?: number;
      readonly readAfterMs?: number;
      readonly keepAliveMs?: number;
      readonly idleMs?: number;
    },
  ): this {
    this.requireNs(options.client.ns);
    if (options.server !== undefined) this.requireNs(options.server.ns);
    const dstPort = options.dstPort ?? options.server?.port;
    if (dstPort === undefined)
      throw new Error(`scenario ${this.name}: a TCP step without a server needs dstPort`);
    const payload = options.payload ?? 'packetlab';
    if (options.bytes !== undefined && (options.server === undefined || options.bytes > 16 * 1024 * 1024))
      throw new Error(`scenario ${this.name}: a bulk TCP transfer needs a server and at most 16 MiB`);
    const whileListening = (options.whileListening ?? []).map((command) => this.checked(command));
    if (whileListening.length > 0 && options.server === undefined)
      throw new Error(`scenario ${this.name}: commands while listening need a server`);
    return this.step({
      kind: 'tcp',
      client: options.client,
      server: options.server,
      dst: options.dst,
      dstPort,
      count: options.count ?? 1,
      payload,
      timeoutMs: options.timeoutMs ?? 1000,
      ...(whileListening.length > 0 ? { whileListening } : {}),
      ...(options.bytes !== undefined ? { bytes: options.bytes, readAfterMs: options.readAfterMs ?? 0 } : {}),
      ...(options.keepAliveMs !== undefined
        ? { keepAliveMs: options.keepAliveMs, idleMs: options.idleMs ?? 0 }
        : {}),
    });
  }

  /**
   * An HTTP exchange with the reference server at `server` and `curl ARGS...` in `client`; see TrafficStep.
   * curl may not read or write files (-o FILE, -K, -D, --trace...): only `-o /dev/null` is allowed.
   */
  http(options: { server: UdpEndpoint; client: string; curl: readonly string[]; lingerMs?: number }): this {
    this.requireNs(options.server.ns);
    this.requireNs(options.client);
    options.curl.forEach((word, i) => {
      if (CURL_FILE_OPTIONS.test(word) && !(word === '-o' && options.curl[i + 1] === '/dev/null'))
        throw new Error(`scenario ${this.name}: curl ${word} reads or writes a file`);
    });
    return this.step({
      kind: 'http',
      server: options.server,
      client: { ns: options.client, argv: ['curl', ...options.curl] },
      lingerMs: options.lingerMs ?? 300,
    });
  }

  /** A local-ports step; see TrafficStep. */
  ports(options: {
    readonly client: string;
    readonly server?: { readonly ns: string; readonly ports: readonly number[] };
    readonly range?: readonly [number, number];
    readonly actions: readonly PortsAction[];
  }): this {
    this.requireNs(options.client);
    if (options.server !== undefined) this.requireNs(options.server.ns);
    for (const action of options.actions)
      if (action.kind === 'sysctl' && !/^net\.ipv4\.[a-z_]+$/.test(action.key))
        throw new Error(`scenario ${this.name}: a ports step writes net.ipv4.* keys only, not ${action.key}`);
    return this.step({
      kind: 'ports',
      client: options.client,
      server: options.server,
      range: options.range ?? [32768, 60999],
      actions: options.actions,
    });
  }

  /** Crafted frames sent on `iface` of `ns`; see TrafficStep. The bytes are copied. */
  frames(ns: string, iface: string, frames: readonly Uint8Array[]): this {
    this.requireNs(ns);
    if (frames.length === 0 || frames.length > MAX_CRAFTED_FRAMES)
      throw new Error(
        `scenario ${this.name}: 1 to ${MAX_CRAFTED_FRAMES} crafted frames, not ${frames.length}`,
      );
    return this.step({
      kind: 'frames',
      ns,
      iface: this.checkIfname(iface),
      frames: frames.map((frame) => frame.slice()),
    });
  }

  wait(ms: number): this {
    return this.step({ kind: 'wait', ms });
  }

  /** A command run after the traffic whose output is compared (`ip route`, `ip neigh`, `iptables-save -c`). */
  observe(ns: string, ...argv: string[]): this {
    this.observations.push(this.checked({ ns, argv }));
    return this;
  }

  /** A command that runs in the background during the traffic (`nft monitor trace`); its output is compared. */
  monitor(ns: string, ...argv: string[]): this {
    const nftMonitor = argv[0] === 'nft' && argv[1] === 'monitor';
    const conntrackEvents = argv[0] === 'conntrack' && argv[1] === '-E';
    if (!nftMonitor && !conntrackEvents)
      throw new Error(`scenario ${this.name}: only nft monitor and conntrack -E run in the background`);
    this.monitors.push(this.checked({ ns, argv }));
    return this;
  }

  /**
   * `scenario` with more commands observed after its own, each checked as `observe()` checks it (its namespace, its
   * program, the sandbox rule): what `packetlab verify --observe` adds to a plan.
   */
  static observing(scenario: Scenario, commands: readonly Command[]): Scenario {
    const checker = new ScenarioBuilder(scenario.name);
    checker.namespaces.push(...scenario.namespaces);
    const added = commands.map((command) => checker.checked(command));
    return deepFreeze({ ...scenario, observe: [...scenario.observe, ...added] });
  }

  build(): Scenario {
    return deepFreeze({
      name: this.name,
      namespaces: [...this.namespaces],
      segments: [...this.segments].map(([name, spec]) => ({ name, mtu: spec.mtu, ports: [...spec.ports] })),
      setup: [...this.setup],
      captures: [...this.captures],
      traffic: [...this.traffic],
      observe: [...this.observations],
      monitors: [...this.monitors],
    });
  }

  private step(step: TrafficStep): this {
    this.traffic.push(step);
    return this;
  }

  private requireNs(ns: string): void {
    if (!this.namespaces.includes(ns)) throw new Error(`no namespace ${ns} in scenario ${this.name}`);
  }

  private checkIfname(name: string): string {
    if (!IFNAME.test(name)) throw new Error(`bad interface name ${name}`);
    return name;
  }

  /** Checks the program and that namespaces are named only by namespace words (the sandbox rule). */
  private checked(command: Command): Command {
    this.requireNs(command.ns);
    const [program] = command.argv;
    if (typeof program !== 'string' || !(ALLOWED_PROGRAMS as readonly string[]).includes(program))
      throw new Error(`scenario ${this.name}: program ${String(program)} is not allowed`);
    command.argv.forEach((word, i) => {
      if (typeof word !== 'string') {
        if ('ns' in word) this.requireNs(word.ns);
        return;
      }
      if (program === 'ss' && i > 0 && ssLeavesSandbox(word))
        throw new Error(`scenario ${this.name}: ss ${word} reaches outside the scenario`);
      if (program === 'tc' && i > 0 && tcLeavesSandbox(word))
        throw new Error(`scenario ${this.name}: tc ${word} reaches outside the scenario`);
      if (program !== 'ip' || i === 0) return;
      // `ip netns ...` and `ip -n NS` could reach any namespace; `netns NAME` must be a { ns } word.
      const previous = command.argv[i - 1];
      if (
        word === 'netns' &&
        command.argv.slice(1, i).every((w) => typeof w === 'string' && w.startsWith('-'))
      )
        throw new Error(`scenario ${this.name}: \`ip netns\` is not allowed`);
      if (previous === 'netns' || (i === 2 && /^--?n(etns?)?$/.test(String(previous))))
        throw new Error(`scenario ${this.name}: name namespaces with { ns } words, not "${word}"`);
    });
    return command;
  }

  /** 02:70:6c:NN:NN:NN ("pl"), numbered in creation order: stable, unicast, locally administered. */
  private allocateMac(ns: string, dev: string): string {
    const key = `${ns}/${dev}`;
    if (this.macs.has(key)) throw new Error(`device ${dev} twice in ${ns}`);
    const n = this.macs.size + 1;
    const mac = `02:70:6c:${hex((n >> 16) & 0xff)}:${hex((n >> 8) & 0xff)}:${hex(n & 0xff)}`;
    this.macs.set(key, mac);
    return mac;
  }
}

/**
 * ss options that act outside the scenario's namespace or files: -N/--net (another namespace),
 * -K/--kill (closes sockets), -D/--diag (writes a file), -F/--filter (reads one).
 */
function ssLeavesSandbox(word: string): boolean {
  if (word.startsWith('--')) {
    const name = word.slice(2).split('=')[0]!;
    return name !== '' && ['net', 'kill', 'diag', 'filter'].some((long) => long.startsWith(name));
  }
  return word.startsWith('-') && /[NKDF]/.test(word.slice(1));
}

/** tc's -n[etns] (another namespace) and -b[atch] / -cf / -conf (files) leave the sandbox. */
function tcLeavesSandbox(word: string): boolean {
  if (!word.startsWith('-') || word.length < 2) return false;
  const name = word.replace(/^--?/, '');
  return ['netns', 'batch', 'cf', 'conf'].some((long) => long.startsWith(name)) || name === 'force';
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, '0');
}

function deepFreeze<T>(value: T): T {
  // A typed array with elements cannot be frozen; crafted frames are copies the builder owns.
  if (ArrayBuffer.isView(value)) return value;
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
