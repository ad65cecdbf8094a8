// The deployment util package and the controller helpers it leans on: upstream's
// deployment_util_test.go cases, plus the Go parsing and rounding rules the port must reproduce.

import {describe, expect, it} from 'vitest'
import type {
  Deployment,
  DeploymentCondition,
  DeploymentStatus,
  IntOrString,
  PodTemplateSpec,
  ReplicaSet,
} from '../../../src/controller/api/types.js'
import {computeHash, safeEncodeString} from '../../../src/controller/controller-utils.js'
import {getRollbackTo} from '../../../src/controller/rollback.js'
import {generateReplicaSetName} from '../../../src/controller/sync.js'
import {
  DeprecatedRollbackTo,
  DesiredReplicasAnnotation,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  equalIgnoreHash,
  FencepostError,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getActualReplicaCountForReplicaSets,
  getDeploymentCondition,
  getDesiredReplicasAnnotation,
  getReplicaCountForReplicaSets,
  getReplicaSetFraction,
  getReplicaSetProportion,
  getTerminatingReplicaCountForReplicaSets,
  isSaturated,
  LastAppliedConfigAnnotation,
  lastRevision,
  MaxReplicasAnnotation,
  maxRevision,
  maxUnavailable,
  minAvailable,
  newRSNewReplicas,
  RevisionAnnotation,
  RevisionError,
  RevisionHistoryAnnotation,
  removeDeploymentCondition,
  replicasAnnotationsNeedUpdate,
  resolveFenceposts,
  revision,
  roundToInt32,
  setDeploymentCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  skipCopyAnnotation,
} from '../../../src/controller/util/deployment-util.js'
import {parseInt64, parseNonNegativeInt32} from '../../../src/controller/util/go.js'
import {getScaledValueFromIntOrPercent, IntOrStringError} from '../../../src/controller/util/intstr.js'
import {iso, newUID, rs, withStatus} from './fixtures.js'

const H = 'pod-template-hash'
const MaxInt32 = 2147483647

// upstream: generateDeployment(image) — no strategy unless a test sets one.
function generateDeployment(image: string): Deployment {
  return {
    metadata: {name: image, namespace: 'default', uid: newUID('d'), annotations: {}},
    spec: {
      replicas: 1,
      selector: {matchLabels: {name: image}},
      template: {
        metadata: {labels: {name: image}},
        spec: {
          containers: [
            {
              name: image,
              image,
              imagePullPolicy: 'Always',
              terminationMessagePath: '/dev/termination-log',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          terminationGracePeriodSeconds: 30,
          restartPolicy: 'Always',
          securityContext: {},
          enableServiceLinks: true,
        },
      },
    },
  }
}

// upstream: generateRS(d) — owned by d, 0 replicas, d's template and labels.
function generateRS(d: Deployment, o: {created?: number; replicas?: number; hash?: string} = {}): ReplicaSet {
  const labels = {...(d.spec.template.metadata?.labels ?? {}), ...(o.hash ? {[H]: o.hash} : {})}
  const tpl = structuredClone(d.spec.template)
  tpl.metadata = {...(tpl.metadata ?? {}), labels: {...labels}}
  return {
    metadata: {
      name: `${d.metadata.name}-${newUID('x').slice(-5)}`,
      namespace: 'default',
      uid: newUID('rs'),
      labels,
      ownerReferences: [
        {apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata.name ?? '', uid: d.metadata.uid ?? ''},
      ],
      ...(o.created !== undefined ? {creationTimestamp: iso(o.created)} : {}),
    },
    spec: {replicas: o.replicas ?? 0, selector: {matchLabels: {...labels}}, template: tpl},
  }
}

function rolling(replicas: number, maxSurge: IntOrString, maxUnav: IntOrString): Deployment {
  return {
    metadata: {name: 'foo', namespace: 'default', uid: newUID('d'), generation: 0},
    spec: {
      replicas,
      selector: {matchLabels: {foo: 'bar'}},
      strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge, maxUnavailable: maxUnav}},
      template: {metadata: {labels: {foo: 'bar'}}},
    },
  }
}

function recreate(replicas?: number): Deployment {
  const d = rolling(1, 0, 0)
  d.spec.strategy = {type: 'Recreate'}
  if (replicas === undefined) delete d.spec.replicas
  else d.spec.replicas = replicas
  return d
}

function annotated(r: ReplicaSet, annotations: Record<string, string> | undefined): ReplicaSet {
  if (annotations === undefined) delete r.metadata.annotations
  else r.metadata.annotations = {...annotations}
  return r
}

// --- fenceposts -----------------------------------------------------------------------------------

describe('ResolveFenceposts', () => {
  const cases: Array<[string | undefined, string | undefined, number, number, number, boolean]> = [
    ['0%', '0%', 0, 0, 1, false],
    ['39%', '39%', 10, 4, 3, false],
    ['oops', '39%', 10, 0, 0, true],
    ['55%', 'urg', 10, 0, 0, true],
    [undefined, '39%', 10, 0, 3, false],
    ['39%', undefined, 10, 4, 0, false],
    [undefined, undefined, 10, 0, 1, false],
  ]
  for (const [s, u, desired, surge, unavailable, fails] of cases) {
    it(`maxSurge=${s} maxUnavailable=${u} desired=${desired}`, () => {
      if (fails) {
        expect(() => resolveFenceposts(s, u, desired)).toThrow(IntOrStringError)
        return
      }
      expect(resolveFenceposts(s, u, desired)).toEqual({surge, unavailable})
    })
  }

  it('rounds surge up and unavailable down', () => {
    expect(resolveFenceposts('25%', '25%', 3)).toEqual({surge: 1, unavailable: 0})
    expect(resolveFenceposts('1%', '99%', 99)).toEqual({surge: 1, unavailable: 98})
    expect(resolveFenceposts(3, 2, 10)).toEqual({surge: 3, unavailable: 2})
  })

  it('turns unavailable into 1 only when both resolve to zero', () => {
    expect(resolveFenceposts('10%', '10%', 5)).toEqual({surge: 1, unavailable: 0})
    expect(resolveFenceposts(0, '10%', 5)).toEqual({surge: 0, unavailable: 1})
    expect(resolveFenceposts(0, 0, 0)).toEqual({surge: 0, unavailable: 1})
  })

  it('rejects values outside int32 after scaling', () => {
    expect(() => resolveFenceposts('200%', 0, MaxInt32)).toThrow(
      new FencepostError('surge value 4294967294 is out of int32 bounds'),
    )
    expect(() => resolveFenceposts(0, '300%', MaxInt32)).toThrow(
      new FencepostError('unavailable value 6442450941 is out of int32 bounds'),
    )
  })
})

describe('GetScaledValueFromIntOrPercent (Go Atoi on the percent)', () => {
  it('accepts a sign and rejects spaces, decimals and missing %', () => {
    expect(getScaledValueFromIntOrPercent('+50%', 10, false)).toBe(5)
    expect(getScaledValueFromIntOrPercent('-50%', 10, false)).toBe(-5)
    expect(getScaledValueFromIntOrPercent(7, 10, false)).toBe(7)
    for (const bad of ['5.5%', ' 5%', '5', '%', '0x10%', '1e1%']) {
      expect(() => getScaledValueFromIntOrPercent(bad, 10, true), bad).toThrow(IntOrStringError)
    }
    expect(() => getScaledValueFromIntOrPercent(undefined, 10, true)).toThrow('nil value for IntOrString')
  })

  it('reports Atoi errors as Go does, out of int64 range included', () => {
    expect(() => getScaledValueFromIntOrPercent('abc%', 10, true)).toThrow(
      new IntOrStringError(
        'invalid value for IntOrString: invalid value "abc%": strconv.Atoi: parsing "abc": invalid syntax',
      ),
    )
    expect(() => getScaledValueFromIntOrPercent('9223372036854775808%', 10, true)).toThrow(
      new IntOrStringError(
        'invalid value for IntOrString: invalid value "9223372036854775808%": strconv.Atoi: parsing "9223372036854775808": value out of range',
      ),
    )
    expect(() => getScaledValueFromIntOrPercent('-9223372036854775809%', 10, true)).toThrow(
      /value out of range/,
    )
    expect(getScaledValueFromIntOrPercent('9223372036854775807%', 0, true)).toBe(0)
  })
})

describe('MaxUnavailable / MinAvailable', () => {
  const cases: Array<[string, Deployment, number, number]> = [
    ['10 replicas, 5', rolling(10, 1, 5), 5, 5],
    ['10 replicas, 10', rolling(10, 1, 10), 10, 0],
    ['5 replicas, 10 (clamped)', rolling(5, 1, 10), 5, 0],
    ['0 replicas', rolling(0, 1, 10), 0, 0],
    ['Recreate', recreate(), 0, 0],
    ['Recreate, 10 replicas', recreate(10), 0, 0],
    ['10 replicas, 50%', rolling(10, 1, '50%'), 5, 5],
    ['10 replicas, 60%', rolling(10, 1, '60%'), 6, 4],
    ['10 replicas, 100%', rolling(10, 1, '100%'), 10, 0],
    ['5 replicas, 100%', rolling(5, 1, '100%'), 5, 0],
  ]
  for (const [name, d, maxUnav, minAvail] of cases) {
    it(name, () => {
      expect(maxUnavailable(d)).toBe(maxUnav)
      expect(minAvailable(d)).toBe(minAvail)
    })
  }
})

// --- NewRSNewReplicas -----------------------------------------------------------------------------

describe('NewRSNewReplicas', () => {
  const cases: Array<[string, boolean, number, number, number, number]> = [
    ['can not scale up', true, 1, 5, 1, 5],
    ['scale up to depReplicas', true, 6, 2, 10, 6],
    ['recreate', false, 3, 1, 1, 3],
  ]
  for (const [name, isRolling, replicas, newReplicas, surge, want] of cases) {
    it(name, () => {
      const d = isRolling ? rolling(replicas, surge, 1) : recreate(replicas)
      const rs5 = rs('rs5', 5, {foo: 'bar'})
      const newRS = rs('new', newReplicas, {foo: 'bar'})
      // newRS is deliberately not part of allRSs, as upstream's test has it.
      expect(newRSNewReplicas(d, [rs5], newRS)).toBe(want)
    })
  }

  it('uses maxSurge directly, without the both-zero fencepost', () => {
    const d = rolling(3, 0, 0)
    expect(newRSNewReplicas(d, [rs('old', 3, {})], rs('new', 0, {}))).toBe(0)
  })

  it('fails on a nil maxSurge and on unknown strategies', () => {
    const d = rolling(3, 0, 0)
    delete d.spec.strategy?.rollingUpdate?.maxSurge
    expect(() => newRSNewReplicas(d, [], rs('new', 0, {}))).toThrow('nil value for IntOrString')
    const other = rolling(3, 0, 0)
    other.spec.strategy = {type: 'Canary'}
    expect(() => newRSNewReplicas(other, [], rs('new', 0, {}))).toThrow(
      "deployment type Canary isn't supported",
    )
  })
})

// --- proportions ----------------------------------------------------------------------------------

describe('GetReplicaSetFraction', () => {
  const cases: Array<[string, number, number, number, number, string | undefined, number]> = [
    ['empty deployment → 0', 0, 0, 0, 10, undefined, -10],
    ['annotation missing, status 0', 10, 0, 0, 5, undefined, 0],
    ['annotation 0, status 0', 10, 0, 0, 5, '0', 0],
    ['annotation missing, status 100', 120, 100, 0, 50, undefined, 10],
    ['annotation 0, status 100', 120, 100, 0, 50, '0', 10],
    ['scale up by 1/5', 120, 0, 0, 50, '100', 10],
    ['scale up with surge', 120, 0, 10, 50, '110', 9],
    ['scale down by 1/6', 10, 0, 0, 6, '12', -1],
    ['scale down with surge', 100, 0, 10, 50, '130', -8],
  ]
  for (const [name, replicas, statusReplicas, surge, rsReplicas, max, want] of cases) {
    it(name, () => {
      const d = rolling(replicas, surge, 1)
      d.status = {replicas: statusReplicas}
      const r = annotated(rs('foo', rsReplicas, {}), max === undefined ? {} : {[MaxReplicasAnnotation]: max})
      expect(getReplicaSetFraction(r, d)).toBe(want)
    })
  }

  it('falls back to status.replicas when the annotation is invalid', () => {
    const d = rolling(120, 0, 1)
    d.status = {replicas: 100}
    for (const bad of ['-100', '+100', '1e2', 'abc', '4294967296']) {
      const r = annotated(rs('foo', 50, {}), {[MaxReplicasAnnotation]: bad})
      expect(getReplicaSetFraction(r, d), bad).toBe(10)
    }
  })

  it('rounds half away from zero', () => {
    const d = rolling(5, 0, 1)
    // 1 · 5 / 2 = 2.5 → 3
    expect(getReplicaSetFraction(annotated(rs('a', 1, {}), {[MaxReplicasAnnotation]: '2'}), d)).toBe(2)
    // 3 · 5 / 6 = 2.5 → 3
    expect(getReplicaSetFraction(annotated(rs('b', 3, {}), {[MaxReplicasAnnotation]: '6'}), d)).toBe(0)
    // 1 · 5 / 4 = 1.25 → 1
    expect(getReplicaSetFraction(annotated(rs('c', 1, {}), {[MaxReplicasAnnotation]: '4'}), d)).toBe(0)
    expect(roundToInt32(2.5)).toBe(3)
    expect(roundToInt32(-2.5)).toBe(-3)
    expect(roundToInt32(-2.49)).toBe(-2)
    expect(roundToInt32(0.5)).toBe(1)
    expect(roundToInt32(-0.5)).toBe(-1)
  })

  it('multiplies in int32, wrapping around on overflow', () => {
    // 50000 · 50000 = 2.5e9 wraps to -1794967296; / 100000 = -17949.67 → -17950.
    const d = rolling(50000, 0, 1)
    const big = annotated(rs('big', 50000, {}), {[MaxReplicasAnnotation]: '100000'})
    expect(getReplicaSetFraction(big, d)).toBe(-17950 - 50000)
    // 46341² wraps to -2147479015 (odd); / 2 = -1073739507.5 → -1073739508 (half away from zero).
    const d2 = rolling(46341, 0, 1)
    const odd = annotated(rs('odd', 46341, {}), {[MaxReplicasAnnotation]: '2'})
    expect(getReplicaSetFraction(odd, d2)).toBe(-1073739508 - 46341)
  })
})

describe('GetReplicaSetProportion', () => {
  const d = rolling(10, 0, 1)
  const withMax = (replicas: number, max: string) =>
    annotated(rs('r', replicas, {}), {[MaxReplicasAnnotation]: max})

  it('is 0 for a nil or empty ReplicaSet, nothing to add, or nothing left to add', () => {
    expect(getReplicaSetProportion(undefined, d, 5, 0)).toBe(0)
    expect(getReplicaSetProportion(withMax(0, '5'), d, 5, 0)).toBe(0)
    expect(getReplicaSetProportion(withMax(3, '5'), d, 0, 0)).toBe(0)
    expect(getReplicaSetProportion(withMax(3, '5'), d, 4, 4)).toBe(0)
  })

  it('caps a scale-up at what is still allowed', () => {
    // fraction: 3 · 10 / 5 = 6 → +3
    expect(getReplicaSetProportion(withMax(3, '5'), d, 5, 0)).toBe(3)
    expect(getReplicaSetProportion(withMax(3, '5'), d, 5, 3)).toBe(2)
  })

  it('caps a scale-down at what is still allowed', () => {
    // fraction: 8 · 10 / 20 = 4 → -4
    expect(getReplicaSetProportion(withMax(8, '20'), d, -10, 0)).toBe(-4)
    expect(getReplicaSetProportion(withMax(8, '20'), d, -10, -7)).toBe(-3)
  })
})

// --- replica counts -------------------------------------------------------------------------------

describe('replica counts for ReplicaSets', () => {
  const rs1 = withStatus(rs('rs1', 1, {}), {observedGeneration: 1, replicas: 2, terminating: 3})
  // rs2 keeps observedGeneration 0, as upstream's fixture ends up with.
  const rs2 = withStatus(rs('rs2', 2, {}), {replicas: 3, terminating: 1})
  const rs3 = withStatus(rs('rs3', 3, {}), {replicas: 0})
  const rs4 = withStatus(rs('rs4', 1, {}), {observedGeneration: 1, replicas: 1})
  const cases: Array<[string, ReplicaSet[], number, number, number | undefined]> = [
    ['scaling down rs1', [rs1], 1, 2, 3],
    ['rs1 and rs2', [rs1, rs2], 3, 5, 4],
    ['scaling up rs3', [rs3], 3, 0, 0],
    ['rs1, rs2 and rs3', [rs1, rs2, rs3], 6, 5, 4],
    ['invalid rs4 (synced, no terminating count)', [rs4], 1, 1, undefined],
    ['rs1 to rs4', [rs1, rs2, rs3, rs4], 7, 6, undefined],
  ]
  for (const [name, sets, spec, status, terminating] of cases) {
    it(name, () => {
      expect(getReplicaCountForReplicaSets(sets)).toBe(spec)
      expect(getActualReplicaCountForReplicaSets(sets)).toBe(status)
      expect(getTerminatingReplicaCountForReplicaSets(sets)).toBe(terminating)
    })
  }

  it('skips nil entries and sums to 0 (not nil) for none', () => {
    expect(getTerminatingReplicaCountForReplicaSets([])).toBe(0)
    expect(getTerminatingReplicaCountForReplicaSets([undefined, rs2])).toBe(1)
    expect(getReplicaCountForReplicaSets([undefined, rs1])).toBe(1)
  })
})

// --- finding new and old ReplicaSets --------------------------------------------------------------

describe('FindNewReplicaSet / FindOldReplicaSets', () => {
  const now = Date.parse('2026-01-01T12:00:00Z')
  const later = now + 60_000
  const before = now - 60_000
  const setup = () => {
    const d = generateDeployment('nginx')
    const newRS = generateRS(d, {hash: 'hash', created: later, replicas: 1})
    const newRSDup = generateRS(d, {hash: 'different-hash', created: now, replicas: 0})
    const oldD = generateDeployment('nginx')
    oldD.spec.template.spec!.containers![0]!.name = 'nginx-old-1'
    const oldRS = generateRS(oldD, {created: before})
    return {d, newRS, newRSDup, oldRS}
  }

  it('finds the RS with the same template whatever its hash', () => {
    const {d, newRS, oldRS} = setup()
    expect(findNewReplicaSet(d, [newRS, oldRS])).toBe(newRS)
  })

  it('takes the oldest of two RSs with the same template', () => {
    const {d, newRS, newRSDup, oldRS} = setup()
    const list = [newRS, oldRS, newRSDup]
    expect(findNewReplicaSet(d, list)).toBe(newRSDup)
    // The caller's slice is sorted in place, oldest first.
    expect(list).toEqual([oldRS, newRSDup, newRS])
  })

  it('finds nothing when no template matches', () => {
    const {d, oldRS} = setup()
    expect(findNewReplicaSet(d, [oldRS])).toBeUndefined()
  })

  it('lists old ReplicaSets (all, and those with replicas)', () => {
    const {d, newRS, newRSDup, oldRS} = setup()
    expect(findOldReplicaSets(d, [newRS, oldRS])).toEqual([[], [oldRS]])
    expect(findOldReplicaSets(d, [oldRS])).toEqual([[], [oldRS]])
    // Only the oldest matching RS is new; the other one with the same template is old.
    expect(findOldReplicaSets(d, [oldRS, newRS, newRSDup])).toEqual([[newRS], [oldRS, newRS]])
    expect(findOldReplicaSets(d, [newRS])).toEqual([[], []])
  })
})

describe('EqualIgnoreHash', () => {
  const tpl = (
    name: string,
    nodeName: string,
    annotations: Record<string, string>,
    labels: Record<string, string>,
  ): PodTemplateSpec => ({metadata: {name, annotations, labels}, spec: {nodeName}})
  const cases: Array<[string, PodTemplateSpec, PodTemplateSpec, boolean]> = [
    [
      'same spec, same labels',
      tpl('foo', 'foo-node', {}, {[H]: 'value-1', something: 'else'}),
      tpl('foo', 'foo-node', {}, {[H]: 'value-1', something: 'else'}),
      true,
    ],
    [
      'same spec, only the hash value differs',
      tpl('foo', 'foo-node', {}, {[H]: 'value-1', something: 'else'}),
      tpl('foo', 'foo-node', {}, {[H]: 'value-2', something: 'else'}),
      true,
    ],
    [
      'same spec, the former lacks the hash',
      tpl('foo', 'foo-node', {}, {something: 'else'}),
      tpl('foo', 'foo-node', {}, {[H]: 'value-2', something: 'else'}),
      true,
    ],
    [
      'labels differ, the former lacks the hash, same count',
      tpl('foo', 'foo-node', {}, {something: 'else'}),
      tpl('foo', 'foo-node', {}, {[H]: 'value-2'}),
      false,
    ],
    [
      'labels differ, the latter lacks the hash, same count',
      tpl('foo', 'foo-node', {}, {[H]: 'value-1'}),
      tpl('foo', 'foo-node', {}, {something: 'else'}),
      false,
    ],
    [
      'labels differ, same hash value',
      tpl('foo', 'foo-node', {}, {[H]: 'value-1'}),
      tpl('foo', 'foo-node', {}, {[H]: 'value-1', something: 'else'}),
      false,
    ],
    [
      'annotations differ, same labels',
      tpl('foo', 'foo-node', {former: 'value'}, {[H]: 'value-1', something: 'else'}),
      tpl('foo', 'foo-node', {latter: 'value'}, {[H]: 'value-1', something: 'else'}),
      false,
    ],
    [
      'names differ, hashes differ',
      tpl('foo-1', 'foo-node', {}, {[H]: 'value-1', something: 'else'}),
      tpl('foo-2', 'foo-node', {}, {[H]: 'value-2', something: 'else'}),
      false,
    ],
    [
      'names and nodes differ, the former lacks the hash',
      tpl('foo-1', 'foo-node-1', {}, {something: 'else'}),
      tpl('foo-2', 'foo-node-2', {}, {[H]: 'value-2', something: 'else'}),
      false,
    ],
    [
      'nodes differ, labels differ',
      tpl('foo', 'foo-node-1', {}, {something: 'else'}),
      tpl('foo', 'foo-node-2', {}, {nothing: 'else'}),
      false,
    ],
  ]
  for (const [name, a, b, want] of cases) {
    it(name, () => {
      const [ca, cb] = [structuredClone(a), structuredClone(b)]
      expect(equalIgnoreHash(a, b)).toBe(want)
      expect(equalIgnoreHash(b, a)).toBe(want)
      // Neither argument is changed, hash label included.
      expect(a).toEqual(ca)
      expect(b).toEqual(cb)
    })
  }

  it('treats absent and empty maps and lists as equal (semantic equality)', () => {
    const full: PodTemplateSpec = {
      metadata: {labels: {}, annotations: {}},
      spec: {containers: [{name: 'c', image: 'i', env: []}], volumes: []},
    }
    const bare: PodTemplateSpec = {metadata: {}, spec: {containers: [{name: 'c', image: 'i'}]}}
    expect(equalIgnoreHash(full, bare)).toBe(true)
    expect(equalIgnoreHash({metadata: {labels: {[H]: 'x'}}}, {})).toBe(true)
  })

  it('compares resource quantities by value', () => {
    const withCpu = (cpu: string): PodTemplateSpec => ({
      spec: {containers: [{name: 'c', resources: {limits: {cpu}}}]},
    })
    expect(equalIgnoreHash(withCpu('1'), withCpu('1000m'))).toBe(true)
    expect(equalIgnoreHash(withCpu('1'), withCpu('2'))).toBe(false)
  })
})

describe('FindActiveOrLatest', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z')
  it('is nil without any ReplicaSet', () => {
    expect(findActiveOrLatest(undefined, [])).toBeUndefined()
  })

  it('returns the only active ReplicaSet', () => {
    const a = rs('a', 0, {}, {created: t0})
    const b = rs('b', 2, {}, {created: t0 + 1000})
    const n = rs('n', 0, {}, {created: t0 + 2000})
    expect(findActiveOrLatest(n, [a, b])).toBe(b)
  })

  it('returns nil for several active ones', () => {
    expect(findActiveOrLatest(rs('n', 1, {}), [rs('a', 1, {})])).toBeUndefined()
  })

  it('returns the new RS, else the newest old one, when none is active', () => {
    const a = rs('a', 0, {}, {created: t0})
    const b = rs('b', 0, {}, {created: t0 + 1000})
    const n = rs('n', 0, {}, {created: t0 - 5000})
    expect(findActiveOrLatest(n, [a, b])).toBe(n)
    const olds = [a, b]
    expect(findActiveOrLatest(undefined, olds)).toBe(b)
    // The old list is sorted in place, newest first.
    expect(olds).toEqual([b, a])
  })

  it('breaks timestamp ties by name, descending', () => {
    const a = rs('rs-a', 0, {}, {created: t0})
    const b = rs('rs-b', 0, {}, {created: t0})
    const c = rs('rs-c', 0, {}, {created: t0})
    const olds = [b, a, c]
    expect(findActiveOrLatest(undefined, olds)).toBe(c)
    expect(olds.map((r) => r.metadata.name)).toEqual(['rs-c', 'rs-b', 'rs-a'])
  })
})

// --- predicates -----------------------------------------------------------------------------------

describe('DeploymentComplete', () => {
  const cases: Array<[string, [number, number, number, number, number, number], boolean]> = [
    ['not complete: min but not all pods available', [5, 5, 5, 4, 1, 0], false],
    ['not complete: min availability is not honored', [5, 5, 5, 3, 1, 0], false],
    ['complete', [5, 5, 5, 5, 0, 0], true],
    ['not complete: all pods are available but not updated', [5, 5, 4, 5, 0, 0], false],
    ['not complete: still running old pods', [1, 2, 1, 1, 0, 1], false],
    ['not complete: one replica deployment never comes up', [1, 1, 1, 0, 1, 1], false],
  ]
  for (const [name, [desired, current, updated, available, unav, surge], want] of cases) {
    it(name, () => {
      const d = rolling(desired, surge, unav)
      d.status = {replicas: current, updatedReplicas: updated, availableReplicas: available}
      expect(deploymentComplete(d, d.status)).toBe(want)
    })
  }

  it('needs the status to have observed the current generation', () => {
    const d = rolling(1, 0, 1)
    d.metadata.generation = 3
    const status: DeploymentStatus = {replicas: 1, updatedReplicas: 1, availableReplicas: 1}
    expect(deploymentComplete(d, {...status, observedGeneration: 2})).toBe(false)
    expect(deploymentComplete(d, {...status, observedGeneration: 3})).toBe(true)
  })
})

describe('DeploymentProgressing', () => {
  type Counts = [number, number, number, number]
  const status = ([replicas, updatedReplicas, readyReplicas, availableReplicas]: Counts) => ({
    replicas,
    updatedReplicas,
    readyReplicas,
    availableReplicas,
  })
  const cases: Array<[string, Counts, Counts, boolean]> = [
    ['progressing: updated pods', [10, 4, 4, 4], [10, 6, 4, 4], true],
    ['not progressing', [10, 4, 4, 4], [10, 4, 4, 4], false],
    ['progressing: old pods removed', [10, 4, 6, 6], [8, 4, 6, 6], true],
    ['not progressing: less new pods', [10, 7, 3, 3], [10, 6, 3, 3], false],
    ['progressing: less overall but more new pods', [10, 4, 7, 7], [8, 8, 5, 5], true],
    ['progressing: more ready pods', [10, 10, 9, 8], [10, 10, 10, 8], true],
    ['progressing: more available pods', [10, 10, 10, 9], [10, 10, 10, 10], true],
  ]
  for (const [name, old, next, want] of cases) {
    it(name, () => {
      const d = rolling(10, 0, 1)
      d.status = status(old)
      expect(deploymentProgressing(d, status(next))).toBe(want)
    })
  }
})

describe('DeploymentTimedOut', () => {
  const at = (mmss: string) => Date.parse(`2016-01-01T00:${mmss}Z`)
  const cond = (reason: string, from?: number): DeploymentCondition => ({
    type: 'Progressing',
    status: 'True',
    reason,
    ...(from !== undefined ? {lastUpdateTime: iso(from)} : {}),
  })
  const cases: Array<[string, DeploymentCondition, number | undefined, number, boolean]> = [
    ['no progress deadline', cond('', at('01:09')), undefined, at('01:20'), false],
    ['infinite progress deadline', cond('', at('01:09')), MaxInt32, at('01:20'), false],
    ['10s deadline, 11s elapsed', cond('', at('01:09')), 10, at('01:20'), true],
    ['10s deadline, 9s elapsed', cond('', at('01:11')), 10, at('01:20'), false],
    ['previous rollout complete', cond('NewReplicaSetAvailable'), undefined, at('01:20'), false],
    ['complete, with a deadline long past', cond('NewReplicaSetAvailable'), 10, at('01:20'), false],
    ['10s deadline, exactly 10s elapsed (strictly before)', cond('', at('01:10')), 10, at('01:20'), false],
  ]
  for (const [name, c, pds, now, want] of cases) {
    it(name, () => {
      const d = rolling(1, 0, 1)
      if (pds !== undefined) d.spec.progressDeadlineSeconds = pds
      d.status = {conditions: [c]}
      expect(deploymentTimedOut(d, d.status, now)).toBe(want)
    })
  }

  it('is true at once for an existing ProgressDeadlineExceeded condition', () => {
    const d = rolling(1, 0, 1)
    d.spec.progressDeadlineSeconds = 600
    d.status = {conditions: [{type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded'}]}
    expect(deploymentTimedOut(d, d.status, 0)).toBe(true)
  })
})

describe('IsSaturated', () => {
  const sat = (desired: string | undefined, spec = 1, available = 1, replicas = 1) => {
    const d = rolling(replicas, 0, 1)
    const r = withStatus(rs('r', spec, {}), {available})
    if (desired !== undefined) r.metadata.annotations = {[DesiredReplicasAnnotation]: desired}
    return isSaturated(d, r)
  }
  it('needs spec, desired annotation and available to all equal the Deployment replicas', () => {
    expect(sat('1')).toBe(true)
    expect(sat('2')).toBe(false)
    expect(sat('1', 2)).toBe(false)
    expect(sat('1', 1, 0)).toBe(false)
    expect(sat(undefined)).toBe(false)
    expect(isSaturated(rolling(1, 0, 1), undefined)).toBe(false)
  })

  it('parses the annotation with Go Atoi and truncates it to int32', () => {
    expect(sat('+1')).toBe(true)
    expect(sat(' 1')).toBe(false)
    expect(sat('1.0')).toBe(false)
    expect(sat('')).toBe(false)
    // 2^32 + 1 → int32 1
    expect(sat('4294967297')).toBe(true)
    // Beyond int64: Atoi fails.
    expect(sat('9223372036854775808')).toBe(false)
  })
})

// --- conditions -----------------------------------------------------------------------------------

describe('Deployment conditions', () => {
  const condProgressing = (): DeploymentCondition => ({
    type: 'Progressing',
    status: 'False',
    reason: 'ForSomeReason',
  })
  const condProgressing2 = (): DeploymentCondition => ({
    type: 'Progressing',
    status: 'True',
    reason: 'BecauseItIs',
  })
  const condAvailable = (): DeploymentCondition => ({
    type: 'Available',
    status: 'True',
    reason: 'AwesomeController',
  })
  const status = (): DeploymentStatus => ({conditions: [condProgressing(), condAvailable()]})

  it('gets a copy of a condition by type', () => {
    const s = status()
    const got = getDeploymentCondition(s, 'Available')
    expect(got).toEqual(condAvailable())
    got!.reason = 'changed'
    expect(s.conditions![1]!.reason).toBe('AwesomeController')
    expect(getDeploymentCondition(s, 'ReplicaFailure')).toBeUndefined()
  })

  it('appends a new condition at the end', () => {
    const empty: DeploymentStatus = {}
    setDeploymentCondition(empty, condAvailable())
    expect(empty.conditions).toEqual([condAvailable()])
    const s: DeploymentStatus = {conditions: [condProgressing()]}
    setDeploymentCondition(s, condAvailable())
    expect(s.conditions).toEqual([condProgressing(), condAvailable()])
  })

  it('overwrites a condition of the same type', () => {
    const s: DeploymentStatus = {conditions: [condProgressing()]}
    setDeploymentCondition(s, condProgressing2())
    expect(s.conditions).toEqual([condProgressing2()])
  })

  it('keeps everything on the same status and reason, and the transition time on the same status', () => {
    const t1 = '2026-01-01T00:00:00Z'
    const t2 = '2026-01-01T01:00:00Z'
    const s: DeploymentStatus = {
      conditions: [
        {...condProgressing2(), message: 'old', lastUpdateTime: t1, lastTransitionTime: t1},
        condAvailable(),
      ],
    }
    setDeploymentCondition(s, {
      ...condProgressing2(),
      message: 'new',
      lastUpdateTime: t2,
      lastTransitionTime: t2,
    })
    expect(s.conditions![0]).toEqual({
      ...condProgressing2(),
      message: 'old',
      lastUpdateTime: t1,
      lastTransitionTime: t1,
    })
    setDeploymentCondition(s, {
      type: 'Progressing',
      status: 'True',
      reason: 'Other',
      lastUpdateTime: t2,
      lastTransitionTime: t2,
    })
    // Replaced, moved to the end, transition time kept.
    expect(s.conditions).toEqual([
      condAvailable(),
      {type: 'Progressing', status: 'True', reason: 'Other', lastUpdateTime: t2, lastTransitionTime: t1},
    ])
  })

  it('removes a condition; the list becomes nil when nothing is left', () => {
    const empty: DeploymentStatus = {}
    removeDeploymentCondition(empty, 'Progressing')
    expect(empty).toEqual({})
    const one: DeploymentStatus = {conditions: [condProgressing()]}
    removeDeploymentCondition(one, 'Progressing')
    expect(one).toEqual({})
    expect(one.conditions).toBeUndefined()
    const s = status()
    removeDeploymentCondition(s, 'ReplicaFailure')
    expect(s).toEqual(status())
  })
})

// --- annotations ----------------------------------------------------------------------------------

describe('SetNewReplicaSetAnnotations', () => {
  it('sets the revision and keeps the two most recent old ones within 5 chars', () => {
    const d = generateDeployment('nginx')
    d.metadata.annotations = {[RevisionAnnotation]: '1'}
    const r = generateRS(d)
    for (let i = 10; i < 20; i++) {
      const next = String(i + 1)
      setNewReplicaSetAnnotations(d, r, next, true, 5)
      expect(r.metadata.annotations?.[RevisionAnnotation], `i=${i}`).toBe(next)
      if (i === 10) expect(r.metadata.annotations?.[RevisionHistoryAnnotation]).toBeUndefined()
      if (i === 11) expect(r.metadata.annotations?.[RevisionHistoryAnnotation]).toBe('11')
      if (i >= 12) expect(r.metadata.annotations?.[RevisionHistoryAnnotation], `i=${i}`).toBe(`${i - 1},${i}`)
    }
  })

  const withAnnotations = (a: Record<string, string> | undefined) => {
    const d = generateDeployment('nginx')
    const r = generateRS(d)
    if (a) r.metadata.annotations = {...a}
    return {d, r}
  }

  it('appends to the history within the limit and leaves it when even one entry does not fit', () => {
    const {d, r} = withAnnotations({[RevisionAnnotation]: '22', [RevisionHistoryAnnotation]: '1'})
    expect(setNewReplicaSetAnnotations(d, r, '23', true, 4)).toBe(true)
    expect(r.metadata.annotations).toEqual({[RevisionAnnotation]: '23', [RevisionHistoryAnnotation]: '1,22'})
    const tight = withAnnotations({[RevisionAnnotation]: '22', [RevisionHistoryAnnotation]: '1'})
    // 1 + 2 + 1 = 4 > 1; dropping "1" leaves 2 > 1: the history stays, the revision still moves.
    expect(setNewReplicaSetAnnotations(tight.d, tight.r, '23', true, 1)).toBe(true)
    expect(tight.r.metadata.annotations).toEqual({
      [RevisionAnnotation]: '23',
      [RevisionHistoryAnnotation]: '1',
    })
  })

  it('drops the oldest entries until the new one fits, at exactly the limit', () => {
    const {d, r} = withAnnotations({[RevisionAnnotation]: '7', [RevisionHistoryAnnotation]: '1,2,3,4'})
    // "1,2,3,4" + ",7" is 9 chars; with a limit of 7 one entry goes.
    setNewReplicaSetAnnotations(d, r, '8', true, 7)
    expect(r.metadata.annotations?.[RevisionHistoryAnnotation]).toBe('2,3,4,7')
  })

  it('replaces a history whose first element is empty', () => {
    const {d, r} = withAnnotations({[RevisionAnnotation]: '5', [RevisionHistoryAnnotation]: ',7'})
    setNewReplicaSetAnnotations(d, r, '9', true, 2000)
    expect(r.metadata.annotations?.[RevisionHistoryAnnotation]).toBe('5')
  })

  it('records an empty old revision that was present', () => {
    const {d, r} = withAnnotations({[RevisionAnnotation]: ''})
    expect(setNewReplicaSetAnnotations(d, r, '3', true, 2000)).toBe(true)
    expect(r.metadata.annotations).toEqual({[RevisionAnnotation]: '3', [RevisionHistoryAnnotation]: ''})
  })

  it('never lowers the revision', () => {
    const {d, r} = withAnnotations({[RevisionAnnotation]: '9'})
    expect(setNewReplicaSetAnnotations(d, r, '4', true, 2000)).toBe(false)
    expect(r.metadata.annotations).toEqual({[RevisionAnnotation]: '9'})
  })

  it('gives up (false) on an unparsable old or new revision, even after copying annotations', () => {
    const {d, r} = withAnnotations({[RevisionAnnotation]: 'abc'})
    d.metadata.annotations = {team: 'a'}
    expect(setNewReplicaSetAnnotations(d, r, '4', true, 2000)).toBe(false)
    expect(r.metadata.annotations).toEqual({[RevisionAnnotation]: 'abc', team: 'a'})
    const other = withAnnotations(undefined)
    expect(setNewReplicaSetAnnotations(other.d, other.r, '+x', true, 2000)).toBe(false)
  })

  it('copies Deployment annotations except the skip list, never removing RS ones', () => {
    const {d, r} = withAnnotations({mine: 'kept', shared: 'old'})
    d.metadata.annotations = {
      [LastAppliedConfigAnnotation]: '{}',
      [RevisionAnnotation]: '77',
      [RevisionHistoryAnnotation]: '1,2',
      [DesiredReplicasAnnotation]: '99',
      [MaxReplicasAnnotation]: '99',
      [DeprecatedRollbackTo]: '3',
      shared: 'new',
      team: 'a',
    }
    expect(setNewReplicaSetAnnotations(d, r, '1', true, 2000)).toBe(true)
    expect(r.metadata.annotations).toEqual({
      mine: 'kept',
      shared: 'new',
      team: 'a',
      [RevisionAnnotation]: '1',
    })
  })

  it('copies an empty-valued annotation the RS does not have', () => {
    const {d, r} = withAnnotations({[RevisionAnnotation]: '1'})
    d.metadata.annotations = {note: ''}
    expect(setNewReplicaSetAnnotations(d, r, '1', true, 2000)).toBe(true)
    expect(r.metadata.annotations).toEqual({[RevisionAnnotation]: '1', note: ''})
    // Present with the same (empty) value: no change.
    expect(setNewReplicaSetAnnotations(d, r, '1', true, 2000)).toBe(false)
  })

  it('adds the replica annotations to a ReplicaSet about to be created', () => {
    const d = rolling(10, 3, 1)
    const r = rs('new', 0, {})
    expect(setNewReplicaSetAnnotations(d, r, '2', false, 2000)).toBe(true)
    expect(r.metadata.annotations).toEqual({
      [RevisionAnnotation]: '2',
      [DesiredReplicasAnnotation]: '10',
      [MaxReplicasAnnotation]: '13',
    })
  })
})

describe('annotation skip list', () => {
  it('holds exactly the controller-owned keys', () => {
    for (const k of [
      LastAppliedConfigAnnotation,
      RevisionAnnotation,
      RevisionHistoryAnnotation,
      DesiredReplicasAnnotation,
      MaxReplicasAnnotation,
      DeprecatedRollbackTo,
    ]) {
      expect(skipCopyAnnotation(k), k).toBe(true)
    }
    expect(skipCopyAnnotation('kubernetes.io/change-cause')).toBe(false)
    expect(skipCopyAnnotation('deployment.kubernetes.io/other')).toBe(false)
  })
})

describe('replicas annotations', () => {
  it('SetReplicasAnnotations writes desired and max', () => {
    const r = rs('r', 0, {})
    expect(setReplicasAnnotations(r, 10, 11)).toBe(true)
    expect(r.metadata.annotations).toEqual({[DesiredReplicasAnnotation]: '10', [MaxReplicasAnnotation]: '11'})
    expect(setReplicasAnnotations(r, 10, 11)).toBe(false)
  })

  const cases: Array<[Record<string, string> | undefined, boolean]> = [
    [undefined, true],
    [{[DesiredReplicasAnnotation]: '8', [MaxReplicasAnnotation]: '20'}, true],
    [{[DesiredReplicasAnnotation]: '10', [MaxReplicasAnnotation]: '16'}, true],
    [{[DesiredReplicasAnnotation]: '10', [MaxReplicasAnnotation]: '20'}, false],
    [{[DesiredReplicasAnnotation]: '+10', [MaxReplicasAnnotation]: '20'}, true],
  ]
  for (const [annotations, want] of cases) {
    it(`ReplicasAnnotationsNeedUpdate ${JSON.stringify(annotations)}`, () => {
      expect(replicasAnnotationsNeedUpdate(annotated(rs('r', 0, {}), annotations), 10, 20)).toBe(want)
    })
  }

  it('IsSaturated after TestAnnotationUtils-style annotations', () => {
    const d = generateDeployment('nginx')
    d.spec.strategy = {type: 'RollingUpdate', rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
    const r = withStatus(generateRS(d, {replicas: 1}), {available: 1})
    r.metadata.annotations = {[DesiredReplicasAnnotation]: '1'}
    expect(isSaturated(d, r)).toBe(true)
  })
})

// --- Go parsing rules -----------------------------------------------------------------------------

describe('getNonNegativeInt32FromAnnotation (desired-replicas)', () => {
  const cases: Array<[string, string | undefined, number | undefined]> = [
    ['absent', undefined, undefined],
    ['invalid', 'invalid', undefined],
    ['negative', '-1', undefined],
    ['signed', '+5', undefined],
    ['spaced', ' 5', undefined],
    ['zero', '0', 0],
    ['valid', '13', 13],
    ['max int32', '2147483647', 2147483647],
    ['max int32 + 1', '2147483648', undefined],
    ['max uint32 + 1', '4294967296', undefined],
  ]
  for (const [name, value, want] of cases) {
    it(name, () => {
      const r = rs('r', 0, {})
      r.metadata.annotations = {other: '5'}
      if (value !== undefined) r.metadata.annotations[DesiredReplicasAnnotation] = value
      expect(getDesiredReplicasAnnotation(r)).toBe(want)
      if (value !== undefined) expect(parseNonNegativeInt32(value)).toBe(want)
    })
  }
})

describe('revisions (strconv.ParseInt base 10, 64 bits)', () => {
  const withRevision = (v: string | undefined, name = 'r') => {
    const r = rs(name, 0, {})
    if (v !== undefined) r.metadata.annotations = {[RevisionAnnotation]: v}
    return r
  }

  it('accepts a sign, nothing else but digits', () => {
    expect(revision(withRevision('+5'))).toBe(5n)
    expect(revision(withRevision('-1'))).toBe(-1n)
    expect(revision(withRevision('007'))).toBe(7n)
    expect(revision(withRevision('9223372036854775807'))).toBe(9223372036854775807n)
    expect(revision(withRevision(undefined))).toBe(0n)
    for (const bad of [' 5', '5 ', '1e3', '0x10', '1_000', '9223372036854775808', '', '+', '12abc']) {
      expect(() => revision(withRevision(bad)), JSON.stringify(bad)).toThrow(RevisionError)
      expect(parseInt64(bad), JSON.stringify(bad)).toBeUndefined()
    }
  })

  it('MaxRevision skips unparsable and never picks a negative revision', () => {
    expect(maxRevision([withRevision('-3'), withRevision('x')])).toBe(0n)
    expect(maxRevision([withRevision('2'), withRevision('+10'), withRevision('1e3')])).toBe(10n)
    expect(maxRevision([undefined, withRevision('4')])).toBe(4n)
  })

  it('LastRevision is the second highest, and the max again on a tie', () => {
    expect(lastRevision([withRevision('3'), withRevision('3')])).toBe(3n)
    expect(lastRevision([withRevision('1'), withRevision('2'), withRevision('3')])).toBe(2n)
    expect(lastRevision([withRevision('3'), withRevision('1'), withRevision('2')])).toBe(2n)
    expect(lastRevision([withRevision('5')])).toBe(0n)
    expect(lastRevision([withRevision('-1'), withRevision('4'), withRevision('abc')])).toBe(0n)
  })

  it('the rollback annotation parses as int64, negative values included', () => {
    const d = rolling(1, 0, 1)
    const withTo = (v: string) => {
      d.metadata.annotations = {[DeprecatedRollbackTo]: v}
      return getRollbackTo(d)
    }
    expect(withTo('-1')).toBe(-1n)
    expect(withTo('+2')).toBe(2n)
    expect(withTo('0')).toBe(0n)
    expect(withTo('abc')).toBeUndefined()
    expect(withTo('')).toBeUndefined()
    expect(withTo(' 1')).toBeUndefined()
  })
})

// --- hashing and naming ---------------------------------------------------------------------------

describe('ComputeHash', () => {
  const base = (): PodTemplateSpec => ({
    metadata: {labels: {app: 'web'}},
    spec: {containers: [{name: 'web', image: 'nginx:1.25'}]},
  })

  it('is deterministic for equal templates and leaves the template alone', () => {
    const t = base()
    const h = computeHash(t, undefined)
    expect(computeHash(base(), undefined)).toBe(h)
    expect(computeHash(structuredClone(t), undefined)).toBe(h)
    expect(t).toEqual(base())
  })

  it('changes with the template', () => {
    const other = base()
    other.spec!.containers![0]!.image = 'nginx:1.26'
    expect(computeHash(other, undefined)).not.toBe(computeHash(base(), undefined))
  })

  it('changes with collisionCount, undefined and 0 included', () => {
    const hashes = [undefined, 0, 1, 2].map((c) => computeHash(base(), c))
    expect(new Set(hashes).size).toBe(4)
  })

  it('uses only the safe alphabet: the decimal FNV sum, encoded', () => {
    for (let c = 0; c < 50; c++) {
      const h = computeHash(base(), c)
      expect(h).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/)
      // Decimal digits map onto 4-9 and b, c, d, f only; a uint32 has at most 10 digits.
      expect(h).toMatch(/^[456789bcdf]{1,10}$/)
    }
    expect(safeEncodeString('0123456789')).toBe('456789bcdf')
  })
})

describe('generateReplicaSetName', () => {
  const cases: Array<[string, string, string]> = [
    ['my-deployment', 'abcde12345', 'my-deployment-abcde12345'],
    ['a'.repeat(242), 'abcde12345', `${'a'.repeat(242)}-abcde12345`],
    ['b'.repeat(250), 'abcde12345', `${'b'.repeat(242)}-abcde12345`],
    ['c'.repeat(253), '5', `${'c'.repeat(251)}-5`],
    ['d'.repeat(252), 'h'.repeat(252), `${'d'.repeat(252)}-${'h'.repeat(252)}`],
    ['e'.repeat(10), 'h'.repeat(253), `${'e'.repeat(10)}-${'h'.repeat(253)}`],
  ]
  for (const [name, hash, want] of cases) {
    it(`${name.slice(0, 16)}… (${name.length}) + ${hash.length}-char hash`, () => {
      const got = generateReplicaSetName(name, hash)
      expect(got).toBe(want)
      if (253 - 1 - hash.length > 0) expect(got.length).toBeLessThanOrEqual(253)
    })
  }

  it('before 1.34 (PR #132560) the Deployment name is never cut', () => {
    expect(generateReplicaSetName('b'.repeat(250), 'abcde12345', 33)).toBe(`${'b'.repeat(250)}-abcde12345`)
    expect(generateReplicaSetName('b'.repeat(250), 'abcde12345', 34)).toBe(`${'b'.repeat(242)}-abcde12345`)
  })
})
