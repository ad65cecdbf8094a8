import {beforeEach, describe, expect, it} from 'vitest'
import type {World} from '../../src/cluster/world.js'
import {newNotFound, StatusError} from '../../src/controller/api/errors.js'
import type {Deployment} from '../../src/controller/api/types.js'
import {parseFeatureGates} from '../../src/controller/features.js'
import type {ControllerContext} from '../../src/controller/interfaces.js'
import {parseLabelSelector} from '../../src/controller/util/labels.js'
import {InputError, UsageError} from '../../src/errors.js'
import {runPasses} from '../../src/pass/run.js'
import {
  noResourcesMessage,
  parseNames,
  parseSelectorFlag,
  selectDeployments,
} from '../../src/pass/selection.js'
import {deployment as build} from '../objects.js'

// The runner is tested against a stand-in for syncDeployment (PassOptions.sync), so that these
// tests pin the runner's own contract (contexts, recording, requeue rules) whatever the controller
// decides.
const sync = {
  impl: async (_ctx: ControllerContext, _ns: string, _name: string): Promise<void> => {},
}
const standIn = (ctx: ControllerContext, ns: string, name: string) => sync.impl(ctx, ns, name)

const NOW = Date.parse('2026-11-29T10:05:00Z')
const gates = parseFeatureGates(undefined)

function deployment(namespace: string, name: string, labels: Record<string, string> = {}): Deployment {
  return build({
    name,
    namespace,
    labels,
    replicas: 1,
    metadata: {uid: `uid-${namespace}-${name}`, generation: 1},
  })
}

function world(...deployments: Deployment[]): World {
  return {deployments, replicaSets: [], pods: [], sources: new WeakMap()}
}

describe('parseNames', () => {
  it('accepts kubectl resource/name spellings', () => {
    expect(
      parseNames([
        'web',
        'deployment/a',
        'deploy/b',
        'deployments/c',
        'deployments.apps/d',
        'deployment.apps/e',
      ]),
    ).toEqual(['web', 'a', 'b', 'c', 'd', 'e'])
    expect(parseNames(['deployment', 'web', 'api'])).toEqual(['web', 'api'])
    expect(parseNames(['deploy'])).toEqual([])
    expect(parseNames(['web', 'deploy/web'])).toEqual(['web'])
  })

  it('rejects other resource types and empty names', () => {
    expect(() => parseNames(['rs/web'])).toThrow(UsageError)
    expect(() => parseNames(['deployment/'])).toThrow(UsageError)
    expect(() => parseNames(['deployment', 'deploy/web'])).toThrow(/no need to specify a resource type/)
  })
})

describe('parseLabelSelector (upstream: labels.Parse)', () => {
  const labels = {app: 'web', tier: 'front', n: '5'}
  const cases: Array<{name: string; given: string; want: boolean}> = [
    {name: 'everything', given: '', want: true},
    {name: 'equality', given: 'app=web', want: true},
    {name: 'double-equals equality', given: 'app==web', want: true},
    {name: 'inequality of the same value', given: 'app!=web', want: false},
    {name: 'inequality of another value', given: 'app!=api', want: true},
    {name: 'inequality of a missing key', given: 'missing!=x', want: true},
    {name: 'a set', given: 'app in (api, web)', want: true},
    {name: 'a set excluded', given: 'app notin (api,web)', want: false},
    {name: 'a missing key not in a set', given: 'missing notin (a)', want: true},
    {name: 'existence', given: 'tier', want: true},
    {name: 'absence of a present key', given: '!tier', want: false},
    {name: 'absence', given: '!missing', want: true},
    {name: 'one requirement failing', given: 'app=web,tier=back', want: false},
    {name: 'spaces between requirements', given: 'app=web, tier=front ,!missing', want: true},
    {name: 'greater than', given: 'n>4', want: true},
    {name: 'less than', given: 'n<5', want: false},
    {name: 'a comparison on a non-number', given: 'app>1', want: false},
  ]
  it.each(cases)('$name: $given', ({given, want}) => {
    expect(parseLabelSelector(given).matches(labels)).toBe(want)
  })

  it.each(['app in (', 'app in ()', '=web', 'app=web,', 'app web', 'n>x', 'app=a b', 'Bad Key=1', 'app=-x'])(
    'rejects %s',
    (input) => {
      expect(() => parseSelectorFlag(input)).toThrow(UsageError)
    },
  )

  it('prints a normalised form', () => {
    expect(parseLabelSelector('a = b, c in (x,y), !d, e').toString()).toBe('a=b,c in (x,y),!d,e')
  })
})

describe('selectDeployments', () => {
  const w = world(
    deployment('demo', 'web', {tier: 'front'}),
    deployment('default', 'zeta'),
    deployment('demo', 'api', {tier: 'back'}),
    deployment('default', 'alpha'),
  )
  const keys = (sel: Parameters<typeof selectDeployments>[1]) =>
    selectDeployments(w, sel).map((k) => `${k.namespace}/${k.name}`)

  it('defaults to every Deployment of the default namespace, sorted', () => {
    expect(keys({})).toEqual(['default/alpha', 'default/zeta'])
  })
  it('selects by namespace, all namespaces, labels and names', () => {
    expect(keys({namespace: 'demo'})).toEqual(['demo/api', 'demo/web'])
    expect(keys({allNamespaces: true})).toEqual(['default/alpha', 'default/zeta', 'demo/api', 'demo/web'])
    expect(keys({allNamespaces: true, labelSelector: 'tier=front'})).toEqual(['demo/web'])
    expect(keys({namespace: 'demo', names: ['web', 'api']})).toEqual(['demo/api', 'demo/web'])
  })
  it('fails like kubectl for a missing name and for conflicting flags', () => {
    expect(() => keys({names: ['web']})).toThrow(new InputError('deployments.apps "web" not found'))
    expect(() => keys({names: ['web'], allNamespaces: true})).toThrow(UsageError)
    expect(() => keys({names: ['web'], labelSelector: 'a=b'})).toThrow(UsageError)
  })
  it('words the empty case as kubectl does', () => {
    expect(noResourcesMessage({namespace: 'demo'})).toBe('No resources found in demo namespace.')
    expect(noResourcesMessage({})).toBe('No resources found in default namespace.')
    expect(noResourcesMessage({allNamespaces: true})).toBe('No resources found')
  })
})

describe('runPasses', () => {
  beforeEach(() => {
    sync.impl = async () => {}
  })

  it('gives each Deployment a context and records writes, events, path, requeue', async () => {
    const seen: string[] = []
    sync.impl = async (ctx, ns, name) => {
      ctx.trace.enter('syncDeployment')
      seen.push(`${ns}/${name}@${ctx.clock.now()}`)
      const d = ctx.listers.getDeployment(ns, name)!
      await ctx.client.getDeployment(ns, name)
      ctx.trace.enter('rolloutRolling')
      ctx.trace.fact('lastRevision', '1')
      await ctx.client.createReplicaSet({
        metadata: {
          name: `${name}-abc`,
          namespace: ns,
          ownerReferences: [
            {apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid ?? '', controller: true},
          ],
        },
        spec: {replicas: 1},
      })
      ctx.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${name}-abc from 0 to 1`)
      ctx.queue.addAfter(30.5)
      ctx.queue.addAfter(600)
    }
    const {result, objects} = await runPasses(
      world(deployment('demo', 'web'), deployment('demo', 'api')),
      {namespace: 'demo'},
      {now: NOW, gates, collectFacts: true, sync: standIn},
    )
    expect(seen).toEqual([`demo/api@${NOW}`, `demo/web@${NOW}`])
    expect(result).toMatchObject({kind: 'SyncResult', now: '2026-11-29T10:05:00Z'})
    const web = result.items[1]!
    expect(web.path).toEqual(['syncDeployment', 'rolloutRolling'])
    expect(web.actions.map((a) => a.verb)).toEqual(['create']) // the get is not a write
    expect(web.events).toEqual([
      {
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        message: 'Scaled up replica set web-abc from 0 to 1',
        object: {kind: 'Deployment', namespace: 'demo', name: 'web'},
      },
    ])
    expect(web.requeue).toEqual({kind: 'after', seconds: 30.5})
    expect(web.requeueAfterSeconds).toBe(30.5)
    expect(web.error).toBeNull()
    expect(web.facts).toEqual([{fn: 'rolloutRolling', name: 'lastRevision', value: '1'}])
    expect(objects.map((o) => o.metadata.name)).toEqual(['web', 'web-abc', 'api', 'api-abc'])
  })

  it('turns a rejected sync into an error with a rate-limited requeue', async () => {
    sync.impl = async (ctx) => {
      ctx.queue.addAfter(10)
      throw newNotFound('replicasets.apps', 'x')
    }
    const {result} = await runPasses(
      world(deployment('default', 'web')),
      {},
      {now: NOW, gates, sync: standIn},
    )
    expect(result.items[0]).toMatchObject({
      error: 'replicasets.apps "x" not found',
      requeue: {kind: 'rateLimited'},
      requeueAfterSeconds: 0,
    })
    expect(result.items[0]).not.toHaveProperty('facts')
  })

  it('forgets the key when the namespace is terminating, and rate-limits on AddRateLimited', async () => {
    sync.impl = async () => {
      throw new StatusError('Forbidden', 403, 'namespace is terminating', [{type: 'NamespaceTerminating'}])
    }
    let {result} = await runPasses(world(deployment('default', 'web')), {}, {now: NOW, gates, sync: standIn})
    expect(result.items[0]).toMatchObject({requeue: null, requeueAfterSeconds: null})
    sync.impl = async (ctx) => ctx.queue.addRateLimited()
    ;({result} = await runPasses(world(deployment('default', 'web')), {}, {now: NOW, gates, sync: standIn}))
    expect(result.items[0]).toMatchObject({
      requeue: {kind: 'rateLimited'},
      requeueAfterSeconds: 0,
      error: null,
    })
  })

  it('shares one store across Deployments while the listers keep the initial world', async () => {
    const observed: Array<number | undefined> = []
    sync.impl = async (ctx, ns, name) => {
      observed.push(ctx.listers.getDeployment(ns, 'a')?.spec.replicas)
      if (name === 'a') {
        const d = await ctx.client.getDeployment(ns, name)
        await ctx.client.updateDeployment({...d, spec: {...d.spec, replicas: 7}})
      } else {
        observed.push((await ctx.client.getDeployment(ns, 'a')).spec.replicas)
      }
    }
    const {world: after} = await runPasses(
      world(deployment('default', 'a'), deployment('default', 'b')),
      {},
      {now: NOW, gates, sync: standIn},
    )
    expect(observed).toEqual([1, 1, 7])
    expect(after.deployments[0]?.spec.replicas).toBe(7)
    expect(after.deployments[0]?.metadata.generation).toBe(2)
  })

  it('returns an empty result when nothing is selected', async () => {
    const {result} = await runPasses(world(), {namespace: 'demo'}, {now: NOW, gates, sync: standIn})
    expect(result.items).toEqual([])
    expect(result.featureGates).toMatchObject({DeploymentReplicaSetTerminatingReplicas: true})
  })
})
