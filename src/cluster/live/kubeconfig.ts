// Kubeconfig resolution as kubectl does it, on top of client-node's KubeConfig (which does the
// parsing and every auth method: tokens, client certificates, exec plugins).

import {existsSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import type {KubeConfig} from '@kubernetes/client-node'
import {InputError, UsageError} from '../../errors.js'
import {parseDuration} from '../../util/duration.js'

export interface ConnectionFlags {
  kubeconfig?: string
  context?: string
  cluster?: string
  user?: string
  namespace?: string
  'request-timeout'?: string
  'insecure-skip-tls-verify'?: boolean
  as?: string
  'as-group'?: string[]
}

export interface Connection {
  kc: KubeConfig
  server: string
  /** -n, else the context's namespace, else "default" (kubectl's rule). */
  namespace: string
  /** 0 means no timeout, as kubectl's --request-timeout=0. */
  requestTimeoutMs: number
  impersonate?: {user?: string; groups: string[]}
  /** Built from the pod's service account (no kubeconfig was given). */
  inCluster?: boolean
}

/** kubectl's --request-timeout: a bare number is seconds; otherwise a Go duration (1m30s, 500ms). */
export function parseRequestTimeout(text: string): number {
  const ms = parseDuration(text, {bareSeconds: true})
  if (ms === undefined) {
    throw new UsageError(`invalid --request-timeout "${text}": want a duration such as 30s, 1m or 500ms`)
  }
  return Math.round(ms)
}

/** The connection flags out of a command's parsed flags (the same names on every command). */
export function connectionFlagsOf(flags: ConnectionFlags): ConnectionFlags {
  return {
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    cluster: flags.cluster,
    user: flags.user,
    namespace: flags.namespace,
    'request-timeout': flags['request-timeout'],
    'insecure-skip-tls-verify': flags['insecure-skip-tls-verify'],
    as: flags.as,
    'as-group': flags['as-group'],
  }
}

export async function connect(flags: ConnectionFlags): Promise<Connection> {
  const {KubeConfig} = await import('./kube.js')
  const kc = new KubeConfig()
  const files = kubeconfigFiles(flags.kubeconfig)
  if (files.length === 0 && !flags.context && !flags.cluster && !flags.user) {
    const inCluster = await import('./in-cluster.js')
    if (inCluster.inClusterPossible()) return inClusterConnection(kc, flags)
  }
  if (files.length === 0) {
    throw new InputError(
      'no kubeconfig found (looked at --kubeconfig, $KUBECONFIG and ~/.kube/config): point at a cluster, or read objects from files with -f FILE',
    )
  }
  try {
    kc.loadFromFile(files[0]!)
    for (const f of files.slice(1)) {
      const more = new KubeConfig()
      more.loadFromFile(f)
      // kubectl takes current-context from the first file that sets it.
      kc.mergeConfig(more, true)
    }
  } catch (err) {
    throw new InputError(`cannot load kubeconfig ${files.join(delimiter)}: ${firstLine(err)}`)
  }
  if (flags.context) {
    if (!kc.getContextObject(flags.context)) throw new InputError(`context "${flags.context}" does not exist`)
    kc.setCurrentContext(flags.context)
  }
  const ctxName = kc.getCurrentContext()
  const ctx = kc.getContextObject(ctxName)
  if (!ctx && !flags.cluster) {
    throw new InputError(
      'the kubeconfig has no current context: pass --context NAME or set one with kubectl config use-context',
    )
  }
  if (flags.cluster || flags.user) {
    if (flags.cluster && !kc.getCluster(flags.cluster))
      throw new InputError(`cluster "${flags.cluster}" does not exist`)
    if (flags.user && !kc.getUser(flags.user)) throw new InputError(`user "${flags.user}" does not exist`)
    const patched = {
      name: ctx?.name ?? 'deployctl-override',
      cluster: flags.cluster ?? ctx?.cluster ?? '',
      user: flags.user ?? ctx?.user ?? '',
      namespace: ctx?.namespace,
    }
    kc.contexts = [...kc.contexts.filter((c) => c.name !== patched.name), patched]
    kc.setCurrentContext(patched.name)
  }
  const cluster = kc.getCurrentCluster()
  if (!cluster)
    throw new InputError(`context "${kc.getCurrentContext()}" names no cluster that the kubeconfig defines`)
  // client-node refuses plain http unless TLS verification is off; kubectl accepts it (kubectl
  // proxy serves http), and TLS settings mean nothing there.
  const skip = flags['insecure-skip-tls-verify'] === true || cluster.server.startsWith('http:')
  if (skip && !cluster.skipTLSVerify) {
    kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? {...c, skipTLSVerify: true} : c))
  }
  if (!skip && !cluster.caData && !cluster.caFile) trustSystemCertificates()
  const namespace = flags.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default'
  return {
    kc,
    server: cluster.server.replace(/\/+$/, ''),
    namespace,
    requestTimeoutMs: flags['request-timeout'] ? parseRequestTimeout(flags['request-timeout']) : 0,
    impersonate:
      flags.as || flags['as-group']?.length ? {user: flags.as, groups: flags['as-group'] ?? []} : undefined,
  }
}

/**
 * The pod's service account, as kubectl and client-go use it when no kubeconfig is given.
 * `root` prefixes the service-account directory (tests).
 */
export async function inClusterConnection(
  kc: KubeConfig,
  flags: ConnectionFlags,
  root = '',
): Promise<Connection> {
  const {inClusterNamespace, loadInCluster} = await import('./in-cluster.js')
  try {
    loadInCluster(kc, root)
  } catch (err) {
    throw new InputError(`cannot load the in-cluster configuration: ${firstLine(err)}`)
  }
  const cluster = kc.getCurrentCluster()
  if (!cluster) throw new InputError('cannot load the in-cluster configuration')
  if (flags['insecure-skip-tls-verify']) {
    kc.clusters = kc.clusters.map((c) => ({...c, skipTLSVerify: true, caFile: undefined}))
  }
  return {
    kc,
    server: cluster.server.replace(/\/+$/, ''),
    namespace: flags.namespace ?? inClusterNamespace(process.env, root),
    requestTimeoutMs: flags['request-timeout'] ? parseRequestTimeout(flags['request-timeout']) : 0,
    impersonate:
      flags.as || flags['as-group']?.length ? {user: flags.as, groups: flags['as-group'] ?? []} : undefined,
    inCluster: true,
  }
}

/** --kubeconfig, else every existing file of $KUBECONFIG, else ~/.kube/config. */
function kubeconfigFiles(explicit: string | undefined): string[] {
  if (explicit) {
    if (!existsSync(explicit)) throw new InputError(`stat ${explicit}: no such file or directory`)
    return [explicit]
  }
  const env = process.env.KUBECONFIG
  if (env) return env.split(delimiter).filter((f) => f !== '' && existsSync(f))
  const home = process.env.HOME ?? process.env.USERPROFILE
  const def = home ? join(home, '.kube', 'config') : ''
  return def && existsSync(def) ? [def] : []
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''
}

let systemTrusted = false
/**
 * A cluster without certificate-authority(-data) is verified against the machine's trust store, as
 * kubectl (Go's crypto/x509) does. Node's default is only its bundled Mozilla list (plus
 * NODE_EXTRA_CA_CERTS), so an API server whose CA the OS trusts (a company CA, a distribution's
 * store) would fail here and work with kubectl. This is what `node --use-system-ca` does: the
 * default list plus the system's. Read once, and only when needed: ~45 ms on these machines.
 */
export function trustSystemCertificates(): void {
  if (systemTrusted) return
  systemTrusted = true
  // Loaded here, not at the top: file-mode commands import this module, and node:tls at start-up
  // would cost them, and cannot be in the executable's start-up snapshot (native bindings).
  const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls')
  // Node 22.19 and 24.5 have both calls; the engines range starts at 22.19, but be sure.
  if (typeof tls.setDefaultCACertificates !== 'function' || typeof tls.getCACertificates !== 'function')
    return
  const certs = new Set([...tls.getCACertificates('default'), ...tls.getCACertificates('system')])
  tls.setDefaultCACertificates([...certs])
}
