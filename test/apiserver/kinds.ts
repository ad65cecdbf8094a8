// The kinds one server serves: the built-in ones (resources.ts, inert-kinds.ts) and the custom
// resources its CustomResourceDefinitions add while it runs. Each server has its own (two test
// servers in one process must not see each other's CRDs).

import {INERT_KINDS} from './inert-kinds.js'
import {base, groupVersion, RESOURCES, type ResourceDef} from './resources.js'
import {isObj, metaOf, type Obj, str} from './util.js'

export const BUILT_IN_KINDS: readonly ResourceDef[] = [...RESOURCES, ...INERT_KINDS]

/** Resolves `deployments`, `deploy`, `Deployment`, `deployments.apps` or `apps/v1/deployments` among `defs`. */
export function resolveIn(defs: readonly ResourceDef[], name: string): ResourceDef | undefined {
  const lower = name.toLowerCase()
  return (
    defs.find((d) => `${groupVersion(d)}/${d.resource}` === lower) ??
    defs.find((d) => (d.group ? `${d.resource}.${d.group}` : d.resource) === lower) ??
    defs.find(
      (d) =>
        d.resource === lower ||
        d.singular === lower ||
        d.kind.toLowerCase() === lower ||
        d.shortNames.includes(lower),
    )
  )
}

/** The definition of an object's apiVersion and kind among `defs`. */
export function byObjectIn(defs: readonly ResourceDef[], o: Obj): ResourceDef | undefined {
  const apiVersion = str(o.apiVersion) ?? ''
  const kind = str(o.kind) ?? ''
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion]
  return defs.find((d) => d.group === group && d.version === version && d.kind === kind)
}

export class Kinds {
  /** Custom resource definitions by CRD name, one ResourceDef per served version. */
  private readonly custom = new Map<string, ResourceDef[]>()
  private cached: ResourceDef[] | undefined

  all(): readonly ResourceDef[] {
    this.cached ??= [...BUILT_IN_KINDS, ...[...this.custom.values()].flat()]
    return this.cached
  }

  byResource(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.all().find((d) => d.group === group && d.version === version && d.resource === resource)
  }

  byObject(o: Obj): ResourceDef | undefined {
    return byObjectIn(this.all(), o)
  }

  resolve(name: string): ResourceDef | undefined {
    return resolveIn(this.all(), name)
  }

  /** The kinds a CRD defines, served from now on (replacing what an older version of it defined). */
  define(crd: Obj): void {
    this.custom.set(str(metaOf(crd).name) ?? '', customKinds(crd))
    this.cached = undefined
  }

  /** Forgets a CRD's kinds; returns them (their objects are deleted with it). */
  undefine(crdName: string): ResourceDef[] {
    const defs = this.custom.get(crdName) ?? []
    this.custom.delete(crdName)
    this.cached = undefined
    return defs
  }
}

/** One served version of a CRD as a ResourceDef: no schema is checked, any top-level key is kept. */
function customKinds(crd: Obj): ResourceDef[] {
  const spec = isObj(crd.spec) ? crd.spec : {}
  const names = isObj(spec.names) ? spec.names : {}
  const kind = str(names.kind) ?? ''
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : []
  return versions
    .filter((v) => v.served !== false)
    .map((v) => {
      const sub = isObj(v.subresources) ? v.subresources : {}
      const subresources: ResourceDef['subresources'] = []
      if (sub.status !== undefined)
        subresources.push({name: 'status', kind, verbs: ['get', 'patch', 'update']})
      if (sub.scale !== undefined) {
        subresources.push({
          name: 'scale',
          kind: 'Scale',
          group: 'autoscaling',
          version: 'v1',
          verbs: ['get', 'patch', 'update'],
        })
      }
      return base({
        group: str(spec.group) ?? '',
        version: str(v.name) ?? '',
        resource: str(names.plural) ?? '',
        singular: str(names.singular) ?? kind.toLowerCase(),
        kind,
        listKind: str(names.listKind) ?? `${kind}List`,
        namespaced: spec.scope !== 'Cluster',
        shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
        categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
        subresources,
        generation: 'spec',
        freeForm: true,
      })
    })
}
