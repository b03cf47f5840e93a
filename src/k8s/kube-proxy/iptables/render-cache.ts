// Renders each distinct node view once: nodes whose views differ only where kube-proxy's iptables text cannot
// (node name and addresses, local endpoints of Cluster-policy Services) get the text already rendered for another
// node. The key is the view's node-dependent part; the Services and EndpointSlices must be the same objects (views
// are snapshots of the store, whose objects are replaced, never edited). Does not bound itself beyond MAX_ENTRIES.

import type { EndpointSlice, Service } from '../../objects.ts';
import { SERVICE_NAME_LABEL } from '../../objects.ts';
import type { ProxierView } from '../proxier.ts';
import type { RenderedRuleset } from './ruleset.ts';

/** Distinct node views kept; one per node in a cluster with a Local Service on every node. */
const MAX_ENTRIES = 256;

interface Entry {
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
  readonly rendered: RenderedRuleset;
}

function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function usesLocalPolicy(service: Service): boolean {
  return service.spec.externalTrafficPolicy === 'Local' || service.spec.internalTrafficPolicy === 'Local';
}

/**
 * What of `view` (beyond its Services and slices) can change the text: the CIDR and mark; the node's first address
 * when a Service has loadBalancerSourceRanges (renderRuleset's allowFromNode); which endpoints of a Service with a
 * Local policy are on this node (categorizeEndpoints' localEndpoints, the only use of isLocal); the nat chains
 * the node already has (the `-X` of stale service chains).
 */
export function viewFingerprint(view: ProxierView, existingNatChains: ReadonlySet<string>): string {
  const parts: string[] = [view.clusterCidr, `${view.masqueradeBit}`];
  const localPolicy = new Set<string>();
  let sourceRanges = false;
  for (const service of view.services) {
    if (service.spec.loadBalancerSourceRanges.length > 0) sourceRanges = true;
    if (usesLocalPolicy(service)) localPolicy.add(`${service.metadata.namespace}/${service.metadata.name}`);
  }
  parts.push(sourceRanges ? (view.nodeIps[0] ?? '') : '*');
  view.endpointSlices.forEach((slice, s) => {
    const owner = `${slice.metadata.namespace}/${slice.metadata.labels[SERVICE_NAME_LABEL] ?? ''}`;
    if (!localPolicy.has(owner)) return;
    slice.endpoints.forEach((endpoint, e) => {
      if (endpoint.nodeName !== '' && endpoint.nodeName === view.nodeName) parts.push(`${s}.${e}`);
    });
  });
  parts.push('|', ...[...existingNatChains].sort());
  return parts.join(' ');
}

export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  hits = 0;
  misses = 0;

  /** The cached rendering of `view`, or `render()`'s, remembered. */
  get(
    view: ProxierView,
    existingNatChains: ReadonlySet<string>,
    render: () => RenderedRuleset,
  ): RenderedRuleset {
    const key = viewFingerprint(view, existingNatChains);
    const entry = this.entries.get(key);
    if (
      entry !== undefined &&
      sameObjects(entry.services, view.services) &&
      sameObjects(entry.endpointSlices, view.endpointSlices)
    ) {
      this.hits++;
      return entry.rendered;
    }
    this.misses++;
    const rendered = render();
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, {
      services: [...view.services],
      endpointSlices: [...view.endpointSlices],
      rendered,
    });
    return rendered;
  }

  /** Forgets every rendering (their Services or slices changed). */
  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
