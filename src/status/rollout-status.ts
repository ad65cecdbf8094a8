// What `kubectl rollout status deployment/NAME` prints for a Deployment: a port of kubectl's
// DeploymentStatusViewer.Status (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go), so that
// explain's verdict can be read next to the message users already know.

import {type Deployment, DeploymentProgressing} from '../controller/api/types.js'
import {getDeploymentCondition, TimedOutReason} from '../controller/util/deployment-util.js'
import type {RolloutStatus} from './types.js'

/** Go's %q for a Kubernetes name (names are printable ASCII, where both quote alike). */
function q(s: string): string {
  return JSON.stringify(s)
}

// upstream (kubectl): DeploymentStatusViewer.Status, without the --revision check. kubectl prints
// an error as `error: <message>` and exits 1; the message is given here as printed.
export function rolloutStatus(d: Deployment): RolloutStatus {
  const name = d.metadata.name ?? ''
  const status = d.status ?? {}
  if ((d.metadata.generation ?? 0) <= (status.observedGeneration ?? 0)) {
    const cond = getDeploymentCondition(status, DeploymentProgressing)
    if (cond?.reason === TimedOutReason) {
      return {
        message: `error: deployment ${q(name)} exceeded its progress deadline`,
        done: false,
        error: true,
      }
    }
    const updated = status.updatedReplicas ?? 0
    const replicas = status.replicas ?? 0
    const available = status.availableReplicas ?? 0
    if (d.spec.replicas != null && updated < d.spec.replicas) {
      return waiting(
        `Waiting for deployment ${q(name)} rollout to finish: ${updated} out of ${d.spec.replicas} new replicas have been updated...`,
      )
    }
    if (replicas > updated) {
      return waiting(
        `Waiting for deployment ${q(name)} rollout to finish: ${replicas - updated} old replicas are pending termination...`,
      )
    }
    if (available < updated) {
      return waiting(
        `Waiting for deployment ${q(name)} rollout to finish: ${available} of ${updated} updated replicas are available...`,
      )
    }
    return {message: `deployment ${q(name)} successfully rolled out`, done: true, error: false}
  }
  return waiting('Waiting for deployment spec update to be observed...')
}

function waiting(message: string): RolloutStatus {
  return {message, done: false, error: false}
}
