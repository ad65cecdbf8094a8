// A world is the set of objects one pass sees: what files or a cluster provided.

import type {Deployment, Pod, ReplicaSet} from '../controller/api/types.js'

/** Where an object came from, so errors can name the file, the document and the line. */
export interface SourceRef {
  file: string
  /** 1-based line of the object's start in the file (0 when unknown, e.g. JSON from stdin). */
  line: number
  /** 0-based index of the YAML document or List item. */
  index?: number
}

export interface World {
  deployments: Deployment[]
  replicaSets: ReplicaSet[]
  pods: Pod[]
  /** Source of each loaded object (by identity); absent for objects from a live cluster. */
  sources: WeakMap<object, SourceRef>
  /** Each object as written, before defaulting (only when the loader is asked to keep them: `plan`). */
  raw?: WeakMap<object, unknown>
}

export function emptyWorld(): World {
  return {deployments: [], replicaSets: [], pods: [], sources: new WeakMap()}
}
