// The Kubernetes minor whose kube-controller-manager the port imitates. What moves with it: the
// types the pod-template-hash walks (util/hash-types/), the feature-gate defaults (features.ts) and
// what an API server of that minor clears or refuses in a pod template (src/cluster/validation).

export const SUPPORTED_MINORS = [33, 34, 35, 36, 37] as const
export type KubeMinor = (typeof SUPPORTED_MINORS)[number]

/** The newest supported minor: what file mode assumes when --kube-version is not given. */
export const NEWEST_MINOR: KubeMinor = 37

/** "v1.35" */
export function kubeVersionString(minor: KubeMinor): string {
  return `v1.${minor}`
}

/** A --kube-version value that is not MAJOR.MINOR: a usage error (exit code 2; see src/errors.ts). */
export class KubeVersionError extends Error {
  readonly exitCode = 2
}

export interface ResolvedKubeVersion {
  minor: KubeMinor
  /** One line for stderr when the version asked for is outside 1.33-1.37 and the nearest is used. */
  warning?: string
}

/**
 * The minor of a version string: "1.35", "v1.35", or a server's gitVersion ("v1.35.2-gke.1200",
 * "v1.33.0+k3s1"). `where` names the source in messages ("--kube-version", "the server's /version").
 */
export function resolveKubeVersion(text: string, where: string): ResolvedKubeVersion {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?$/.exec(text.trim())
  if (!m)
    throw new KubeVersionError(
      `${where}: expected MAJOR.MINOR (for example 1.35), got ${JSON.stringify(text)}`,
    )
  const major = Number(m[1])
  const minor = Number(m[2])
  if ((SUPPORTED_MINORS as readonly number[]).includes(minor) && major === 1)
    return {minor: minor as KubeMinor}
  const first = SUPPORTED_MINORS[0]
  const last = SUPPORTED_MINORS[SUPPORTED_MINORS.length - 1]!
  const nearest: KubeMinor = major < 1 || (major === 1 && minor < first) ? first : last
  return {
    minor: nearest,
    warning: `warning: ${where} is ${major}.${minor}, outside the supported 1.${first}-1.${last}; acting as kube-controller-manager 1.${nearest}, the nearest supported minor`,
  }
}
