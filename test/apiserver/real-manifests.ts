// The real applications' manifests the tests apply (test/fixtures/real-manifests), and what their
// projects do to them before applying: shared by the API server's tests, the gate's and plan's.

import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {parseAllDocuments} from 'yaml'

/** The 20 real applications' manifests (README.md there names their sources). */
export const REAL_MANIFESTS = join(import.meta.dirname, '../fixtures/real-manifests')

/** The kustomize base has no selector until kustomize adds one: an API server refuses it as is. */
export const REFUSED = 'metrics-server-base-deployment.yaml'

/** coredns's deploy.sh renders its template with sed before applying it; the values it defaults to. */
export function renderCoreDns(text: string): string {
  return text
    .replaceAll('CLUSTER_DNS_IP', '10.96.0.10')
    .replaceAll('CLUSTER_DOMAIN', 'cluster.local')
    .replaceAll('REVERSE_CIDRS', 'in-addr.arpa ip6.arpa')
    .replaceAll('UPSTREAMNAMESERVER', '/etc/resolv.conf')
    .replaceAll('STUBDOMAINS', '')
}

type Meta = {kind?: string; metadata?: {name?: string; namespace?: string}} | null

/** The objects of a manifest file (null for an empty document). */
export function objectsOf(text: string): Meta[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Meta)
}

/** The namespace to apply a file into: none when its objects name theirs, else one named after it. */
export function namespaceFor(file: string, objects: Meta[]): string | undefined {
  if (objects.some((o) => o?.metadata?.namespace)) return undefined
  return file.replace(/\.yaml$/, '').replace(/[^a-z0-9-]/g, '-')
}

/** The Deployments of a manifest file's objects, as namespace/name. */
export function deploymentsOf(objects: Meta[], namespace: string | undefined): string[] {
  return objects
    .filter((o) => o?.kind === 'Deployment')
    .map((o) => `${o?.metadata?.namespace ?? namespace ?? 'default'}/${o?.metadata?.name}`)
}

export interface RealApp {
  file: string
  /** As its project applies it (coredns rendered). */
  text: string
  /** Its objects, parsed once (argocd's 2 MB take a while): null for an empty document. */
  objects: Meta[]
  /**
   * The namespace to `kubectl apply -n` it into, as one installs an application: none when its
   * objects name theirs (guestbook and microservices-demo both define a Deployment "frontend").
   */
  namespace: string | undefined
}

/** Every file an API server takes (all but REFUSED), ready to apply. */
export function realApps(): RealApp[] {
  return readdirSync(REAL_MANIFESTS)
    .filter((f) => f.endsWith('.yaml') && f !== REFUSED)
    .sort()
    .map((file) => {
      let text = readFileSync(join(REAL_MANIFESTS, file), 'utf8')
      if (file === 'coredns.yaml.sed.yaml') text = renderCoreDns(text)
      const objects = objectsOf(text)
      return {file, text, objects, namespace: namespaceFor(file, objects)}
    })
}

/** Kinds the real manifests hold that have no namespace. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'IngressClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'PriorityClass',
  'StorageClass',
])

/**
 * The cluster-scoped objects a file creates (Kind/name). Two files that share one (ingress-nginx's
 * baremetal and cloud variants share their webhook, ClusterRole and IngressClass) must not be applied
 * at once: each kubectl apply sees the object missing and creates it, and one gets AlreadyExists, on
 * the test API server as on a real one.
 */
export function clusterScopedOf(app: Pick<RealApp, 'objects'>): string[] {
  return app.objects.flatMap((o) =>
    o?.kind && CLUSTER_SCOPED.has(o.kind) && o.metadata?.name ? [`${o.kind}/${o.metadata.name}`] : [],
  )
}

/**
 * Runs `apply` for every app at once, but an app that shares a cluster-scoped object with an earlier
 * one only once that one's `apply` is done.
 */
export function applyEach<A extends Pick<RealApp, 'objects'>>(
  apps: A[],
  apply: (app: A) => Promise<void>,
): Promise<void> {
  const last = new Map<string, Promise<unknown>>()
  const all = Promise.all(
    apps.map((app) => {
      const keys = clusterScopedOf(app)
      const before = keys.flatMap((k) => {
        const p = last.get(k)
        return p ? [p] : []
      })
      const done = Promise.allSettled(before).then(() => apply(app))
      for (const k of keys) last.set(k, done)
      return done
    }),
  )
  return all.then(() => undefined)
}
