// The shape of hash-types/v1.NN.generated.ts: the Go types go-spew walks when kube-controller-manager
// hashes a pod template, as scripts/pod-template-hash/gen-types.mjs reads them from upstream.

/**
 * A Go type in the data's encoding: a basic kind ("string", "int32", ...), a named type
 * ("core/v1.PodSpec", "meta/v1.Time", "resource.Quantity"), or "*T", "[]T", "map[K]V" of those.
 */
export type GoTypeRef = string

/** [Go field name, JSON key ("" = inline, null = never set from JSON), type, 1 if carried by protobuf] */
export type GoField = readonly [string, string | null, GoTypeRef, 0 | 1]

export interface GoStructDecl {
  /** the name reflect prints, e.g. "v1.PodSpec" */
  readonly name: string
  readonly fields: readonly GoField[]
}

export interface GoNamedDecl {
  readonly name: string
  /** the underlying type, e.g. "string" or "map[core/v1.ResourceName]resource.Quantity" */
  readonly type: GoTypeRef
}

export interface HashTypeData {
  readonly source: {
    readonly root: string
    readonly 'k8s.io/api': {readonly version: string; readonly commit: string | null}
    readonly 'k8s.io/apimachinery': {readonly version: string; readonly commit: string | null}
    readonly libraries: Readonly<Record<string, string>>
    readonly typeCounts: Readonly<Record<string, number>>
  }
  readonly types: Readonly<Record<string, GoStructDecl | GoNamedDecl>>
}
