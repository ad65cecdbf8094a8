// The flag groups of `rollout watch` beside the shared ones (flag-groups.ts): how long and for what
// to wait (one Deployment's watch and the gate both read it), what a simulation assumes, and what
// the gate reports. Each completes itself from the parsed flags, as flag-groups.ts's do.

import type {IntOrString} from '../controller/api/types.js'
import {UsageError} from '../errors.js'
import type {GateOptions} from '../status/gate.js'

/** A Go-style duration flag: at least `min` ms (a usage error naming the flag otherwise). */
async function durationFlag(flag: string, value: string, min: number): Promise<number> {
  const {parseDuration} = await import('../util/duration.js')
  const ms = parseDuration(value)
  if (ms === undefined || ms < min) {
    throw new UsageError(
      `invalid --${flag} "${value}": want a duration such as 10s, 1m30s or 500ms${min > 0 ? ' greater than 0' : ''}`,
    )
  }
  return ms
}

/** A count flag: a whole number, 0 or more. */
function countFlag(flag: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`invalid --${flag} "${value}": want a whole number, 0 or more`)
  }
  return value
}

export interface SimulationFlagValues {
  'pod-ready-after'?: string
  'terminate-after'?: string
  'fail-new-pods'?: string
  'max-time'?: string
  speed?: string
}

/** What a simulated rollout (-f) assumes of the cluster, and how fast a terminal replays it. */
export class SimulationOptions {
  readyAfter = 10_000
  terminateAfter = 5_000
  failNewPods: IntOrString | undefined
  maxTime = 30 * 60_000
  speed: number | 'auto' = 'auto'
  /** The simulation's own flags that were given (--fail-new-pods, --max-time, ...): they ask for one. */
  given: string[] = []

  async complete(flags: SimulationFlagValues): Promise<void> {
    this.readyAfter = await durationFlag('pod-ready-after', flags['pod-ready-after'] ?? '10s', 0)
    this.terminateAfter = await durationFlag('terminate-after', flags['terminate-after'] ?? '5s', 0)
    this.maxTime = await durationFlag('max-time', flags['max-time'] ?? '30m', 1)
    const simulation = ['pod-ready-after', 'terminate-after', 'fail-new-pods', 'max-time'] as const
    this.given = simulation.filter((f) => flags[f] !== undefined).map((f) => `--${f}`)
    if (flags['fail-new-pods'] !== undefined) {
      const {parseFailNewPods, SimulationError} = await import('../sim/simulator.js')
      try {
        this.failNewPods = parseFailNewPods(flags['fail-new-pods'])
      } catch (err) {
        if (err instanceof SimulationError)
          throw new UsageError(err.message.replace('fail-new-pods', '--fail-new-pods'))
        throw err
      }
    }
    if (flags.speed !== undefined && flags.speed !== 'auto') {
      const speed = Number(flags.speed)
      if (!Number.isFinite(speed) || speed <= 0) {
        throw new UsageError(
          `invalid --speed "${flags.speed}": want auto or a positive number (virtual seconds per second)`,
        )
      }
      this.speed = speed
    }
  }
}

export interface WaitFlagValues {
  timeout?: string
  settled?: boolean
  'paused-ok'?: boolean
  'fail-fast'?: boolean
  'max-restarts'?: number
  'unschedulable-grace'?: string
}

/**
 * How long to wait and what ends the wait (upstream: kubectl rollout status's --timeout, with the
 * status model's judgement of done and failed): one Deployment's live watch and the gate read it.
 */
export class WaitOptions {
  /** --timeout (0: never). */
  timeoutMs = 0
  judge: GateOptions = {
    failFast: true,
    maxRestarts: 2,
    unschedulableGraceMs: 60_000,
    settled: false,
    pausedOk: false,
  }

  get settled(): boolean {
    return this.judge.settled
  }
  get pausedOk(): boolean {
    return this.judge.pausedOk
  }

  async complete(flags: WaitFlagValues): Promise<void> {
    if (flags.timeout !== undefined) this.timeoutMs = await durationFlag('timeout', flags.timeout, 0)
    this.judge = {
      failFast: flags['fail-fast'] !== false,
      maxRestarts: countFlag('max-restarts', flags['max-restarts'], 2),
      unschedulableGraceMs:
        flags['unschedulable-grace'] !== undefined
          ? await durationFlag('unschedulable-grace', flags['unschedulable-grace'], 0)
          : 60_000,
      settled: flags.settled === true,
      pausedOk: flags['paused-ok'] === true,
    }
  }
}

export interface GateReportFlagValues {
  'require-existing'?: boolean
  'log-lines'?: number
  junit?: string
}

/** What the gate over several Deployments reports, and whether a missing one fails it at once. */
export class GateReportOptions {
  /** A Deployment missing at the start is an error instead of being waited for. */
  requireExisting = false
  logLines = 20
  junit: string | undefined

  complete(flags: GateReportFlagValues): void {
    this.requireExisting = flags['require-existing'] === true
    this.logLines = countFlag('log-lines', flags['log-lines'], 20)
    if (flags.junit !== undefined) {
      if (flags.junit === '') throw new UsageError('--junit wants a file name')
      this.junit = flags.junit
    }
  }
}
