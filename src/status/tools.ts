// One Deployment, three tools' answers: what `kubectl rollout status` says (./rollout-status.ts),
// what kstatus computes (./kstatus.ts: Helm 4's --wait, Flux), what Argo CD's health check says
// (./argocd.ts), all from the same object as given, and one sentence where they part and why.
// Each answer is also put in one of a few outcomes, so that the answers can be compared: a tool
// that waits, one that is done, one that fails, and the two states only one tool has (kstatus's
// Terminating, Argo CD's Suspended).

import type {Deployment} from '../controller/api/types.js'
import {type ArgoHealth, argoHealthOf} from './argocd.js'
import {type KstatusStatus, kstatusOf} from './kstatus.js'
import {rolloutStatus} from './rollout-status.js'
import type {RolloutStatus} from './types.js'

export const TOOL_OUTCOMES = ['done', 'waiting', 'failed', 'suspended', 'terminating'] as const
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number]

export interface ToolVerdicts {
  /** kubectl rollout status: Done (exits 0), Waiting, or Error (exits 1). */
  kubectl: {status: 'Done' | 'Waiting' | 'Error'; message: string; outcome: ToolOutcome}
  /** kstatus's status, the reason of the condition it adds (null for Current and Terminating) and its message. */
  kstatus: {status: KstatusStatus; reason: string | null; message: string; outcome: ToolOutcome}
  /** Argo CD's health and its message (empty when Healthy). */
  argocd: {status: ArgoHealth; message: string; outcome: ToolOutcome}
  /** All three in the same outcome. */
  agree: boolean
  /** One sentence on where they disagree and why; null when they agree. */
  disagreement: string | null
}

const KSTATUS_OUTCOME: Record<KstatusStatus, ToolOutcome> = {
  Current: 'done',
  InProgress: 'waiting',
  Failed: 'failed',
  Terminating: 'terminating',
}

const ARGO_OUTCOME: Record<ArgoHealth, ToolOutcome> = {
  Healthy: 'done',
  Progressing: 'waiting',
  Degraded: 'failed',
  Suspended: 'suspended',
}

/** The three tools' answers for a Deployment as given (kubectl's may be passed when already computed). */
export function toolVerdicts(d: Deployment, kubectl: RolloutStatus = rolloutStatus(d)): ToolVerdicts {
  const k = kstatusOf(d)
  const a = argoHealthOf(d)
  const kubectlStatus = kubectl.error ? 'Error' : kubectl.done ? 'Done' : 'Waiting'
  const out: ToolVerdicts = {
    kubectl: {
      status: kubectlStatus,
      message: kubectl.message,
      outcome: kubectl.error ? 'failed' : kubectl.done ? 'done' : 'waiting',
    },
    kstatus: {status: k.status, reason: k.reason, message: k.message, outcome: KSTATUS_OUTCOME[k.status]},
    argocd: {status: a.status, message: a.message, outcome: ARGO_OUTCOME[a.status]},
    agree: false,
    disagreement: null,
  }
  out.agree = out.kubectl.outcome === out.kstatus.outcome && out.kstatus.outcome === out.argocd.outcome
  if (!out.agree) out.disagreement = disagreement(d, out)
  return out
}

/** What a tool's outcome means, in a few words. */
function says(outcome: ToolOutcome): string {
  switch (outcome) {
    case 'done':
      return 'done'
    case 'waiting':
      return 'still waiting'
    case 'failed':
      return 'failed'
    case 'suspended':
      return 'suspended'
    case 'terminating':
      return 'terminating'
  }
}

/**
 * Why they part. kubectl and Argo CD share one rule (Argo CD borrowed kubectl's), apart from a
 * paused Deployment and one being deleted; kstatus has its own, stricter on counts and conditions.
 */
function disagreement(d: Deployment, t: ToolVerdicts): string {
  const why: string[] = []
  if (t.argocd.outcome !== t.kubectl.outcome) why.push(argoWhy(t))
  if (t.kstatus.outcome !== t.kubectl.outcome) why.push(kstatusWhy(d, t))
  // Not all equal means at least one differs from kubectl: the sentence names those that do.
  return `kubectl rollout status, which reads only the counts and the deadline condition, says ${says(t.kubectl.outcome)}; ${why.join('; ')}.`
}

function argoWhy(t: ToolVerdicts): string {
  if (t.argocd.status === 'Suspended')
    return 'Argo CD says Suspended, as it does for every paused Deployment whatever its counts'
  if (t.argocd.message === 'Pending deletion')
    return 'Argo CD says Progressing (Pending deletion), as it does for any object being deleted'
  return `Argo CD says ${t.argocd.status}${t.argocd.message ? ` (${t.argocd.message})` : ''}`
}

function kstatusWhy(d: Deployment, t: ToolVerdicts): string {
  const k = t.kstatus
  const head = `kstatus says ${k.status}${k.status === 'Current' || k.status === 'Terminating' ? '' : ` (${k.message})`}`
  const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing')
  switch (k.status === 'Terminating' ? 'Terminating' : k.reason) {
    case 'Terminating':
      return `${head}, as it does for any object with a deletionTimestamp`
    case 'LatestGenerationNotObserved':
      return `${head} because it wants status.observedGeneration equal to metadata.generation`
    case 'ExtraPods':
      return `${head} because it wants status.replicas down to spec.replicas, where kubectl compares status.replicas with updatedReplicas`
    case 'LessReplicas':
      return `${head} because it wants status.replicas up to spec.replicas`
    case 'LessReady':
      return `${head} because it also wants readyReplicas up to spec.replicas`
    case 'ReplicaSetNotAvailable':
      return `${head} because it also wants the Progressing condition True with reason NewReplicaSetAvailable, and it is ${progressing ? `${progressing.status}/${progressing.reason ?? ''}` : 'absent'}${progressing?.reason === 'DeploymentPaused' ? ', as the controller sets it on a paused Deployment' : ''}`
    case 'DeploymentNotAvailable':
      return `${head} because it also wants the Available condition True`
    case 'ProgressDeadlineExceeded':
      return `${head} because it reads the ProgressDeadlineExceeded condition even when the status has no observedGeneration, where kubectl first waits for the controller to observe the latest generation`
    default:
      if (k.status === 'Current' && d.status?.observedGeneration == null)
        return `${head} because it skips the generation check when the status has no observedGeneration, where kubectl waits for one`
      return head
  }
}
