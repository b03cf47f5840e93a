// The public face of kube-proxy's iptables mode: the proxier, the ruleset renderer and what it builds on, and the
// hashed chain names (shared with the nftables mode's hashAndTruncate).

export * from '../names.ts';
export { firstSyncCommands, IptablesProxier, KIND_PROXIER_OPTIONS } from './proxier.ts';
export {
  INVALID_DROPPED_COUNTER,
  isServiceChainName,
  LOCALHOST_NODEPORT_COUNTER,
  masqueradeMarkOf,
  probability,
  type RenderedRuleset,
  type RulesetOptions,
  renderRuleset,
} from './ruleset.ts';
export {
  type CategorizedEndpoints,
  categorizeEndpoints,
  type EndpointInfo,
  endpointsOf,
  type ServicePortInfo,
  servicePorts,
  usesClusterEndpoints,
  usesLocalEndpoints,
} from './service-ports.ts';
