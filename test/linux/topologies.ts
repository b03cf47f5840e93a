// The shared topologies live in src/harness/topologies.ts (`packetlab verify` builds its plans with them); the cases
// keep importing them from here, with the one that needs a scenario's Service.

import { type ServiceSpec, SIGNALEMENTS } from '../../scenarios/kube-proxy-iptables.ts';

export * from '../../src/harness/topologies.ts';

/** The lesson's TCP Service with only its endpoint on w2 (10.244.2.7:8000), so the kernel's random pick cannot differ. */
export const REMOTE_ENDPOINT_SERVICE: ServiceSpec = {
  ...SIGNALEMENTS,
  nodePort: undefined,
  endpoints: ['10.244.2.7:8000'],
};
