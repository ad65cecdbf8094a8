// What Argo CD's health assessment says of a Deployment: Healthy, Progressing, Degraded or
// Suspended, with its message. A port of argoproj/gitops-engine pkg/health (at 5baed56, Dec 2025):
// GetResourceHealth's deletion check, then getAppsv1DeploymentHealth, which borrowed kubectl's
// rollout status rule and adds the paused case. Argo CD's own resource customizations (Lua) are not
// consulted: Deployment has none built in. Pure: it reads only the object.

import type {Deployment} from '../controller/api/types.js'

export const ARGOCD_HEALTH = ['Healthy', 'Progressing', 'Degraded', 'Suspended'] as const
export type ArgoHealth = (typeof ARGOCD_HEALTH)[number]

export interface ArgoHealthResult {
  status: ArgoHealth
  /** Empty when Healthy, as Argo CD leaves it. */
  message: string
}

/** The finalizer Argo CD puts on its sync hooks (gitops-engine's hook.HookFinalizer). */
const HOOK_FINALIZER = 'argocd.argoproj.io/hook-finalizer'

// upstream (gitops-engine): GetResourceHealth — an object being deleted is Progressing, unless it
// is a sync hook that Argo CD's own finalizer holds.
export function argoHealthOf(d: Deployment): ArgoHealthResult {
  if (d.metadata.deletionTimestamp && !(d.metadata.finalizers ?? []).includes(HOOK_FINALIZER)) {
    return {status: 'Progressing', message: 'Pending deletion'}
  }
  return deploymentHealth(d)
}

// upstream (gitops-engine): getAppsv1DeploymentHealth
function deploymentHealth(d: Deployment): ArgoHealthResult {
  if (d.spec?.paused) return {status: 'Suspended', message: 'Deployment is paused'}
  const s = d.status ?? {}
  if ((d.metadata.generation ?? 0) > (s.observedGeneration ?? 0)) {
    return progressing('observed deployment generation less than desired generation')
  }
  // upstream (gitops-engine): getAppsv1DeploymentCondition — the first Progressing condition.
  const cond = s.conditions?.find((c) => c.type === 'Progressing')
  if (cond?.reason === 'ProgressDeadlineExceeded') {
    return {
      status: 'Degraded',
      message: `Deployment ${JSON.stringify(d.metadata.name ?? '')} exceeded its progress deadline`,
    }
  }
  const updated = s.updatedReplicas ?? 0
  const replicas = s.replicas ?? 0
  const available = s.availableReplicas ?? 0
  if (d.spec?.replicas != null && updated < d.spec.replicas) {
    return progressing(`${updated} out of ${d.spec.replicas} new replicas have been updated...`)
  }
  if (replicas > updated) return progressing(`${replicas - updated} old replicas are pending termination...`)
  if (available < updated) return progressing(`${available} of ${updated} updated replicas are available...`)
  return {status: 'Healthy', message: ''}
}

function progressing(what: string): ArgoHealthResult {
  return {status: 'Progressing', message: `Waiting for rollout to finish: ${what}`}
}
