// The in-memory Kubernetes API server for tests. See README.md in this directory.

export type {ApiError, StatusCause} from './errors.js'
export type {FaultHandle, FaultMatch, FaultPlan, FaultRule, Verb} from './faults.js'
export {FaultController} from './faults.js'
export type {ResourceDef} from './resources.js'
export type {ApiServer, ApiServerOptions, RequestLog, WriteRecord} from './server.js'
export {startApiServer} from './server.js'
export type {Change} from './store.js'
export {resolveResource, Store} from './store.js'
