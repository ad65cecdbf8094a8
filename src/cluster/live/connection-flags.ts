// The connection flags' names and values, apart from the code that connects: shell completion
// (src/completion) needs the names before anything else loads, and imports nothing else.

/**
 * kubectl's ConfigFlags (k8s.io/cli-runtime genericclioptions): which kubeconfig, context, cluster
 * and user, and the cluster and credential fields that override the kubeconfig's.
 */
export interface ConnectionFlags {
  kubeconfig?: string
  context?: string
  cluster?: string
  user?: string
  namespace?: string
  'request-timeout'?: string
  server?: string
  'tls-server-name'?: string
  'certificate-authority'?: string
  'insecure-skip-tls-verify'?: boolean
  token?: string
  username?: string
  password?: string
  'client-certificate'?: string
  'client-key'?: string
  as?: string
  'as-group'?: string[]
  'as-uid'?: string
}

/** The names of ConnectionFlags, the same on every command that talks to a cluster. */
export const CONNECTION_FLAG_NAMES = [
  'kubeconfig',
  'context',
  'cluster',
  'user',
  'namespace',
  'request-timeout',
  'server',
  'tls-server-name',
  'certificate-authority',
  'insecure-skip-tls-verify',
  'token',
  'username',
  'password',
  'client-certificate',
  'client-key',
  'as',
  'as-group',
  'as-uid',
] as const satisfies ReadonlyArray<keyof ConnectionFlags>
