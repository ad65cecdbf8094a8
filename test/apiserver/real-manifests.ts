// The real applications' manifests the tests apply (test/fixtures/real-manifests), and what their
// projects do to them before applying: shared by the API server's tests and the gate's.

import {join} from 'node:path'

/** The 20 real applications' manifests (README.md there names their sources). */
export const REAL_MANIFESTS = join(import.meta.dirname, '../fixtures/real-manifests')

/** coredns's deploy.sh renders its template with sed before applying it; the values it defaults to. */
export function renderCoreDns(text: string): string {
  return text
    .replaceAll('CLUSTER_DNS_IP', '10.96.0.10')
    .replaceAll('CLUSTER_DOMAIN', 'cluster.local')
    .replaceAll('REVERSE_CIDRS', 'in-addr.arpa ip6.arpa')
    .replaceAll('UPSTREAMNAMESERVER', '/etc/resolv.conf')
    .replaceAll('STUBDOMAINS', '')
}
