// `explain --summary`: one row per Deployment (its verdict, ready/desired, updated and the deadline
// clock) from the rollout state alone, without the pass explained step by step; and `--fail-on`,
// the states a pipeline gates on.

import type {World} from '../cluster/world.js'
import type {Deployment} from '../controller/api/types.js'
import {deploymentReplicas} from '../controller/util/deployment-util.js'
import {envelope, type ResultEnvelope} from '../pass/result.js'
import {runPasses} from '../pass/run.js'
import type {Selection} from '../pass/selection.js'
import {type DeploymentItem, deploymentItem, rolloutStateOf} from '../status/item.js'
import type {ToolVerdicts} from '../status/tools.js'
import type {ClockState, ProgressClock, Verdict} from '../status/types.js'
import {seconds} from '../util/duration.js'
import type {ExplainOptions} from './index.js'

/** What `--fail-on` accepts. */
export const FAIL_ON = ['stuck', 'deadline', 'incomplete', 'invalid'] as const
export type FailOn = (typeof FAIL_ON)[number]

/** The Deployment's item (status/item.ts) and its counts; v1alpha2 had namespace, name, verdict and reason at the top. */
export interface SummaryRow extends DeploymentItem {
  /** status.readyReplicas of the Deployment as given, and spec.replicas. */
  ready: number
  desired: number
  updated: number
  available: number
  deadline: {state: ClockState; at: string | null; secondsLeft: number | null; text: string}
  /** The --fail-on states the Deployment is in. */
  matches: FailOn[]
  /** kubectl rollout status, kstatus and Argo CD's answers for the Deployment as given, and where they part. */
  tools: ToolVerdicts
  /** The kubeconfig context the row was read from, when several were (--context repeated, --all-contexts). */
  context?: string
}

export type ExplainSummary = ResultEnvelope<'ExplainSummary', SummaryRow>

/** The --fail-on states of a verdict and its progress clock. */
export function failOnStates(verdict: Verdict, progress: ProgressClock): FailOn[] {
  const out: FailOn[] = []
  if (verdict.code === 'Stalled' || verdict.code === 'DeadlineExceeded') out.push('stuck')
  if (
    verdict.code === 'DeadlineExceeded' ||
    progress.state === 'Exceeded' ||
    progress.state === 'FiresThisPass' ||
    progress.state === 'Passed'
  )
    out.push('deadline')
  if (verdict.code === 'IncompleteInput') out.push('incomplete')
  if (verdict.code === 'Invalid') out.push('invalid')
  return out
}

/** The deadline clock in a few words. */
export function clockText(p: ProgressClock): string {
  switch (p.state) {
    case 'Running':
      return `in ${seconds(Math.max(0, p.secondsLeft ?? 0))} (${p.deadline})`
    case 'Passed':
      return `passed ${p.deadline}`
    case 'FiresThisPass':
      return `fires now (${p.deadline})`
    case 'Exceeded':
      return 'exceeded'
    case 'Complete':
      return '-'
    case 'Paused':
      return 'paused'
    case 'NoDeadline':
      return 'none'
    case 'NoCondition':
      return 'not started'
    case 'CheckSkipped':
      return 'never fires'
  }
}

/** One pass over the selected Deployments, and one row each. */
export async function summarizeWorld(
  world: World,
  selection: Selection,
  options: ExplainOptions,
): Promise<ExplainSummary> {
  const pass = await runPasses(world, selection, {now: options.now, gates: options.gates, collectFacts: true})
  const rows = pass.result.items.map((r): SummaryRow => {
    const state = rolloutStateOf(world, pass.store, r, options)
    const d = pass.store.initial('deployments', r.deployment.namespace, r.deployment.name) as Deployment
    const p = state.progress
    return deploymentItem(r.deployment, state.verdict, {
      ready: d.status?.readyReplicas ?? 0,
      desired: deploymentReplicas(d),
      updated: d.status?.updatedReplicas ?? 0,
      available: d.status?.availableReplicas ?? 0,
      deadline: {state: p.state, at: p.deadline, secondsLeft: p.secondsLeft, text: clockText(p)},
      matches: failOnStates(state.verdict, p),
      tools: state.tools,
    })
  })
  return envelope('ExplainSummary', options.now, options.gates, rows)
}

/** The rows of several contexts in one document, each tagged with its context, in the order given. */
export function summarizeContexts(
  results: ReadonlyArray<{context: string; items: readonly SummaryRow[]}>,
  options: {now: number; gates: ExplainOptions['gates']},
): ExplainSummary {
  const rows = results.flatMap((r) => r.items.map((item): SummaryRow => ({...item, context: r.context})))
  return envelope('ExplainSummary', options.now, options.gates, rows)
}
