// `pods/log` for simulated pods, as the API server and the kubelet answer `kubectl logs`: the
// registry's checks (which container, is the pod on a node), then the kubelet's choice of the
// container instance (upstream: kubelet validateContainerLogStatus) and its errors. A container
// writes what its command's script echoes (src/sim/container-script.ts), once per run.

import type {Container} from '../../src/controller/api/types.js'
import {containerRun} from '../../src/sim/container-script.js'
import {badRequest} from './errors.js'
import {isObj, metaOf, type Obj, str} from './util.js'

/** The log text of one container of `pod` for the query kubectl sends (container, previous, tailLines, timestamps). */
export function podLog(pod: Obj, query: URLSearchParams): string {
  const name = str(metaOf(pod).name) ?? ''
  const spec = isObj(pod.spec) ? pod.spec : {}
  const containers = [
    ...(Array.isArray(spec.containers) ? spec.containers : []),
    ...(Array.isArray(spec.initContainers) ? spec.initContainers : []),
  ].filter(isObj) as unknown as Container[]
  let container = query.get('container') ?? ''
  // upstream: the pod registry's LogLocation.
  if (container === '') {
    if (containers.length !== 1) {
      const names = containers.map((c) => c.name).join(' ')
      throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${names}]`)
    }
    container = containers[0]?.name ?? ''
  }
  const c = containers.find((x) => x.name === container)
  if (!c) throw badRequest(`container ${container} is not valid for pod ${name}`)
  if ((str(spec.nodeName) ?? '') === '') return ''
  const lines = instanceLines(pod, name, c, query.get('previous') === 'true')
  const tail = query.get('tailLines')
  const kept =
    tail !== null && Number(tail) >= 0 ? lines.slice(Math.max(0, lines.length - Number(tail))) : lines
  const stamp = query.get('timestamps') === 'true' ? `${startedAt(pod, container)} ` : ''
  return kept.map((l) => `${stamp}${l}\n`).join('')
}

/** The lines of the instance the kubelet picks; its refusals as the kubelet words them. */
function instanceLines(pod: Obj, podName: string, c: Container, previous: boolean): string[] {
  const status = containerStatus(pod, c.name)
  const quoted = `"${c.name}" in pod "${podName}"`
  if (!status) throw badRequest(`container ${quoted} is not available`)
  const state = isObj(status.state) ? status.state : {}
  const last = isObj(status.lastState) ? status.lastState : {}
  const {lines} = containerRun(c)
  if (previous) {
    if (!isObj(last.terminated)) throw badRequest(`previous terminated container ${quoted} not found`)
    return lines
  }
  if (isObj(state.running) || isObj(state.terminated) || isObj(last.terminated)) return lines
  const reason = isObj(state.waiting) ? (str(state.waiting.reason) ?? '') : ''
  if (reason === 'ErrImagePull')
    throw badRequest(`container ${quoted} is waiting to start: image can't be pulled`)
  if (reason === 'ImagePullBackOff') {
    throw badRequest(`container ${quoted} is waiting to start: trying and failing to pull image`)
  }
  throw badRequest(`container ${quoted} is waiting to start: ${reason}`)
}

function containerStatus(pod: Obj, name: string): Obj | undefined {
  const status = isObj(pod.status) ? pod.status : {}
  const all = [
    ...(Array.isArray(status.containerStatuses) ? status.containerStatuses : []),
    ...(Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : []),
  ].filter(isObj)
  return all.find((s) => s.name === name)
}

function startedAt(pod: Obj, name: string): string {
  const s = containerStatus(pod, name)
  const state = s && isObj(s.state) ? s.state : {}
  const running = isObj(state.running) ? str(state.running.startedAt) : undefined
  const ts = running ?? str(isObj(pod.status) ? pod.status.startTime : undefined) ?? new Date(0).toISOString()
  return ts.replace(/Z$/, '.000000000Z')
}
