// The world a timeline describes at one moment: every change up to it applied, in order. Objects are
// shared with the timeline, never changed: a change replaces an object, a deletion removes it.

import type {Deployment, Pod, ReplicaSet} from '../../controller/api/types.js'
import {type ClusterObject, emptyWorld, type KubeEvent, type World} from '../world.js'
import type {Timeline, TimelineChange} from './read.js'

export class TimelineState {
  private readonly live = new Map<string, TimelineChange>()
  /** How many changes of the timeline have been applied. */
  applied = 0

  constructor(private readonly timeline: Timeline) {}

  /** Applies the next change; returns it, or undefined at the end. */
  step(): TimelineChange | undefined {
    const c = this.timeline.changes[this.applied]
    if (!c) return undefined
    this.applied++
    if (c.type === 'DELETED') this.live.delete(c.key)
    else this.live.set(c.key, c)
    return c
  }

  /** Applies every change up to and including time `t`. */
  advanceTo(t: number): void {
    for (
      let c = this.timeline.changes[this.applied];
      c && c.time <= t;
      c = this.timeline.changes[this.applied]
    )
      this.step()
  }

  /** The last change of an object still alive, by `Kind/namespace/name`. */
  get(key: string): TimelineChange | undefined {
    return this.live.get(key)
  }

  /** The objects alive now, as the last change of each. */
  changes(): IterableIterator<TimelineChange> {
    return this.live.values()
  }

  /** The world now (the timeline's objects, shared: do not change them). */
  world(namespace?: string): World {
    const w = emptyWorld()
    for (const c of this.live.values()) {
      if (namespace !== undefined && (c.object.metadata as {namespace?: string}).namespace !== namespace)
        continue
      switch (c.kind) {
        case 'Deployment':
          w.deployments.push(c.object as unknown as Deployment)
          break
        case 'ReplicaSet':
          w.replicaSets.push(c.object as unknown as ReplicaSet)
          break
        case 'Pod':
          w.pods.push(c.object as unknown as Pod)
          break
        case 'Event':
          ;(w.events ??= []).push(c.object as KubeEvent)
          break
        case 'HorizontalPodAutoscaler':
          ;(w.autoscalers ??= []).push(c.object as unknown as ClusterObject)
      }
    }
    return w
  }
}
