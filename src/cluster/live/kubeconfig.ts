// Kubeconfig resolution as kubectl does it, on top of client-node's KubeConfig (which does the
// parsing and every auth method: tokens, client certificates, exec plugins).

import {accessSync, constants} from 'node:fs'
import type {Cluster, KubeConfig, User} from '@kubernetes/client-node'
import {InputError, UsageError} from '../../errors.js'
import {parseDuration} from '../../util/duration.js'
import {CONNECTION_FLAG_NAMES, type ConnectionFlags} from './connection-flags.js'
import {kubeconfigPrecedence, mergeKubeconfigs, readKubeconfigs} from './kubeconfig-files.js'

// Their home is a module of their own, which shell completion imports without the rest of this one.
export {CONNECTION_FLAG_NAMES, type ConnectionFlags} from './connection-flags.js'

export interface Connection {
  kc: KubeConfig
  server: string
  /** -n, else the context's namespace, else "default" (kubectl's rule). */
  namespace: string
  /** 0 means no timeout, as kubectl's --request-timeout=0. */
  requestTimeoutMs: number
  impersonate?: Impersonation
  /** Built from the pod's service account (no kubeconfig was given). */
  inCluster?: boolean
  /** The TLS files given by flags (--certificate-authority, ...), for errors that name their source. */
  flagFiles?: {
    'certificate-authority'?: string
    'client-certificate'?: string
    'client-key'?: string
  }
}

export interface Impersonation {
  user?: string
  uid?: string
  groups: string[]
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
  const out: Record<string, unknown> = {}
  for (const name of CONNECTION_FLAG_NAMES) out[name] = flags[name]
  return out as ConnectionFlags
}

/** The flags that carry credentials, which no request over plain http sends. */
const CREDENTIAL_FLAGS = ['token', 'username', 'password', 'client-certificate', 'client-key'] as const

/** Whether a flag names where the cluster is or who the user is (then no in-cluster fallback). */
function namesACluster(flags: ConnectionFlags): boolean {
  return !!(flags.context || flags.cluster || flags.user || flags.server)
}

/**
 * The connection the flags and kubeconfigs select. `warn` hears, once, what the connection leaves
 * out that the user asked for (credentials given by flag are not sent over plain http).
 */
export async function connect(
  flags: ConnectionFlags,
  warn: (line: string) => void = () => {},
): Promise<Connection> {
  const {KubeConfig} = await import('./kube.js')
  const kc = new KubeConfig()
  const files = kubeconfigPrecedence(flags.kubeconfig)
  // Every file is parsed by client-node (every auth method, paths made absolute against the file's
  // folder), then merged as clientcmd merges them.
  const configs = readKubeconfigs(files, (file) => {
    const one = new KubeConfig()
    one.loadFromFile(file)
    return one
  })
  if (configs.length === 0 && !namesACluster(flags)) {
    const inCluster = await import('./in-cluster.js')
    if (inCluster.inClusterPossible()) return inClusterConnection(kc, flags)
  }
  // kubectl needs no kubeconfig when --server says where the cluster is.
  if (configs.length === 0 && !flags.server) {
    throw new InputError(
      'no kubeconfig found (looked at --kubeconfig, $KUBECONFIG and ~/.kube/config): point at a cluster with --kubeconfig or --server, or read objects from files with -f FILE',
    )
  }
  const merged = mergeKubeconfigs(configs)
  kc.loadFromOptions({
    clusters: merged.clusters,
    users: merged.users,
    contexts: merged.contexts,
    currentContext: merged.currentContext ?? '',
  })
  applyOverrides(kc, flags)
  const cluster = kc.getCurrentCluster()!
  const withheld = CREDENTIAL_FLAGS.filter((f) => flags[f])
  if (cluster.server.startsWith('http:') && withheld.length > 0) {
    // kubectl withholds them silently, and the user sees only the server's "Unauthorized".
    warn(
      `Warning: ${withheld.map((f) => `--${f}`).join(', ')} ${withheld.length === 1 ? 'was' : 'were'} not sent: the server ${cluster.server} is plain HTTP, and credentials go only over HTTPS (as kubectl does)`,
    )
  }
  // client-node refuses plain http unless TLS verification is off; kubectl accepts it (kubectl
  // proxy serves http), and TLS settings mean nothing there.
  const skip = cluster.skipTLSVerify || cluster.server.startsWith('http:')
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
    impersonate: impersonation(flags),
    flagFiles: {
      'certificate-authority': flags['certificate-authority'],
      'client-certificate': flags['client-certificate'],
      'client-key': flags['client-key'],
    },
  }
}

/**
 * The context, cluster and user the flags select, with the flags' fields over the kubeconfig's,
 * made kc's current context. upstream: clientcmd DirectClientConfig getContext, getCluster,
 * getAuthInfo and ConfirmUsable (validateClusterInfo, validateAuthInfo).
 */
function applyOverrides(kc: KubeConfig, flags: ConnectionFlags): void {
  if (flags.context && !kc.getContextObject(flags.context)) {
    throw new InputError(`context "${flags.context}" does not exist`)
  }
  const ctx = kc.getContextObject(flags.context || kc.getCurrentContext())
  if (!ctx && !flags.cluster && !flags.server) {
    throw new InputError(
      'the kubeconfig has no current context: pass --context NAME or set one with kubectl config use-context',
    )
  }
  if (flags.cluster && !kc.getCluster(flags.cluster))
    throw new InputError(`cluster "${flags.cluster}" does not exist`)
  if (flags.user && !kc.getUser(flags.user)) throw new InputError(`user "${flags.user}" does not exist`)
  const clusterName = flags.cluster || ctx?.cluster || ''
  const userName = flags.user || ctx?.user || ''
  const base = kc.getCluster(clusterName)
  const clusterLabel = clusterName || '(the cluster of the command line)'
  if (!base && !flags.server) {
    throw new InputError(`context "${ctx?.name ?? ''}" names no cluster that the kubeconfig defines`)
  }

  let cluster: Cluster = {...(base ?? {name: clusterName, server: '', skipTLSVerify: false})}
  if (flags.server) cluster = {...cluster, server: flags.server}
  // --insecure-skip-tls-verify drops the kubeconfig's CA, and --certificate-authority its CA data
  // and its insecure-skip-tls-verify.
  if (flags['insecure-skip-tls-verify'] || flags['certificate-authority']) {
    cluster = {
      ...cluster,
      skipTLSVerify: flags['insecure-skip-tls-verify'] === true,
      caFile: flags['certificate-authority'] || undefined,
      caData: undefined,
    }
  }
  // --server clears the kubeconfig's tls-server-name: it named the kubeconfig's server.
  if (flags['tls-server-name'] || flags.server) {
    cluster = {...cluster, tlsServerName: flags['tls-server-name'] || undefined}
  }
  if (cluster.server === '')
    throw new InputError(`invalid configuration: cluster ${clusterLabel} has no server`)
  cluster = {...cluster, server: serverURL(cluster.server)}
  if (cluster.skipTLSVerify && (cluster.caFile || cluster.caData) && !cluster.server.startsWith('http:')) {
    throw new InputError(
      'invalid configuration: specifying a root certificates file with the insecure flag is not allowed',
    )
  }
  if (cluster.caFile) readable(cluster.caFile, `certificate-authority ${cluster.caFile} for ${clusterLabel}`)

  let user: User = {...(kc.getUser(userName) ?? {name: userName})}
  if (flags.token) user = {...user, token: flags.token}
  if (flags.username) user = {...user, username: flags.username}
  if (flags.password) user = {...user, password: flags.password}
  if (flags['client-certificate'])
    user = {...user, certFile: flags['client-certificate'], certData: undefined}
  if (flags['client-key']) user = {...user, keyFile: flags['client-key'], keyData: undefined}
  checkUser(user)
  // A token, basic auth or a client certificate, from a flag or the kubeconfig user itself, is used
  // as given: no exec plugin or auth provider runs (upstream: exec Authenticator's
  // UpdateTransportConfig returns early when the config has token, basic or certificate auth).
  if (user.token || user.username || user.password || user.certFile || user.certData) {
    user = {...user, exec: undefined, authProvider: undefined}
  }
  // upstream: ClientConfig reads the user's credentials only for a TLS transport: over plain http
  // (kubectl proxy) no token, password, certificate or plugin is sent; impersonation still is.
  if (cluster.server.startsWith('http:')) user = {name: user.name, impersonateUser: user.impersonateUser}

  const context = {name: ctx?.name ?? '', cluster: cluster.name, user: user.name, namespace: ctx?.namespace}
  kc.clusters = [...kc.clusters.filter((c) => c.name !== cluster.name), cluster]
  kc.users = [...kc.users.filter((u) => u.name !== user.name), user]
  kc.contexts = [...kc.contexts.filter((c) => c.name !== context.name), context]
  kc.setCurrentContext(context.name)
}

/**
 * A server given as host:port is http://host:port, as kubectl reads it: clientcmd asks whether the
 * config is TLS (rest.IsConfigTransportTLS, rest.DefaultServerURL) before it adds the cluster's
 * CA and insecure-skip-tls-verify, so a server without a scheme is plain http even with them.
 * upstream: clientcmd DirectClientConfig.ClientConfig.
 */
function serverURL(server: string): string {
  const url = URL.canParse(server) && new URL(server).host !== '' ? server : `http://${server}`
  if (!URL.canParse(url)) {
    throw new InputError(`invalid configuration: host must be a URL or a host:port pair: "${server}"`)
  }
  return url
}

/** upstream: validateAuthInfo — one way to authenticate, a key with a certificate, files readable. */
function checkUser(user: User): void {
  const name = user.name || '(the user of the command line)'
  const methods = [...(user.token ? ['token'] : []), ...(user.username || user.password ? ['basicAuth'] : [])]
  if (methods.length > 1) {
    throw new InputError(
      `invalid configuration: more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`,
    )
  }
  if (user.certFile || user.certData) {
    if (!user.keyFile && !user.keyData) {
      throw new InputError(
        `invalid configuration: client-key-data or client-key must be specified for ${name} to use the clientCert authentication method`,
      )
    }
    if (user.certFile) readable(user.certFile, `client-cert ${user.certFile} for ${name}`)
    if (user.keyFile) readable(user.keyFile, `client-key ${user.keyFile} for ${name}`)
  }
}

function readable(path: string, what: string): void {
  try {
    accessSync(path, constants.R_OK)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : `error ${code}`
    throw new InputError(`invalid configuration: unable to read ${what}: ${why}`)
  }
}

/** --as, --as-group, --as-uid; groups or a uid without a user is refused, as client-go does. */
function impersonation(flags: ConnectionFlags): Impersonation | undefined {
  const groups = flags['as-group'] ?? []
  if (!flags.as && !flags['as-uid'] && groups.length === 0) return undefined
  if (!flags.as) {
    throw new InputError('requesting uid or groups without impersonating a user: add --as USER')
  }
  return {user: flags.as, uid: flags['as-uid'] || undefined, groups}
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
  const loaded = kc.getCurrentCluster()
  if (!loaded) throw new InputError('cannot load the in-cluster configuration')
  // upstream: inClusterClientConfig.ClientConfig — only a server, a token and a CA file override it.
  kc.clusters = kc.clusters.map((c) => ({
    ...c,
    server: flags.server ? serverURL(flags.server) : c.server,
    caFile: flags['certificate-authority'] || (flags['insecure-skip-tls-verify'] ? undefined : c.caFile),
    skipTLSVerify: c.skipTLSVerify || flags['insecure-skip-tls-verify'] === true,
  }))
  if (flags.token) kc.users = kc.users.map((u) => ({...u, token: flags.token, authProvider: undefined}))
  const cluster = kc.getCurrentCluster()!
  return {
    kc,
    server: cluster.server.replace(/\/+$/, ''),
    namespace: flags.namespace ?? inClusterNamespace(process.env, root),
    requestTimeoutMs: flags['request-timeout'] ? parseRequestTimeout(flags['request-timeout']) : 0,
    impersonate: impersonation(flags),
    inCluster: true,
  }
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
