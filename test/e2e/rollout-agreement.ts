// The one place where the end-to-end tests read a rollout's state out of `explain -o json` and live
// `rollout watch -o json` (NDJSON), and out of `kubectl rollout status --watch=false`, to hold the
// three together. The JSON envelopes of explain and watch are a contract that may move (issue 16
// changes the list key and shares one status model): when they change, only this file should.

import type {RunResult} from './helpers.js'

/** What `kubectl rollout status` decides: it exits 0 done, keeps waiting, or fails on the deadline. */
export type RolloutState = 'done' | 'waiting' | 'deadlineExceeded'

export interface RolloutReading {
  state: RolloutState
  /** kubectl's line, without the `error: ` an error is printed with. */
  message: string
}

const withoutErrorPrefix = (s: string) => s.replace(/^error: /, '')

/** `kubectl rollout status deployment/NAME --watch=false`: 0 with its line, or 1 with an error. */
export function readKubectlRolloutStatus(r: RunResult): RolloutReading {
  if (r.code === 0) {
    const message = r.stdout.trim()
    return {state: /^deployment ".*" successfully rolled out$/.test(message) ? 'done' : 'waiting', message}
  }
  const line = r.stderr.trim()
  if (r.code === 1 && /^error: deployment ".*" exceeded its progress deadline$/.test(line)) {
    return {state: 'deadlineExceeded', message: withoutErrorPrefix(line)}
  }
  throw new Error(`kubectl rollout status: exit ${r.code}: ${r.stderr || r.stdout}`)
}

interface Explanation {
  deployment: {namespace: string; name: string}
  rolloutStatus: {message: string; done: boolean; error: boolean}
}

interface ExplainDocument {
  apiVersion?: string
  /** deployctl.kubectl.io/v1alpha1 */
  explanations?: Explanation[]
  /** deployctl.kubectl.io/v1alpha3 (issue 16's one envelope for every command) */
  items?: Explanation[]
}

/** `explain NAME -o json` (live): the Deployment's `rolloutStatus`, kubectl's rule on what it read. */
export function readExplain(stdout: string, namespace: string, name: string): RolloutReading {
  const doc = JSON.parse(stdout) as ExplainDocument
  const list = doc.apiVersion === 'deployctl.kubectl.io/v1alpha1' ? doc.explanations : doc.items
  const e = list?.find((x) => x.deployment.namespace === namespace && x.deployment.name === name)
  if (!e) throw new Error(`explain -o json has no explanation of ${namespace}/${name}:\n${stdout}`)
  const s = e.rolloutStatus
  const state: RolloutState = s.error ? 'deadlineExceeded' : s.done ? 'done' : 'waiting'
  return {state, message: withoutErrorPrefix(s.message)}
}

interface WatchLine {
  kind: string
  /** Step: kubectl's line for the state shown. */
  status?: string
  /** End: complete | deadlineExceeded | timeout | paused | deleted | interrupted. */
  outcome?: string
  message?: string
}

/**
 * Live `rollout watch NAME -o json --timeout T`: the last Step's line, and how the watch ended. A
 * rollout that is not done and not past its deadline ends the watch at the timeout: waiting.
 */
export function readWatch(r: RunResult): RolloutReading {
  const lines = r.stdout
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as WatchLine)
  const last = lines.filter((l) => l.kind === 'Step').at(-1)
  const end = lines.at(-1)
  if (!last?.status || end?.kind !== 'End') {
    throw new Error(
      `rollout watch -o json (exit ${r.code}): no Step before the End object:\n${r.stdout}${r.stderr}`,
    )
  }
  switch (end.outcome) {
    case 'complete':
      return {state: 'done', message: last.status}
    case 'deadlineExceeded':
      return {state: 'deadlineExceeded', message: withoutErrorPrefix(end.message ?? '')}
    case 'timeout':
      return {state: 'waiting', message: last.status}
    default:
      throw new Error(`rollout watch -o json ended with ${end.outcome}: ${end.message}`)
  }
}
