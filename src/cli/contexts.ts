// Several clusters in one run: --context repeated, or --all-contexts (flags.ts multiContextFlags).
// One context (or none) is the ordinary single-cluster run; several are run one options object
// each, each row tagged with its context, and a context that cannot be read is an error of its own
// that leaves the others' answers standing.

import {UsageError} from '../errors.js'

export interface MultiContextFlagValues {
  context?: string | string[]
  'all-contexts'?: boolean
  kubeconfig?: string
  filename?: string[]
}

/**
 * The contexts to cover: [] for an ordinary run (zero or one --context, which stays in the
 * connection flags), else every one named (repeats dropped) or, with --all-contexts, every context of
 * the merged kubeconfig.
 */
export async function completeContexts(
  flags: MultiContextFlagValues,
): Promise<{first: string | undefined; many: string[]}> {
  const given = [...new Set(([] as string[]).concat(flags.context ?? []))]
  if (flags['all-contexts']) {
    if (given.length > 0) throw new UsageError('--all-contexts and --context cannot be combined')
    const {contextNames} = await import('../cluster/live/kubeconfig-files.js')
    const all = contextNames(flags.kubeconfig)
    if (all.length === 0) throw new UsageError('--all-contexts: the kubeconfig has no contexts')
    return {first: all[0], many: all}
  }
  return {first: given[0], many: given.length > 1 ? given : []}
}

/** Several contexts read clusters: refused with -f (files have no cluster to read). */
export function validateContexts(
  many: readonly string[],
  files: readonly string[],
  allContexts: boolean,
): void {
  if (many.length === 0 && !allContexts) return
  if (files.length > 0) {
    throw new UsageError(
      `${allContexts ? '--all-contexts' : 'several --context'} reads clusters; -f reads files: use one or the other`,
    )
  }
}
