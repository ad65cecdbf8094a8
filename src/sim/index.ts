// sim/: models that move a world forward around the Deployment controller — the ReplicaSet
// controller, the scheduler and kubelet (pod lifecycle) — and the virtual-clock simulator that runs them.

export type {Actor, SimAction, SimEvent} from '../status/update.js'
export {type ClusterOptions, type ClusterStep, SimulatedCluster} from './cluster.js'
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
