// The service-account configuration of a process running in a pod, as client-go's
// rest.InClusterConfig and clientcmd's inClusterClientConfig find it: KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT set, and the service account's token mounted. kubectl and client-go fall
// back to it when no kubeconfig is given; client-node's loadFromCluster builds the config (CA,
// a token file it re-reads as the kubelet rotates it).

import {existsSync, readFileSync} from 'node:fs'
import type {KubeConfig} from '@kubernetes/client-node'

export const SERVICEACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount'

/**
 * upstream: inClusterClientConfig.Possible — the service environment variables are set and the
 * token file exists. `root` prefixes the service-account directory (tests).
 */
export function inClusterPossible(env: NodeJS.ProcessEnv = process.env, root = ''): boolean {
  return (
    !!env.KUBERNETES_SERVICE_HOST &&
    !!env.KUBERNETES_SERVICE_PORT &&
    existsSync(`${root}${SERVICEACCOUNT_DIR}/token`)
  )
}

/**
 * upstream: inClusterClientConfig.Namespace — $POD_NAMESPACE, else the service account's namespace
 * file, else "default".
 */
export function inClusterNamespace(env: NodeJS.ProcessEnv = process.env, root = ''): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE
  try {
    const ns = readFileSync(`${root}${SERVICEACCOUNT_DIR}/namespace`, 'utf8').trim()
    if (ns) return ns
  } catch {
    // no namespace file: default
  }
  return 'default'
}

/** Loads the in-cluster config into kc (client-node's loadFromCluster). */
export function loadInCluster(kc: KubeConfig, root = ''): void {
  kc.loadFromCluster(root)
}
