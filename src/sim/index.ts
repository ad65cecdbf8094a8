// The simulated cluster around the Deployment controller: models, simulator and observations.

export {
  type ConditionSummary,
  type DeploymentSummary,
  type Observation,
  observe,
  type PodState,
  type PodSummary,
  type ReplicaSetSummary,
  type RolloutStatus,
  rolloutStatus,
} from '../status/observe.js'
export {type ClusterOptions, type ClusterStep, SimulatedCluster} from './cluster.js'
export {formatDuration, parseDuration} from './duration.js'
export {DEFAULT_TIMINGS, type FailureMode, type PodPlan, type PodTimings} from './pods.js'
export {
  DEFAULT_MAX_STEPS,
  DEFAULT_MAX_TIME,
  type Outcome,
  parseFailNewPods,
  type Simulation,
  SimulationError,
  type SimulationOptions,
  type SimulationSummary,
  Simulator,
  simulate,
  snapshotTime,
  type TimelineEntry,
} from './simulator.js'
export type {Actor, SimAction, SimEvent} from './types.js'
