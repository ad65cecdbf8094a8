// `kubectl-deployctl __complete WORDS...`: what kubectl_complete-deployctl and the `completion`
// scripts run. Reached before oclif starts (bin/run.cjs, the executable's runtime), so that a
// completion costs no more than reading the manifest, plus a request when it needs the cluster.

import {clusterLookup} from './cluster.js'
import {complete, formatCompletion, type Lookup, type Manifest} from './complete.js'

export interface CompletionSources {
  manifest: Manifest
  /** package.json's oclif.topics: the descriptions of dry-run, rollout... */
  topics?: Record<string, {description?: string}>
  lookup?: Lookup
}

export async function main(words: string[], sources: CompletionSources): Promise<void> {
  const result = await complete(
    sources.manifest,
    sources.topics ?? {},
    words,
    sources.lookup ?? clusterLookup,
  )
  process.stdout.write(formatCompletion(result))
}
