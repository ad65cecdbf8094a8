// The subset of the Kubernetes API (apps/v1 Deployment and ReplicaSet, core/v1 Pod) that the
// Deployment controller reads and writes. Objects stay plain JSON: fields the controller does not
// know are carried through untouched, so a pass never drops data it was given.

export type IntOrString = number | string

export interface OwnerReference {
  apiVersion: string
  kind: string
  name: string
  uid: string
  controller?: boolean
  blockOwnerDeletion?: boolean
}

export interface ObjectMeta {
  name?: string
  generateName?: string
  namespace?: string
  uid?: string
  resourceVersion?: string
  generation?: number
  creationTimestamp?: string
  deletionTimestamp?: string
  deletionGracePeriodSeconds?: number
  labels?: Record<string, string>
  annotations?: Record<string, string>
  ownerReferences?: OwnerReference[]
  finalizers?: string[]
  [key: string]: unknown
}

export interface LabelSelectorRequirement {
  key: string
  operator: string
  values?: string[]
}

export interface LabelSelector {
  matchLabels?: Record<string, string>
  matchExpressions?: LabelSelectorRequirement[]
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta
  spec?: PodSpec
}

export interface Container {
  name: string
  image?: string
  [key: string]: unknown
}

export interface PodSpec {
  containers?: Container[]
  initContainers?: Container[]
  nodeSelector?: Record<string, string>
  [key: string]: unknown
}

export interface RollingUpdateDeployment {
  maxUnavailable?: IntOrString
  maxSurge?: IntOrString
}

export interface DeploymentStrategy {
  type?: string
  rollingUpdate?: RollingUpdateDeployment
}

export interface DeploymentSpec {
  replicas?: number
  selector?: LabelSelector
  template: PodTemplateSpec
  strategy?: DeploymentStrategy
  minReadySeconds?: number
  revisionHistoryLimit?: number
  paused?: boolean
  progressDeadlineSeconds?: number
  [key: string]: unknown
}

export interface DeploymentCondition {
  type: string
  status: string
  lastUpdateTime?: string
  lastTransitionTime?: string
  reason?: string
  message?: string
}

export interface DeploymentStatus {
  observedGeneration?: number
  replicas?: number
  updatedReplicas?: number
  readyReplicas?: number
  availableReplicas?: number
  unavailableReplicas?: number
  terminatingReplicas?: number
  conditions?: DeploymentCondition[]
  collisionCount?: number
  [key: string]: unknown
}

export interface Deployment {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  spec: DeploymentSpec
  status?: DeploymentStatus
}

export interface ReplicaSetCondition {
  type: string
  status: string
  lastTransitionTime?: string
  reason?: string
  message?: string
}

export interface ReplicaSetSpec {
  replicas?: number
  minReadySeconds?: number
  selector?: LabelSelector
  template?: PodTemplateSpec
  [key: string]: unknown
}

export interface ReplicaSetStatus {
  replicas?: number
  fullyLabeledReplicas?: number
  readyReplicas?: number
  availableReplicas?: number
  terminatingReplicas?: number
  observedGeneration?: number
  conditions?: ReplicaSetCondition[]
  [key: string]: unknown
}

export interface ReplicaSet {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  spec: ReplicaSetSpec
  status?: ReplicaSetStatus
}

export interface PodCondition {
  type: string
  status: string
  lastTransitionTime?: string
  reason?: string
  message?: string
  [key: string]: unknown
}

export interface ContainerStatus {
  name: string
  ready?: boolean
  restartCount?: number
  image?: string
  started?: boolean
  state?: {
    waiting?: {reason?: string; message?: string}
    running?: {startedAt?: string}
    terminated?: {reason?: string; message?: string; exitCode?: number; finishedAt?: string}
  }
  lastState?: ContainerStatus['state']
  [key: string]: unknown
}

export interface PodStatus {
  phase?: string
  conditions?: PodCondition[]
  containerStatuses?: ContainerStatus[]
  initContainerStatuses?: ContainerStatus[]
  reason?: string
  message?: string
  startTime?: string
  [key: string]: unknown
}

export interface Pod {
  apiVersion?: string
  kind?: string
  metadata: ObjectMeta
  spec?: PodSpec
  status?: PodStatus
}

export type KubeObject = Deployment | ReplicaSet | Pod

// Values fixed by the apps/v1 API and the controller.
export const DeploymentKind = 'Deployment'
export const ReplicaSetKind = 'ReplicaSet'
export const AppsV1 = 'apps/v1'
export const DefaultDeploymentUniqueLabelKey = 'pod-template-hash'
export const RollingUpdateStrategyType = 'RollingUpdate'
export const RecreateStrategyType = 'Recreate'

export const ConditionTrue = 'True'
export const ConditionFalse = 'False'
export const ConditionUnknown = 'Unknown'

export const DeploymentAvailable = 'Available'
export const DeploymentProgressing = 'Progressing'
export const DeploymentReplicaFailure = 'ReplicaFailure'

export const PodSucceeded = 'Succeeded'
export const PodFailed = 'Failed'
