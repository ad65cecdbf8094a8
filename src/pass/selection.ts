// Which Deployments a pass syncs: kubectl's resource arguments, -n / -A and -l.

import {DEFAULT_NAMESPACE, namespaceOf} from '../cluster/memory.js'
import type {World} from '../cluster/world.js'
import type {Deployment} from '../controller/api/types.js'
import {parseLabelSelector, type Selector, SelectorError} from '../controller/util/labels.js'
import {InputError, UsageError} from '../errors.js'

export interface Selection {
  /** `web`, `deployment/web`, `deploy/web`, `deployments.apps/web`, ... (or `deployment web`). */
  names?: string[]
  /** Defaults to `default`. */
  namespace?: string
  allNamespaces?: boolean
  /**
   * Files without -n: each object's own namespace (those that name none are in the default one),
   * as kubectl get -f reads them; names and -l select among every namespace of the input.
   */
  inputNamespaces?: boolean
  /** kubectl -l syntax. */
  labelSelector?: string
}

export interface DeploymentKey {
  namespace: string
  name: string
}

const DEPLOYMENT_TYPES = new Set([
  'deployment',
  'deployments',
  'deploy',
  'deployment.apps',
  'deployments.apps',
  'deployment.v1.apps',
  'deployments.v1.apps',
])

/** An object named on the command line: a Deployment, or (explain) a ReplicaSet or pod to start from. */
export interface ObjectRef {
  kind: 'Deployment' | 'ReplicaSet' | 'Pod'
  name: string
}

const REPLICASET_TYPES = new Set([
  'rs',
  'replicaset',
  'replicasets',
  'replicaset.apps',
  'replicasets.apps',
  'replicaset.v1.apps',
  'replicasets.v1.apps',
])
const POD_TYPES = new Set(['po', 'pod', 'pods'])

function kindOfType(type: string): ObjectRef['kind'] | undefined {
  const t = type.toLowerCase()
  if (DEPLOYMENT_TYPES.has(t)) return 'Deployment'
  if (REPLICASET_TYPES.has(t)) return 'ReplicaSet'
  if (POD_TYPES.has(t)) return 'Pod'
  return undefined
}

/**
 * Turns the command's arguments into object references, as kubectl reads `TYPE NAME...` and
 * `TYPE/NAME`: deployments, and with `others` also ReplicaSets and pods.
 */
export function parseRefs(args: readonly string[], others = true): ObjectRef[] {
  let rest = [...args]
  let kind: ObjectRef['kind'] = 'Deployment'
  const first = rest[0]
  const leading = first !== undefined && !first.includes('/') ? kindOfType(first) : undefined
  if (leading !== undefined && (others || leading === 'Deployment')) {
    kind = leading
    rest = rest.slice(1)
    const slashed = rest.find((a) => a.includes('/'))
    if (slashed !== undefined) {
      throw new UsageError(
        `there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. '${slashed}' instead of '${args[0]} ${slashed}')`,
      )
    }
  }
  const refs: ObjectRef[] = []
  for (const arg of rest) {
    let name = arg
    let argKind = kind
    const slash = arg.indexOf('/')
    if (slash >= 0) {
      const type = arg.slice(0, slash)
      name = arg.slice(slash + 1)
      const k = kindOfType(type)
      if (k === undefined || (!others && k !== 'Deployment')) {
        throw new UsageError(
          others
            ? `explain starts from a Deployment, a ReplicaSet or a pod, not "${arg}" (use NAME, deployment/NAME, rs/NAME or pod/NAME)`
            : `only Deployments can be synced, not "${arg}" (use NAME or deployment/NAME)`,
        )
      }
      argKind = k
    }
    if (name === '' || name.includes('/')) throw new UsageError(`invalid resource name "${arg}"`)
    if (!refs.some((r) => r.kind === argKind && r.name === name)) refs.push({kind: argKind, name})
  }
  return refs
}

/** Turns the command's arguments into Deployment names, as kubectl reads `TYPE NAME...` and `TYPE/NAME`. */
export function parseNames(args: readonly string[]): string[] {
  return parseRefs(args, false).map((r) => r.name)
}

/**
 * The Deployment that controls a ReplicaSet or pod of the namespace, by controller references (the
 * uid must match, as the controllers match them). Errors are worded as kubectl's.
 */
export function owningDeployment(world: World, namespace: string, ref: ObjectRef): string {
  if (ref.kind === 'Deployment') return ref.name
  const inNs = <T extends {metadata: {namespace?: string; name?: string}}>(list: T[], name: string) =>
    list.find((o) => (o.metadata.namespace || DEFAULT_NAMESPACE) === namespace && o.metadata.name === name)
  let rsName = ref.name
  const label = `${ref.kind === 'Pod' ? 'pod' : 'replicaset'} ${ref.name}`
  if (ref.kind === 'Pod') {
    const pod = inNs(world.pods, ref.name)
    if (!pod) throw new InputError(`pods "${ref.name}" not found`)
    const owner = controllerOf(pod.metadata)
    if (owner?.kind !== 'ReplicaSet') {
      throw new InputError(
        `${label} is not controlled by a ReplicaSet${owner ? ` (its controller is ${owner.kind} ${owner.name})` : ''}, so no Deployment's rollout concerns it`,
      )
    }
    const rs = inNs(world.replicaSets, owner.name ?? '')
    if (!rs || rs.metadata.uid !== owner.uid) {
      throw new InputError(
        `${label} is controlled by ReplicaSet ${owner.name}, which the input does not hold: include it (kubectl get deploy,rs,pods -n ${namespace} -o yaml)`,
      )
    }
    rsName = rs.metadata.name ?? ''
  }
  const rs = inNs(world.replicaSets, rsName)
  if (!rs) throw new InputError(`replicasets.apps "${rsName}" not found`)
  const owner = controllerOf(rs.metadata)
  const rsLabel = ref.kind === 'Pod' ? `${label} belongs to ReplicaSet ${rsName}, which` : label
  if (owner?.kind !== 'Deployment') {
    throw new InputError(
      `${rsLabel} is not controlled by a Deployment${owner ? ` (its controller is ${owner.kind} ${owner.name})` : ''}`,
    )
  }
  const d = inNs(world.deployments, owner.name ?? '')
  if (!d || d.metadata.uid !== owner.uid) {
    throw new InputError(
      `${rsLabel} is controlled by deployment ${owner.name}, which the input does not hold${d ? ' (one of that name with another uid is)' : ''}`,
    )
  }
  return d.metadata.name ?? ''
}

function controllerOf(meta: {
  ownerReferences?: Array<{kind?: string; name?: string; uid?: string; controller?: boolean}>
}) {
  return meta.ownerReferences?.find((r) => r.controller === true)
}

/** Checks the flags' combination; throws UsageError as kubectl does for conflicting selections. */
export function validateSelection(sel: Selection): void {
  const names = sel.names ?? []
  if (names.length > 0 && sel.allNamespaces) {
    throw new UsageError('a resource cannot be retrieved by name across all namespaces')
  }
  if (names.length > 0 && sel.labelSelector) {
    throw new UsageError('name cannot be provided when a selector is specified')
  }
  if (sel.labelSelector) parseSelectorFlag(sel.labelSelector)
}

/** The -l flag: kubectl's selector syntax; a selector that does not parse is a usage error. */
export function parseSelectorFlag(text: string): Selector {
  try {
    return parseLabelSelector(text)
  } catch (err) {
    if (err instanceof SelectorError) throw new UsageError(err.message)
    throw err
  }
}

/**
 * The Deployments to sync, sorted by namespace then name. A named Deployment that does not exist
 * is an InputError worded as kubectl's NotFound.
 */
export function selectDeployments(world: World, sel: Selection): DeploymentKey[] {
  validateSelection(sel)
  const namespace = sel.namespace || DEFAULT_NAMESPACE
  const names = sel.names ?? []
  const inScope = (d: Deployment) => sel.allNamespaces || sel.inputNamespaces || namespaceOf(d) === namespace
  let chosen: Deployment[]
  if (names.length > 0) {
    const byName = new Map<string, Deployment[]>()
    for (const d of world.deployments) {
      if (!inScope(d)) continue
      const name = d.metadata.name ?? ''
      byName.set(name, [...(byName.get(name) ?? []), d])
    }
    chosen = names.flatMap((n) => {
      const found = byName.get(n)
      if (!found) throw new InputError(`deployments.apps "${n}" not found`)
      return found
    })
  } else {
    const selector = parseSelectorFlag(sel.labelSelector ?? '')
    chosen = world.deployments.filter((d) => inScope(d) && selector.matches(d.metadata.labels))
  }
  const keys = chosen.map((d) => ({namespace: namespaceOf(d), name: d.metadata.name ?? ''}))
  const unique = new Map(keys.map((k) => [`${k.namespace}/${k.name}`, k]))
  return [...unique.values()].sort((a, b) =>
    a.namespace === b.namespace ? compare(a.name, b.name) : compare(a.namespace, b.namespace),
  )
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The namespaces of the input that hold the object a reference names (a Deployment, ReplicaSet or
 * pod), sorted: where `explain rs/NAME -f FILE` without -n looks.
 */
export function namespacesHolding(world: World, ref: ObjectRef): string[] {
  const list: ReadonlyArray<{metadata: {namespace?: string; name?: string}}> =
    ref.kind === 'Deployment' ? world.deployments : ref.kind === 'ReplicaSet' ? world.replicaSets : world.pods
  const found = list
    .filter((o) => o.metadata.name === ref.name)
    .map((o) => o.metadata.namespace || DEFAULT_NAMESPACE)
  return [...new Set(found)].sort(compare)
}

/**
 * The hint kubectl's NotFound and "No resources found" lack: where else the input (or the cluster)
 * holds Deployments. `found` are Deployments outside the selected namespace (named `name` when a
 * name was asked for); undefined when there is nothing to suggest.
 */
export function namespaceHint(
  sel: Selection,
  found: readonly DeploymentKey[],
  where: 'files' | 'cluster',
  name?: string,
): string | undefined {
  const selected = sel.namespace || DEFAULT_NAMESPACE
  const namespaces = [
    ...new Set(found.filter((k) => k.namespace !== selected).map((k) => k.namespace)),
  ].sort()
  if (namespaces.length === 0) return undefined
  const holder = where === 'files' ? 'the files hold' : 'the cluster has'
  const list = namespaces.join(', ')
  if (name !== undefined) {
    return `${holder} deployment ${name} in namespace ${list}: use -n ${namespaces[0]}`
  }
  return `${holder} Deployments in namespace ${list}: use -n ${namespaces[0]} or -A`
}

/** kubectl's message when nothing matched. */
export function noResourcesMessage(sel: Selection): string {
  return sel.allNamespaces
    ? 'No resources found'
    : `No resources found in ${sel.namespace || DEFAULT_NAMESPACE} namespace.`
}
