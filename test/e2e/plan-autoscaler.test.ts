// An autoscaler in the simulation (issue 27 item 5), through the built CLI: the HPA's replica
// calculation runs every 15 s of the simulated rollout over the Deployment's pods, surge pods too,
// writes the Deployment's spec.replicas, and the ported controller scales the ReplicaSets
// proportionally. Offline (the HPA in --current), live (the HPA on the test API server), and
// `rollout watch -f`, which runs the same simulator.

import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse, stringify} from 'yaml'
import type {PlanResult} from '../../src/plan/index.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import {cli, cliAsync, ROOT, tempFiles} from './helpers.js'

type Item = PlanResult['items'][number]

const hpa = (utilization: number) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: {name: 'web', namespace: 'demo'},
  spec: {
    scaleTargetRef: {apiVersion: 'apps/v1', kind: 'Deployment', name: 'web'},
    minReplicas: 2,
    maxReplicas: 20,
    metrics: [
      {type: 'Resource', resource: {name: 'cpu', target: {type: 'Utilization', averageUtilization: 80}}},
    ],
  },
  status: {
    currentReplicas: 3,
    desiredReplicas: 3,
    currentMetrics: [{type: 'Resource', resource: {name: 'cpu', current: {averageUtilization: utilization}}}],
  },
})

const steady = readFileSync(join(ROOT, 'examples/steady.yaml'), 'utf8')
// The change: a new image, and minReadySeconds 30 (new pods are Ready, hence counted by the
// autoscaler, for 30 s before they are available and the old pods go).
const proposed = readFileSync(join(ROOT, 'examples/plan/web-image.yaml'), 'utf8').replace(
  'spec:\n  replicas: 3',
  'spec:\n  replicas: 3\n  minReadySeconds: 30',
)
const flags = ['-o', 'json', '--now', '2026-11-29T10:00:00Z', '--pod-ready-after', '5s']
const hpaSteps = (item: Item) =>
  item.steps.filter((s) => s.role === 'autoscaler').map((s) => [s.atSeconds, s.from, s.to])
// The first syncs, as test/unit/plan.test.ts derives them: ceil(1.125 × the sampled pods).
const AMPLIFIED = [
  [30, 3, 5],
  [60, 5, 8],
  [90, 8, 12],
]

let dir: string
let server: ApiServer

beforeAll(async () => {
  dir = tempFiles({
    'near.yaml': `${steady}\n---\n${stringify(hpa(90))}`,
    'spare.yaml': `${steady}\n---\n${stringify(hpa(40))}`,
    'proposed.yaml': proposed,
  })
  const list = parse(steady) as {items: unknown[]}
  server = await startApiServer({objects: [...list.items, hpa(90)]})
})

afterAll(async () => {
  await server?.close()
})

describe('an autoscaler in the simulation (issue 27 item 5)', () => {
  it('offline: near its limit it grows the Deployment during the rollout, the steps show it, AutoscalerAmplifies', () => {
    const r = cli(['plan', '-f', join(dir, 'proposed.yaml'), '--current', join(dir, 'near.yaml'), ...flags])
    expect(r.stderr).toBe('')
    const item = (JSON.parse(r.stdout) as PlanResult).items[0] as Item
    expect(hpaSteps(item).slice(0, 3)).toEqual(AMPLIFIED)
    expect(item.autoscalers[0]).toMatchObject({name: 'web', now: 4, peak: {replicas: 20}})
    expect(item.risks.find((x) => x.code === 'AutoscalerAmplifies')?.message).toMatch(
      /^HorizontalPodAutoscaler web counts the rollout's new pods too: .* it would ask for 20 replicas \(4 without the surge\)/,
    )
    const table = cli([
      'plan',
      '-f',
      join(dir, 'proposed.yaml'),
      '--current',
      join(dir, 'near.yaml'),
      ...flags.slice(2),
    ])
    expect(table.stdout).toMatch(/\+30s +hpa\/web +Deployment spec\.replicas +3 -> 5 +scale up/)
    expect(table.stdout).toContain('Autoscaler web (90% cpu, target 80%): 4 replicas, up to 20')
  })

  it('offline: with room to spare it does not (a scale-down waits for its 300 s window)', () => {
    const r = cli(['plan', '-f', join(dir, 'proposed.yaml'), '--current', join(dir, 'spare.yaml'), ...flags])
    const item = (JSON.parse(r.stdout) as PlanResult).items[0] as Item
    expect(hpaSteps(item)).toEqual([])
    expect(item.autoscalers[0]).toMatchObject({name: 'web', now: 2, steps: []})
    expect(item.risks.map((x) => x.code)).not.toContain('AutoscalerAmplifies')
    expect(item.steps.at(-1)).toMatchObject({role: 'old', to: 0})
  })

  it('live: the HPA read from the cluster plays the same', async () => {
    const env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir}
    const r = await cliAsync(['plan', '-f', join(dir, 'proposed.yaml'), ...flags], {env})
    expect(r.stderr).toBe('')
    const item = (JSON.parse(r.stdout) as PlanResult).items[0] as Item
    expect(hpaSteps(item).slice(0, 3)).toEqual(AMPLIFIED)
    expect(item.risks.map((x) => x.code)).toContain('AutoscalerAmplifies')
  })

  it('rollout watch -f runs the same autoscaler', () => {
    // The world right after the apply: the Deployment with the new template, before the controller acts.
    const list = parse(steady) as {items: Array<{kind: string; spec: Record<string, unknown>}>}
    const d = list.items.find((o) => o.kind === 'Deployment') as {spec: Record<string, unknown>}
    d.spec.minReadySeconds = 30
    const template = d.spec.template as {spec: {containers: Array<{image: string}>}}
    ;(template.spec.containers[0] as {image: string}).image = 'nginx:1.28'
    const changed = tempFiles({'world.yaml': `${stringify(list)}\n---\n${stringify(hpa(90))}`})
    const watch = ['rollout', 'watch', 'web', '-f', join(changed, 'world.yaml'), '-n', 'demo']
    watch.push('--now', '2026-11-29T10:00:00Z', '--pod-ready-after', '5s')
    const r = cli([...watch, '-o', 'json'])
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    const scaled = lines
      .flatMap((l) => (l.actions ?? []) as Array<{actor: string; summary: string}>)
      .filter((a) => a.actor === 'horizontal-pod-autoscaler')
      .map((a) => a.summary.split(' (')[0])
    expect(scaled.slice(0, 3)).toEqual(['replicas 3 -> 5', 'replicas 5 -> 8', 'replicas 8 -> 12'])
    const lines2 = cli([...watch, '--line-mode'])
    expect(lines2.stdout).toContain(
      'web [10:00:30 +30s] horizontalpodautoscaler/web: New size: 5; reason: cpu resource utilization (percentage of request) above target',
    )
    expect(lines2.stdout).toContain('at most 20 pods')
  })
})
