// Which kubeconfig files are read and how they merge, as client-go's clientcmd loading rules do it.
// Light on purpose (no client-node; js-yaml, which the file loader has loaded already): file-mode
// commands read the context's namespace through it.

import {existsSync, readFileSync} from 'node:fs'
import {delimiter, join} from 'node:path'
import {load} from 'js-yaml'
import {InputError} from '../../errors.js'

/**
 * The files to read, in order: --kubeconfig alone (it must exist), else each entry of $KUBECONFIG
 * (empty entries dropped, repeats read once), else ~/.kube/config. Missing files of the list are
 * skipped when read (readKubeconfigs). upstream: clientcmd NewDefaultClientConfigLoadingRules and
 * ClientConfigLoadingRules.Load (ExplicitPath).
 */
export function kubeconfigPrecedence(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  if (explicit) {
    if (!existsSync(explicit)) throw new InputError(`stat ${explicit}: no such file or directory`)
    return [explicit]
  }
  const list = env.KUBECONFIG
  if (list) return [...new Set(list.split(delimiter).filter((f) => f !== ''))]
  const home = env.HOME ?? env.USERPROFILE
  return home ? [join(home, '.kube', 'config')] : []
}

/**
 * Each file that exists, read by `parse` (undefined for an empty file: no entries), in order; a
 * missing file is skipped, any other failure is kubectl's `error loading config file`.
 * upstream: clientcmd ClientConfigLoadingRules.Load, LoadFromFile.
 */
export function readKubeconfigs<T>(files: readonly string[], parse: (file: string, text: string) => T): T[] {
  const out: T[] = []
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') continue
      throw new InputError(`error loading config file "${file}": ${errnoText(err)}`)
    }
    if (text.trim() === '') continue
    try {
      out.push(parse(file, text))
    } catch (err) {
      throw new InputError(`error loading config file "${file}": ${firstLine(err)}`)
    }
  }
  return out
}

export interface KubeconfigEntries<C extends Named, U extends Named, X extends Named> {
  clusters: C[]
  users: U[]
  contexts: X[]
  currentContext?: string
}

interface Named {
  name: string
}

/**
 * Several files as one: for clusters, users and contexts the first file that names an entry wins
 * and later entries of that name are dropped whole (not merged field by field); current-context is
 * the first one set. upstream: clientcmd ClientConfigLoadingRules.Load (the map merge, then the
 * reversed struct merge).
 */
export function mergeKubeconfigs<C extends Named, U extends Named, X extends Named>(
  configs: ReadonlyArray<KubeconfigEntries<C, U, X>>,
): KubeconfigEntries<C, U, X> {
  const firstByName = <T extends Named>(lists: T[][]): T[] => {
    const seen = new Map<string, T>()
    for (const list of lists) for (const e of list) if (!seen.has(e.name)) seen.set(e.name, e)
    return [...seen.values()]
  }
  return {
    clusters: firstByName(configs.map((c) => c.clusters)),
    users: firstByName(configs.map((c) => c.users)),
    contexts: firstByName(configs.map((c) => c.contexts)),
    currentContext: configs.find((c) => c.currentContext)?.currentContext || undefined,
  }
}

interface RawNamed {
  name: string
  context?: {namespace?: unknown}
}

/**
 * The namespace of the context the flags select (--context, else the merged current-context) when
 * the kubeconfig names one; undefined when there is no kubeconfig, no such context or no namespace.
 * What `kubectl get -f` gives objects that name no namespace. upstream: clientcmd
 * DirectClientConfig.Namespace.
 */
export function contextNamespace(flags: {kubeconfig?: string; context?: string}): string | undefined {
  const merged = mergedRaw(flags.kubeconfig)
  if (!merged) return undefined
  const name = flags.context || merged.currentContext
  const ns = merged.contexts.find((c) => c.name === name)?.context?.namespace
  return typeof ns === 'string' && ns !== '' ? ns : undefined
}

/** The names of the merged kubeconfig's contexts, in file order (`--all-contexts`); none without a kubeconfig. */
export function contextNames(kubeconfig: string | undefined): string[] {
  return mergedRaw(kubeconfig)?.contexts.map((c) => c.name) ?? []
}

/** The kubeconfig files merged, read as plain YAML; undefined when none exists. */
function mergedRaw(
  kubeconfig: string | undefined,
): KubeconfigEntries<RawNamed, RawNamed, RawNamed> | undefined {
  const files = kubeconfigPrecedence(kubeconfig).filter((f) => existsSync(f))
  if (files.length === 0) return undefined
  const named = (list: unknown): RawNamed[] =>
    Array.isArray(list) ? list.filter((e): e is RawNamed => typeof e?.name === 'string' && e.name !== '') : []
  const configs = readKubeconfigs(files, (_file, text) => {
    const raw = (load(text) ?? {}) as Record<string, unknown>
    if (typeof raw !== 'object') throw new Error('the kubeconfig is not a mapping')
    const current = raw['current-context']
    return {
      clusters: named(raw.clusters),
      users: named(raw.users),
      contexts: named(raw.contexts),
      currentContext: typeof current === 'string' ? current : undefined,
    }
  })
  return mergeKubeconfigs(configs)
}

function errnoText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  if (code === 'EACCES') return 'permission denied'
  if (code === 'EISDIR') return 'is a directory'
  return firstLine(err)
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? ''
}
