// The two kinds of world `packetlab shell` opens: a kind cluster seen from the machine that runs it (`docker exec`,
// `kubectl`, the host's own tools; `docker exec -it NODE bash` and `kubectl exec -it POD -- sh` enter a node or a
// pod), and plain namespaces of a simulation reached with `ip netns exec NAME` (or entered with `... bash`).
// Not modelled: sudo, ssh, containers other than the nodes, a host namespace in a namespaces-only lab.

import type { Cluster } from '../k8s/cluster.ts';
import { isNodeProgram } from '../k8s/commands/node-programs.ts';
import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import { exec, isCommand, spawn } from '../tools/exec.ts';
import { fail } from '../tools/result.ts';
import type { ShellLevel, ShellWorld } from './shell-session.ts';

const SHELLS = ['bash', 'sh', 'ash'];

/** `-i`, `-t`, `-it`, `-ti`, `--stdin`, `--interactive`, `--tty`: the flags that make an exec interactive. */
function isInteractiveFlag(word: string): boolean {
  return /^-[it]+$/.test(word) || ['--interactive', '--stdin', '--tty'].includes(word);
}

/** `docker exec -it NODE bash` → NODE; undefined for any other line. */
function dockerShellTarget(words: readonly string[]): string | undefined {
  if (words[0] !== 'docker' || words[1] !== 'exec') return undefined;
  const flags = words.slice(2, -2);
  const [target, program] = words.slice(-2);
  if (words.length < 5 || !flags.every(isInteractiveFlag) || !flags.some((f) => f.includes('i')))
    return undefined;
  return SHELLS.includes(program!) ? target : undefined;
}

/** `kubectl exec -it POD -- sh` → POD; undefined for any other line. */
function kubectlShellTarget(words: readonly string[]): string | undefined {
  if (words[0] !== 'kubectl' || words[1] !== 'exec') return undefined;
  const dash = words.indexOf('--');
  if (dash < 0 || dash !== words.length - 2 || !SHELLS.includes(words.at(-1)!)) return undefined;
  const before = words.slice(2, dash);
  const flags = before.filter((word) => word.startsWith('-'));
  const names = before.filter((word) => !word.startsWith('-'));
  if (
    names.length !== 1 ||
    !flags.every(isInteractiveFlag) ||
    !flags.some((f) => /i|stdin|interactive/.test(f))
  )
    return undefined;
  return names[0];
}

/** The formation-style cluster as its user sees it from the kind host, the Docker host `c.outside`. */
export function clusterWorld(c: Cluster, banner: string): ShellWorld {
  const nodeLevel = (node: string): ShellLevel => ({
    prompt: `root@${node}:/# `,
    knows: isNodeProgram,
    exec: (line) => c.exec(`docker exec ${node} ${line}`),
    spawn: (line) => c.spawn(`docker exec ${node} ${line}`),
    enter: () => undefined,
  });
  const podLevel = (pod: string): ShellLevel => ({
    prompt: `${pod}:/# `,
    knows: isCommand,
    exec: (line) => c.exec(`kubectl exec ${pod} -- ${line}`),
    spawn: (line) => c.spawn(`kubectl exec ${pod} -- ${line}`),
    enter: () => undefined,
  });
  const viaCluster = (line: string) => /^\s*(docker|kubectl)\s/.test(`${line} `);
  const top: ShellLevel = {
    prompt: '$ ',
    knows: (program) => program === 'docker' || program === 'kubectl' || isCommand(program),
    exec: (line) => (viaCluster(line) ? c.exec(line) : exec(c.outside, line)),
    spawn: (line) => (viaCluster(line) ? c.spawn(line) : spawn(c.outside, line)),
    enter: (words) => {
      const node = dockerShellTarget(words);
      if (node !== undefined && c.node(node) !== undefined) return nodeLevel(node);
      const pod = kubectlShellTarget(words);
      if (pod !== undefined && c.store.get('Pod', 'default', pod) !== undefined) return podLevel(pod);
      return undefined;
    },
  };
  const nodes = c.nodeList().map((node) => `${node.name} ${node.network.address}`);
  const pods = c.store
    .list('Pod', 'default')
    .map((pod) => `${pod.metadata.name} ${pod.status.podIP || '(no address)'} on ${pod.spec.nodeName}`);
  const services = c.store
    .list('Service', 'default')
    .filter((svc) => svc.metadata.name !== 'kubernetes')
    .map((svc) => `${svc.metadata.name} ${svc.spec.clusterIP}`);
  const help = [
    "Where commands run: the prompt $ is the machine that runs kind (the Docker host, the nodes' gateway).",
    '  docker exec NODE CMD      CMD on a node (ip, iptables, nft, conntrack, tcpdump, crictl, nsenter, ...)',
    '  docker exec -it NODE bash enter the node: later lines run there (prompt root@NODE:/#), exit to leave',
    '  kubectl ...               get, describe, exec, debug, logs, ... against the cluster',
    '  kubectl exec -it POD -- sh  enter the pod',
    '  ip, conntrack, curl, ping, tcpdump, ... alone run on the Docker host itself, not on a node:',
    "  conntrack -L there lists the host's table; a node's is `docker exec formation-worker conntrack -L`.",
    `Nodes: ${nodes.join(', ')}.`,
    `Pods: ${pods.join(', ')}.`,
    services.length === 0 ? '' : `Services: ${services.join(', ')}.`,
    '',
  ];
  const names = [
    ...c.nodeList().map((node) => node.name),
    ...c.store.list('Pod').map((pod) => pod.metadata.name),
    ...c.store.list('Service').map((svc) => svc.metadata.name),
  ];
  return {
    banner,
    help: help.filter((line, i) => line !== '' || i === help.length - 1).join('\n'),
    top,
    sim: c.sim,
    names,
  };
}

/** Namespaces of a simulation, reached with `ip netns exec NAME CMD`; there is no host namespace of its own. */
export function namespacesWorld(sim: Simulation, banner: string): ShellWorld {
  const any = (): Namespace => sim.allNamespaces()[0]!;
  const nsLevel = (ns: Namespace): ShellLevel => ({
    prompt: `root@${ns.name}:/# `,
    knows: isCommand,
    exec: (line) => exec(ns, line),
    spawn: (line) => spawn(ns, line),
    enter: () => undefined,
  });
  // `ip netns ...` and `ip -n NS ...` name their namespace; anything else would need a host namespace.
  const named = (line: string) => /^\s*ip\s+(netns|-n|-netns)\b/.test(line);
  const noHost = (line: string) =>
    fail(`packetlab: this lab has no host namespace: run it in one, ip netns exec NAME ${line.trim()}\n`);
  const top: ShellLevel = {
    prompt: '# ',
    knows: isCommand,
    exec: (line) => (named(line) ? exec(any(), line) : noHost(line)),
    spawn: (line) => {
      const inside = /^\s*ip\s+netns\s+exec\s+(\S+)\s+(.*)$/.exec(line);
      if (inside === null) return noHost(line);
      const name = inside[1]!;
      const command = inside[2]!;
      if (!sim.hasNamespace(name))
        return fail(`Cannot open network namespace "${name}": No such file or directory\n`, 255);
      return spawn(sim.namespace(name), command);
    },
    enter: (words) => {
      const [ip, netns, verb, name, program, ...rest] = words;
      if (ip !== 'ip' || netns !== 'netns' || verb !== 'exec' || name === undefined) return undefined;
      if (program === undefined || !SHELLS.includes(program) || rest.length > 0 || !sim.hasNamespace(name))
        return undefined;
      return nsLevel(sim.namespace(name));
    },
  };
  const names = sim.allNamespaces().map((ns) => ns.name);
  const help = [
    'Where commands run: the prompt # has no namespace of its own; every command names one:',
    '  ip netns exec NAME CMD     CMD in namespace NAME (ip netns list names them)',
    '  ip netns exec NAME bash    enter it: later lines run there (prompt root@NAME:/#), exit to leave',
    `Namespaces: ${names.join(', ')}.`,
    '',
  ];
  return { banner, help: help.join('\n'), top, sim, names };
}
