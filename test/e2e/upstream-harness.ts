// Upstream's Deployment test helpers, re-created over real kubectl, the built CLI's `run` as the
// cluster's Deployment controller and the test API server's simulated cluster (a ReplicaSet
// controller, a scheduler, a kubelet). Read from kubernetes/kubernetes:
// - test/integration/deployment/util.go (deploymentTester, markPodReady, markUpdatedPodsReady...),
// - test/utils/deployment.go (WaitForDeploymentRevisionAndImage, waitForDeploymentCompleteMaybeCheckRolling,
//   checkRollingUpdateStatus, UpdateDeploymentWithRetries, WaitForDeploymentWithCondition...),
// - test/e2e/framework/deployment/fixtures.go (NewDeployment) and test/e2e/apps/deployment.go.
// Steps go through kubectl (create, replace, patch, scale, rollout pause/resume/undo, delete); the
// waits read the API with plain GETs every 100 ms, as upstream's typed clients poll.

import {type ChildProcess, execFile, spawn} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {
  Deployment,
  DeploymentCondition,
  IntOrString,
  Pod,
  PodTemplateSpec,
  ReplicaSet,
} from '../../src/controller/api/types.js'
import {type ApiServer, startApiServer} from '../apiserver/index.js'
import type {SimulateOptions} from '../apiserver/simulate.js'
import {BIN, ROOT, type RunResult} from './helpers.js'
import {
  type RolloutReading,
  type RolloutState,
  readExplain,
  readKubectlRolloutStatus,
  readWatch,
} from './rollout-agreement.js'

export const KUBECTL = ['/usr/lib/google-cloud-sdk/bin/kubectl.1.32', '/usr/bin/kubectl'].find(existsSync)

/** upstream: pollInterval (integration) */
export const POLL_MS = 100
/** upstream's pollTimeout is 60 s; the tests here share two cores with other files, so more. */
export const TIMEOUT_MS = 120_000

export const REVISION = 'deployment.kubernetes.io/revision'
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas'
export const HASH_LABEL = 'pod-template-hash'

/** Pods are ready 150 ms after creation and gone 150 ms after a graceful delete. */
export const FAST_PODS: SimulateOptions = {
  podReadyAfterMs: 150,
  terminateAfterMs: 150,
  // upstream's integration tests run no kubelet; some bind pods to this node and mark them ready.
  nodesWithoutKubelet: ['fake-node'],
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Polls `probe` until it returns a value; the error names what was awaited and the last state seen. */
export async function poll<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  options: {timeoutMs?: number; intervalMs?: number; state?: () => string} = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? TIMEOUT_MS)
  for (;;) {
    const v = await probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${options.state ? `\n${options.state()}` : ''}`)
    }
    await sleep(options.intervalMs ?? POLL_MS)
  }
}

// --- the cluster ------------------------------------------------------------------------------------

/** The built CLI's `run`, the cluster's Deployment controller, until stopped. */
class ControllerProcess {
  private readonly child: ChildProcess
  log = ''
  readonly exited: Promise<RunResult>

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [BIN, 'run', ...args], {
      cwd: ROOT,
      env: {...process.env, NO_COLOR: '1', DEBUG: '', NODE_ENV: 'production', ...env},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    this.child.stdout?.setEncoding('utf8').on('data', (c: string) => {
      out += c
    })
    this.child.stderr?.setEncoding('utf8').on('data', (c: string) => {
      this.log += c
    })
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject)
      this.child.on('close', (code) => resolve({code, stdout: out, stderr: this.log}))
    })
  }

  async started(): Promise<void> {
    await poll(
      'run to start',
      async () => this.log.includes('caches synced') || this.child.exitCode !== null,
      {
        timeoutMs: 60_000,
      },
    )
    if (!this.log.includes('caches synced')) throw new Error(`run did not start:\n${this.log}`)
  }

  /** SIGTERM: run drains its workers and exits 0; SIGKILL if it does not within 20 s. */
  async stop(): Promise<RunResult> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM')
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 20_000)
    const r = await this.exited
    clearTimeout(killer)
    return r
  }
}

export interface ClusterOptions {
  simulate?: SimulateOptions
  /** `run`'s arguments (default: every namespace). */
  run?: string[]
}

/** A simulated cluster with `run` as its Deployment controller, shared by the tests of a file. */
export class TestCluster {
  private controller: ControllerProcess | undefined
  private namespaces = 0
  readonly env: NodeJS.ProcessEnv

  private constructor(
    readonly server: ApiServer,
    private readonly cacheDir: string,
  ) {
    this.env = {KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: cacheDir}
  }

  static async start(options: ClusterOptions = {}): Promise<TestCluster> {
    const server = await startApiServer({simulate: options.simulate ?? FAST_PODS})
    const cluster = new TestCluster(server, mkdtempSync(join(tmpdir(), 'deployctl-kcache-')))
    await cluster.startController(options.run ?? ['-A', '--v', '2'])
    return cluster
  }

  async startController(args: string[]): Promise<void> {
    if (this.controller) throw new Error('a controller is already running')
    this.controller = new ControllerProcess(args, this.env)
    await this.controller.started()
  }

  /** Stops `run`; it must drain and exit 0 on SIGTERM. */
  async stopController(): Promise<RunResult> {
    const c = this.controller
    this.controller = undefined
    if (!c) throw new Error('no controller is running')
    const r = await c.stop()
    if (r.code !== 0) throw new Error(`run exited ${r.code} after SIGTERM:\n${r.stderr.slice(-3000)}`)
    return r
  }

  /** The controller's log lines about one namespace (for failure messages). */
  controllerLog(namespace: string, lines = 25): string {
    const all = this.controller?.log.split('\n') ?? []
    return all
      .filter((l) => l.includes(` ${namespace}/`))
      .slice(-lines)
      .join('\n')
  }

  async close(): Promise<RunResult | undefined> {
    const r = this.controller ? await this.stopController() : undefined
    await this.server.close()
    rmSync(this.cacheDir, {recursive: true, force: true})
    return r
  }

  /** The real kubectl (asynchronous: the API server answers from this process). */
  kubectl(args: string[], input?: string, signal?: AbortSignal): Promise<RunResult> {
    if (!KUBECTL) throw new Error('kubectl is not installed')
    return new Promise((resolve) => {
      const child = execFile(
        KUBECTL,
        args,
        {env: {...process.env, ...this.env}, timeout: 60_000, maxBuffer: 64 * 1024 * 1024, signal},
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
          resolve({code, stdout, stderr})
        },
      )
      child.stdin?.end(input ?? '')
    })
  }

  /** The built CLI (not `run`); `signal` kills it (its result is then not to be read). */
  deployctl(args: string[], signal?: AbortSignal): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        process.execPath,
        [BIN, ...args],
        {
          cwd: ROOT,
          env: {...process.env, NO_COLOR: '1', DEBUG: '', NODE_ENV: 'production', ...this.env},
          timeout: 60_000,
          maxBuffer: 64 * 1024 * 1024,
          signal,
        },
        (err, stdout, stderr) => {
          if (err && typeof err.code !== 'number' && !err.killed && !signal?.aborted) reject(err)
          else resolve({code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr})
        },
      )
      child.stdin?.end()
    })
  }

  /** A GET as a client makes it; undefined on 404. */
  async get<T>(path: string): Promise<T | undefined> {
    const res = await fetch(this.server.url + path, {
      headers: {Authorization: `Bearer ${this.server.token}`, Accept: 'application/json'},
    })
    if (res.status === 404) return undefined
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }

  async list<T>(path: string): Promise<T[]> {
    return (await this.get<{items: T[]}>(path))?.items ?? []
  }

  /**
   * A watch as a client opens it (`?watch=true`), calling `onEvent` for each event until `stop()`;
   * upstream's e2e tests watch Deployments and pods this way (watchtools.Until, Pods().Watch).
   */
  watch<T>(
    path: string,
    query: Record<string, string>,
    onEvent: (type: string, object: T) => void,
  ): {stop: () => void; ended: Promise<void>} {
    const controller = new AbortController()
    const qs = new URLSearchParams({...query, watch: 'true'}).toString()
    const ended = (async () => {
      try {
        const res = await fetch(`${this.server.url}${path}?${qs}`, {
          headers: {Authorization: `Bearer ${this.server.token}`},
          signal: controller.signal,
        })
        if (!res.body) return
        const decoder = new TextDecoder()
        let buffered = ''
        for await (const chunk of res.body) {
          buffered += decoder.decode(chunk as Uint8Array, {stream: true})
          for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
            const line = buffered.slice(0, nl).trim()
            buffered = buffered.slice(nl + 1)
            if (!line) continue
            const e = JSON.parse(line) as {type: string; object: T}
            onEvent(e.type, e.object)
          }
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err
      }
    })()
    return {stop: () => controller.abort(), ended}
  }

  /** A fresh namespace through kubectl, named as upstream names it, unique in this cluster. */
  async namespace(name: string): Promise<string> {
    const ns = `${name}-${++this.namespaces}`
    const r = await this.kubectl(['create', 'namespace', ns])
    if (r.code !== 0) throw new Error(`kubectl create namespace ${ns}: ${r.stderr}`)
    return ns
  }
}

// --- objects ----------------------------------------------------------------------------------------

/** upstream (integration util.go): testLabels */
export const testLabels = () => ({name: 'test'})
export const FAKE_IMAGE = 'fakeimage'
const FAKE_CONTAINER = 'fake-name'

/** upstream (integration util.go): newDeployment — RollingUpdate with the API's defaults, a fake image. */
export function newIntegrationDeployment(name: string, ns: string, replicas: number): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace: ns},
    spec: {
      replicas,
      selector: {matchLabels: testLabels()},
      strategy: {type: 'RollingUpdate', rollingUpdate: {}},
      template: {
        metadata: {labels: testLabels()},
        spec: {containers: [{name: FAKE_CONTAINER, image: FAKE_IMAGE}]},
      },
    },
  } as Deployment
}

/** upstream (e2e framework/deployment/fixtures.go): NewDeployment */
export function newE2EDeployment(
  name: string,
  replicas: number,
  podLabels: Record<string, string>,
  containerName: string,
  image: string,
  strategyType: 'RollingUpdate' | 'Recreate',
): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, labels: {...podLabels}},
    spec: {
      replicas,
      selector: {matchLabels: {...podLabels}},
      strategy: {type: strategyType},
      template: {
        metadata: {labels: {...podLabels}},
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{name: containerName, image, securityContext: {}}],
        },
      },
    },
  } as Deployment
}

/** upstream (e2e apps/replica_set.go): newRS */
export function newE2EReplicaSet(
  name: string,
  replicas: number,
  podLabels: Record<string, string>,
  imageName: string,
  image: string,
): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {name, labels: {...podLabels}},
    spec: {
      replicas,
      selector: {matchLabels: {...podLabels}},
      template: {
        metadata: {labels: {...podLabels}},
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{name: imageName, image, securityContext: {}}],
        },
      },
    },
  } as ReplicaSet
}

// --- deploymentutil, as the tests use it ----------------------------------------------------------------

/**
 * JSON with sorted keys, a null field as an absent one: upstream compares typed templates with
 * apiequality.Semantic.DeepEqual, where kubectl's `creationTimestamp: null` is the zero time.
 */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] != null)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v)
}

/** upstream: EqualIgnoreHash */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined) => {
    const c = structuredClone(t ?? {})
    if (c.metadata?.labels) {
      delete c.metadata.labels[HASH_LABEL]
      if (Object.keys(c.metadata.labels).length === 0) delete c.metadata.labels
    }
    return canonical(c)
  }
  return strip(a) === strip(b)
}

const creationOrder = (a: ReplicaSet, b: ReplicaSet) =>
  (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
  (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '')

export const controllerOf = (o: {metadata: {ownerReferences?: Deployment['metadata']['ownerReferences']}}) =>
  o.metadata.ownerReferences?.find((r) => r.controller === true)

/** upstream: deploymentutil.DeploymentComplete */
export function deploymentComplete(d: Deployment, status: Deployment['status']): boolean {
  const want = d.spec.replicas ?? 1
  const s = status ?? {}
  return (
    (s.updatedReplicas ?? 0) === want &&
    (s.replicas ?? 0) === want &&
    (s.availableReplicas ?? 0) === want &&
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  )
}

/** upstream: intstr.GetScaledValueFromIntOrPercent */
function scaled(v: IntOrString | undefined, total: number, roundUp: boolean, fallback: IntOrString): number {
  const x = v ?? fallback
  if (typeof x === 'number') return x
  const pct = Number(x.replace('%', ''))
  return roundUp ? Math.ceil((pct * total) / 100) : Math.floor((pct * total) / 100)
}

/** upstream: deploymentutil.ResolveFenceposts, as MaxSurge and MinAvailable use it. */
export function fenceposts(d: Deployment): {maxSurge: number; maxUnavailable: number} {
  if (d.spec.strategy?.type !== 'RollingUpdate') return {maxSurge: 0, maxUnavailable: 0}
  const replicas = d.spec.replicas ?? 1
  const ru = d.spec.strategy.rollingUpdate ?? {}
  const maxSurge = scaled(ru.maxSurge, replicas, true, '25%')
  let maxUnavailable = scaled(ru.maxUnavailable, replicas, false, '25%')
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1
  return {maxSurge, maxUnavailable}
}

export const conditionOf = (d: Deployment, type: string): DeploymentCondition | undefined =>
  d.status?.conditions?.find((c) => c.type === type)

const rfc3339 = (ms = Date.now()) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')

// --- the tester ---------------------------------------------------------------------------------------

/** upstream: deploymentTester — one Deployment of one namespace, and the helpers that wait on it. */
export class DeploymentTester {
  /** The Deployment as last written by the test (upstream's tester.deployment). */
  deployment: Deployment

  constructor(
    readonly cluster: TestCluster,
    readonly ns: string,
    readonly name: string,
  ) {
    this.deployment = {metadata: {name, namespace: ns}, spec: {}} as Deployment
  }

  private get path(): string {
    return `/apis/apps/v1/namespaces/${this.ns}/deployments/${this.name}`
  }

  /** kubectl in this namespace; a non-zero exit throws with kubectl's message. */
  async kubectl(...args: string[]): Promise<string> {
    const r = await this.cluster.kubectl(['-n', this.ns, ...args])
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: exit ${r.code}: ${r.stderr}`)
    return r.stdout
  }

  /** `kubectl create -f -` of any object into this namespace. */
  async createObject<T>(obj: unknown): Promise<T> {
    const r = await this.cluster.kubectl(
      ['-n', this.ns, 'create', '-f', '-', '-o', 'json'],
      JSON.stringify(obj),
    )
    if (r.code !== 0) throw new Error(`kubectl create: ${r.stderr}`)
    return JSON.parse(r.stdout) as T
  }

  async create(d: Deployment): Promise<Deployment> {
    this.deployment = await this.createObject<Deployment>({
      ...d,
      metadata: {...d.metadata, namespace: this.ns},
    })
    return this.deployment
  }

  async get(): Promise<Deployment> {
    const d = await this.cluster.get<Deployment>(this.path)
    if (!d) throw new Error(`deployment ${this.ns}/${this.name} not found`)
    return d
  }

  /** After a kubectl verb: the Deployment as it now is (its generation, for the waits). */
  async refresh(): Promise<Deployment> {
    this.deployment = await this.get()
    return this.deployment
  }

  /**
   * upstream: UpdateDeploymentWithRetries — get, change, update; again on a conflict. The update is
   * `kubectl replace` of the object just read (a typed client's Update).
   */
  async update(change: (d: Deployment) => void): Promise<Deployment> {
    let lastError = ''
    await poll(
      `an update of deployment ${this.ns}/${this.name}`,
      async () => {
        const d = await this.get()
        change(d)
        const r = await this.cluster.kubectl(
          ['-n', this.ns, 'replace', '-f', '-', '-o', 'json'],
          JSON.stringify(d),
        )
        if (r.code === 0) {
          this.deployment = JSON.parse(r.stdout) as Deployment
          return true
        }
        lastError = r.stderr
        if (!/the object has been modified|Conflict/i.test(r.stderr))
          throw new Error(`kubectl replace: ${r.stderr}`)
        return false
      },
      {state: () => lastError},
    )
    return this.deployment
  }

  /** upstream: updateReplicaSet (UpdateReplicaSetWithRetries) through `kubectl replace`. */
  async updateReplicaSet(name: string, change: (rs: ReplicaSet) => void): Promise<ReplicaSet> {
    let updated: ReplicaSet | undefined
    await poll(`an update of replicaset ${this.ns}/${name}`, async () => {
      const rs = await this.cluster.get<ReplicaSet>(`/apis/apps/v1/namespaces/${this.ns}/replicasets/${name}`)
      if (!rs) throw new Error(`replicaset ${this.ns}/${name} not found`)
      change(rs)
      const r = await this.cluster.kubectl(
        ['-n', this.ns, 'replace', '-f', '-', '-o', 'json'],
        JSON.stringify(rs),
      )
      if (r.code === 0) {
        updated = JSON.parse(r.stdout) as ReplicaSet
        return true
      }
      if (!/the object has been modified|Conflict/i.test(r.stderr))
        throw new Error(`kubectl replace: ${r.stderr}`)
      return false
    })
    return updated as ReplicaSet
  }

  async replicaSet(name: string): Promise<ReplicaSet> {
    const rs = await this.cluster.get<ReplicaSet>(`/apis/apps/v1/namespaces/${this.ns}/replicasets/${name}`)
    if (!rs) throw new Error(`replicaset ${this.ns}/${name} not found`)
    return rs
  }

  /** upstream: deploymentutil.ListReplicaSets — the ones this Deployment controls, oldest first. */
  async replicaSets(d?: Deployment): Promise<ReplicaSet[]> {
    const dep = d ?? (await this.get())
    const all = await this.cluster.list<ReplicaSet>(`/apis/apps/v1/namespaces/${this.ns}/replicasets`)
    return all.filter((rs) => controllerOf(rs)?.uid === dep.metadata.uid).sort(creationOrder)
  }

  /** upstream: testutil.GetNewReplicaSet (FindNewReplicaSet: the oldest with the template). */
  async newReplicaSet(d?: Deployment): Promise<ReplicaSet | undefined> {
    const dep = d ?? (await this.get())
    return (await this.replicaSets(dep)).find((rs) => equalIgnoreHash(rs.spec.template, dep.spec.template))
  }

  /** upstream: testutil.GetOldReplicaSets — old ones with replicas, and all old ones. */
  async oldReplicaSets(d?: Deployment): Promise<{oldRSs: ReplicaSet[]; allOldRSs: ReplicaSet[]}> {
    const dep = d ?? (await this.get())
    const rss = await this.replicaSets(dep)
    const fresh = rss.find((rs) => equalIgnoreHash(rs.spec.template, dep.spec.template))
    const allOldRSs = rss.filter((rs) => rs !== fresh)
    return {oldRSs: allOldRSs.filter((rs) => (rs.spec.replicas ?? 0) > 0), allOldRSs}
  }

  async expectNewReplicaSet(): Promise<ReplicaSet> {
    const rs = await this.newReplicaSet()
    if (!rs) throw new Error(`expected deployment ${this.name} to create a new replicaset, got none`)
    return rs
  }

  async expectNoNewReplicaSet(): Promise<void> {
    const rs = await this.newReplicaSet()
    if (rs)
      throw new Error(
        `expected deployment ${this.name} not to create a new replicaset, got ${rs.metadata.name}`,
      )
  }

  /** Pods matching the Deployment's selector (matchLabels only, as every test here uses). */
  async pods(): Promise<Pod[]> {
    const d = await this.get()
    const sel = Object.entries(d.spec.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',')
    return this.cluster.list<Pod>(
      `/api/v1/namespaces/${this.ns}/pods?labelSelector=${encodeURIComponent(sel)}`,
    )
  }

  private describe(): () => string {
    return () => `controller log:\n${this.cluster.controllerLog(this.ns)}`
  }

  /** upstream: WaitForDeploymentRevisionAndImage (and checkRevisionAndImage). */
  async waitForRevisionAndImage(revision: string, image: string): Promise<void> {
    let reason = ''
    await poll(
      `deployment ${this.ns}/${this.name} and its new replicaset at revision ${revision} with image ${image}`,
      async () => {
        const d = await this.get()
        const rs = await this.newReplicaSet(d)
        reason = checkRevisionAndImage(d, rs, revision, image) ?? ''
        return reason === ''
      },
      {state: () => `${reason}\n${this.describe()()}`},
    )
  }

  /**
   * upstream: waitForDeploymentCompleteMaybeCheckRolling — complete against the Deployment last
   * written; with `rolling`, maxSurge and minAvailable must hold at every poll (checkRollingUpdateStatus).
   */
  async waitForComplete(options: {rolling?: boolean; markPodsReady?: boolean} = {}): Promise<Deployment> {
    let last: Deployment | undefined
    return poll(
      `deployment ${this.ns}/${this.name} to complete`,
      async () => {
        const d = await this.get()
        last = d
        if (options.rolling) await this.checkRollingUpdateStatus(d)
        if (deploymentComplete(this.deployment, d.status)) return d
        if (options.markPodsReady) await this.markUpdatedPodsReady()
        return undefined
      },
      {state: () => `status: ${JSON.stringify(last?.status)}\n${this.describe()()}`},
    )
  }

  /** upstream: checkRollingUpdateStatus */
  private async checkRollingUpdateStatus(d: Deployment): Promise<void> {
    const rss = await this.replicaSets(d)
    const fresh = rss.find((rs) => equalIgnoreHash(rs.spec.template, d.spec.template))
    if (!fresh) return
    const active = rss.filter((rs) => rs === fresh || (rs.spec.replicas ?? 0) > 0)
    if (!active.every((rs) => rs.spec.selector?.matchLabels?.[HASH_LABEL])) return
    const totalCreated = active.reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0)
    const {maxSurge, maxUnavailable} = fenceposts(d)
    const replicas = d.spec.replicas ?? 1
    if (totalCreated > replicas + maxSurge) {
      throw new Error(
        `total pods created: ${totalCreated}, more than the max allowed: ${replicas + maxSurge}`,
      )
    }
    const available = d.status?.availableReplicas ?? 0
    if (available < replicas - maxUnavailable) {
      throw new Error(
        `total pods available: ${available}, less than the min required: ${replicas - maxUnavailable}`,
      )
    }
  }

  /**
   * upstream: markUpdatedPodsReadyWithoutComplete — the pods of the new ReplicaSet that are not ready
   * are marked ready (Running, Ready=True now) through the status subresource, as markPodReady's
   * UpdateStatus does; here with `kubectl patch --subresource=status`. Only pods on a node without a
   * kubelet keep such a status (the simulated kubelet owns the others).
   */
  async markUpdatedPodsReady(): Promise<number> {
    const rs = await this.newReplicaSet()
    if (!rs) return 0
    const unready = (await this.pods()).filter(
      (p) =>
        controllerOf(p)?.uid === rs.metadata.uid &&
        !p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    )
    if (unready.length === 0) return 0
    const status = {
      status: {
        phase: 'Running',
        conditions: [{type: 'Ready', status: 'True', lastTransitionTime: rfc3339()}],
      },
    }
    const r = await this.cluster.kubectl([
      '-n',
      this.ns,
      'patch',
      'pod',
      ...unready.map((p) => p.metadata.name ?? ''),
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(status),
    ])
    // A pod deleted meanwhile is retried with the next poll, as upstream logs and retries.
    if (r.code !== 0 && !/NotFound|not found/.test(r.stderr))
      throw new Error(`kubectl patch pod: ${r.stderr}`)
    return unready.length
  }

  /** upstream: WaitForObservedDeployment */
  async waitForObserved(generation: number): Promise<void> {
    await poll(
      `deployment ${this.ns}/${this.name} to observe generation ${generation}`,
      async () => ((await this.get()).status?.observedGeneration ?? 0) >= generation,
      {state: this.describe()},
    )
  }

  /** upstream: WaitForDeploymentUpdatedReplicasGTE */
  async waitForUpdatedReplicasGTE(min: number): Promise<void> {
    const generation = this.deployment.metadata.generation ?? 0
    await poll(
      `deployment ${this.ns}/${this.name} to have at least ${min} updatedReplicas`,
      async () => {
        const s = (await this.get()).status
        return (s?.observedGeneration ?? 0) >= generation && (s?.updatedReplicas ?? 0) >= min
      },
      {state: this.describe()},
    )
  }

  /** upstream: WaitForDeploymentWithCondition */
  async waitForCondition(reason: string, type: 'Available' | 'Progressing'): Promise<Deployment> {
    let last: DeploymentCondition | undefined
    return poll(
      `deployment ${this.ns}/${this.name} to have a ${type} condition with reason ${reason}`,
      async () => {
        const d = await this.get()
        last = conditionOf(d, type)
        return last?.reason === reason ? d : undefined
      },
      {state: () => `last ${type}: ${JSON.stringify(last)}\n${this.describe()()}`},
    )
  }

  /** upstream: waitForReadyReplicas */
  async waitForReadyReplicas(): Promise<void> {
    await poll(`deployment ${this.ns}/${this.name} to have readyReplicas == replicas`, async () => {
      const d = await this.get()
      return (d.status?.readyReplicas ?? 0) === (d.spec.replicas ?? 1)
    })
  }

  /**
   * upstream: WaitRSStable — the ReplicaSet controller has observed the ReplicaSet's generation and
   * counts as many replicas as its spec asks. Upstream compares with the spec read before the wait;
   * the Deployment controller may scale the ReplicaSet again meanwhile (a rollout's next step), and
   * the old spec would then never be met, so each read's own spec and generation are used.
   */
  async waitRSStable(rs: ReplicaSet): Promise<void> {
    let last: ReplicaSet | undefined
    await poll(
      `replicaset ${this.ns}/${rs.metadata.name} to be stable`,
      async () => {
        last = await this.replicaSet(rs.metadata.name ?? '')
        return (
          (last.status?.observedGeneration ?? 0) >= (last.metadata.generation ?? 0) &&
          (last.status?.replicas ?? 0) === (last.spec.replicas ?? 1)
        )
      },
      {state: () => JSON.stringify({spec: last?.spec.replicas, status: last?.status})},
    )
  }

  /** upstream: scaleDeployment — update spec.replicas, wait for completion, check the new ReplicaSet. */
  async scaleDeployment(replicas: number, options: {markPodsReady?: boolean} = {}): Promise<void> {
    await this.update((d) => {
      d.spec.replicas = replicas
    })
    await this.waitForComplete(options)
    const rs = await this.expectNewReplicaSet()
    if (rs.spec.replicas !== replicas) {
      throw new Error(`expected new replicaset replicas = ${replicas}, got ${rs.spec.replicas}`)
    }
  }

  /**
   * Live `rollout watch -o json` and live `explain -o json` say what `kubectl rollout status` says
   * (done, waiting, or past the progress deadline), with the same line. The three read the cluster
   * at slightly different moments, so they are compared only when the Deployment did not change
   * while they ran (its resourceVersion before and after); otherwise they run again.
   */
  async agree(expected?: RolloutState): Promise<RolloutReading> {
    let attempts = 0
    let lastChange = ''
    return poll(
      `kubectl, explain and rollout watch to read deployment ${this.ns}/${this.name} while it stands still`,
      async () => {
        attempts++
        const before = await this.get()
        // A write to the Deployment while the three read voids their readings: they are stopped at
        // once rather than run to the end (the watch's 500 ms included) only to be read again.
        const moved = new AbortController()
        const stopWatching = this.cluster.server.store.onChange((c) => {
          const o = c.object as {metadata?: {namespace?: string; name?: string}}
          if (
            c.def.resource === 'deployments' &&
            o.metadata?.namespace === this.ns &&
            o.metadata?.name === this.name
          )
            moved.abort()
        })
        const [kubectl, explain, watch] = await Promise.all([
          this.cluster.kubectl(
            ['-n', this.ns, 'rollout', 'status', `deployment/${this.name}`, '--watch=false'],
            undefined,
            moved.signal,
          ),
          this.cluster.deployctl(
            ['explain', `deployment/${this.name}`, '-n', this.ns, '-o', 'json'],
            moved.signal,
          ),
          this.cluster.deployctl(
            [
              'rollout',
              'watch',
              `deployment/${this.name}`,
              '-n',
              this.ns,
              '-o',
              'json',
              '--timeout',
              '500ms',
              // kubectl rollout status waits for the progress deadline; so must the watch it is held to.
              '--fail-fast=false',
            ],
            moved.signal,
          ),
        ]).finally(stopWatching)
        const after = await this.get()
        if (moved.signal.aborted || before.metadata.resourceVersion !== after.metadata.resourceVersion) {
          lastChange = `resourceVersion ${before.metadata.resourceVersion} -> ${after.metadata.resourceVersion}`
          return undefined
        }
        if (explain.code !== 0) throw new Error(`explain exited ${explain.code}: ${explain.stderr}`)
        const readings = {
          kubectl: readKubectlRolloutStatus(kubectl),
          explain: readExplain(explain.stdout, this.ns, this.name),
          watch: readWatch(watch),
        }
        const same = (a: RolloutReading, b: RolloutReading) => a.state === b.state && a.message === b.message
        if (!same(readings.kubectl, readings.explain) || !same(readings.kubectl, readings.watch)) {
          throw new Error(
            `explain and rollout watch disagree with kubectl rollout status on ${this.ns}/${this.name}:\n${JSON.stringify(readings, null, 2)}`,
          )
        }
        if (expected && readings.kubectl.state !== expected) {
          throw new Error(
            `expected the rollout of ${this.ns}/${this.name} to be ${expected}, all three say ${readings.kubectl.state}: ${readings.kubectl.message}`,
          )
        }
        return readings.kubectl
      },
      {intervalMs: 300, state: () => `after ${attempts} attempts; last change: ${lastChange}`},
    )
  }
}

/** upstream: checkRevisionAndImage — undefined when it holds, else why not. */
function checkRevisionAndImage(
  d: Deployment,
  rs: ReplicaSet | undefined,
  revision: string,
  image: string,
): string | undefined {
  if (!rs) return `new replicaset for deployment ${d.metadata.name} is yet to be created`
  if (!rs.spec.selector?.matchLabels?.[HASH_LABEL]) {
    return `new replica set ${rs.metadata.name} doesn't have ${HASH_LABEL} label selector`
  }
  if (d.metadata.annotations?.[REVISION] !== revision) {
    return `deployment ${d.metadata.name} doesn't have the required revision set (has ${d.metadata.annotations?.[REVISION]})`
  }
  if (rs.metadata.annotations?.[REVISION] !== revision) {
    return `new replicaset ${rs.metadata.name} doesn't have the required revision set (has ${rs.metadata.annotations?.[REVISION]})`
  }
  const hasImage = (t: PodTemplateSpec | undefined) => t?.spec?.containers?.some((c) => c.image === image)
  if (!hasImage(d.spec.template))
    return `deployment ${d.metadata.name} doesn't have the required image ${image} set`
  if (!hasImage(rs.spec.template))
    return `new replica set ${rs.metadata.name} doesn't have the required image ${image}`
  return undefined
}
