// packetlab's public API: build a simulation of namespaces and devices, drive it with commands, watch its packets.

export {
  type DnsServer,
  dnsServer,
  formatLoadReport,
  type HttpResult,
  type HttpRoute,
  type HttpServer,
  httpGet,
  httpRequest,
  httpServer,
  type LoadGenerator,
  type LoadReport,
  type LookupResult,
  loadGenerator,
  lookupHost,
  type ResolverOptions,
  type UdpEchoServer,
  udpEcho,
} from './app/index.ts';
export { attachPathTrace } from './capture/path-trace.ts';
export type { DropReason } from './core/drop-reason.ts';
export { Packet } from './core/packet.ts';
export { TraceBus } from './core/trace.ts';
export { Cluster, type ClusterOptions, cluster } from './k8s/cluster.ts';
export { Namespace } from './netns/namespace.ts';
export { Segment, type SegmentImpairments } from './netns/segment.ts';
export { Simulation, type SimulationOptions } from './netns/simulation.ts';
export type { TcpInfo, TcpTimerKind } from './socket/tcp/info.ts';
export type { TcpError, TcpSocket, TcpState } from './socket/tcp/socket.ts';
export type {
  BindResult,
  ConnectOptions,
  ConnectResult,
  ListenResult,
  ReuseOptions,
  TcpBinding,
  TcpListener,
} from './socket/tcp/table.ts';
export type { UdpDatagram } from './socket/udp.ts';
export { type Lab, type LabError, readLab, runLab } from './story/declarative.ts';
export { ShellSession, type ShellWorld } from './story/shell-session.ts';
export { clusterWorld, namespacesWorld } from './story/shell-worlds.ts';
export {
  checkLines,
  Story,
  type StoryCheck,
  type StoryResult,
  type StoryStep,
  transcript,
} from './story/story.ts';
export { type CommandResult, exec, execOrThrow, spawn } from './tools/exec.ts';
