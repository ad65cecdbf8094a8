// The patch metadata of apps/v1 Deployment and the core/v1 types below it: the `patchStrategy` and
// `patchMergeKey` tags of k8s.io/api (which the OpenAPI's x-kubernetes-patch-strategy and
// x-kubernetes-patch-merge-key repeat), as strategic merge patch and `kubectl apply` read them.
// Container ports merge by containerPort alone here: the long-standing upstream tag, unlike
// server-side apply's list-map keys (containerPort and protocol).

import type {PatchMeta, Schema} from './strategic.js'

const merge = (mergeKey: string, schema?: Schema, retainKeys = false): PatchMeta => ({
  strategy: 'merge',
  mergeKey,
  ...(schema ? {schema} : {}),
  ...(retainKeys ? {retainKeys} : {}),
})

const OBJECT_META: Schema = {
  fields: {
    finalizers: {strategy: 'merge'},
    ownerReferences: merge('uid'),
  },
}

const CONTAINER: Schema = {
  fields: {
    ports: merge('containerPort'),
    env: merge('name'),
    volumeMounts: merge('mountPath'),
    volumeDevices: merge('devicePath'),
  },
}

const POD_SPEC: Schema = {
  fields: {
    volumes: merge('name', undefined, true),
    initContainers: merge('name', CONTAINER),
    containers: merge('name', CONTAINER),
    ephemeralContainers: merge('name', CONTAINER),
    imagePullSecrets: merge('name'),
    hostAliases: merge('ip'),
    topologySpreadConstraints: merge('topologyKey'),
    schedulingGates: merge('name'),
    resourceClaims: merge('name', undefined, true),
  },
}

const POD_TEMPLATE_SPEC: Schema = {fields: {metadata: {schema: OBJECT_META}, spec: {schema: POD_SPEC}}}

/** apps/v1 Deployment. */
export const DEPLOYMENT_SCHEMA: Schema = {
  fields: {
    metadata: {schema: OBJECT_META},
    spec: {
      schema: {
        fields: {
          template: {schema: POD_TEMPLATE_SPEC},
          strategy: {retainKeys: true},
        },
      },
    },
    status: {schema: {fields: {conditions: merge('type')}}},
  },
}
