// The election record kept in a coordination.k8s.io/v1 Lease, as client-go's resourcelock.LeaseLock
// keeps it: the spec is the record, the Lease object last read or written is remembered so that
// an Update carries its resourceVersion (a 409 then means someone else wrote first).

import type {ApiClient} from '../api.js'

/** upstream: resourcelock.LeaderElectionRecord. Times are kept as the server wrote them. */
export interface LeaderElectionRecord {
  holderIdentity: string
  leaseDurationSeconds: number
  acquireTime: string | undefined
  renewTime: string | undefined
  leaderTransitions: number
  strategy: string
  preferredHolder: string
}

/** A record as read, with its canonical serialization (upstream compares these bytes). */
export interface ObservedRecord {
  record: LeaderElectionRecord
  raw: string
}

/** upstream: resourcelock.Interface, the part leader election uses. */
export interface ResourceLock {
  get(signal?: AbortSignal): Promise<ObservedRecord>
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>
  /** The unique string identifying this candidate. */
  identity(): string
  /** namespace/name, for logs. */
  describe(): string
  /** An event on the lock object ("became leader", "stopped leading"); best effort. */
  recordEvent?(message: string): void
}

interface LeaseSpec {
  holderIdentity?: string | null
  leaseDurationSeconds?: number | null
  acquireTime?: string | null
  renewTime?: string | null
  leaseTransitions?: number | null
  strategy?: string | null
  preferredHolder?: string | null
}

export interface Lease {
  apiVersion?: string
  kind?: string
  metadata: {
    name?: string
    namespace?: string
    resourceVersion?: string
    labels?: Record<string, string>
    [k: string]: unknown
  }
  spec?: LeaseSpec
}

/** metav1.MicroTime as the API serializes it: RFC 3339 with six fractional digits, UTC. */
export function microTime(ms: number): string {
  const iso = new Date(ms).toISOString() // 2026-12-02T10:00:00.123Z
  return `${iso.slice(0, 23)}000Z`
}

/** upstream: LeaseSpecToLeaderElectionRecord */
export function leaseSpecToRecord(spec: LeaseSpec | undefined): LeaderElectionRecord {
  const s = spec ?? {}
  return {
    holderIdentity: s.holderIdentity ?? '',
    leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
    acquireTime: s.acquireTime ?? undefined,
    renewTime: s.renewTime ?? undefined,
    leaderTransitions: s.leaseTransitions ?? 0,
    strategy: s.strategy ?? '',
    preferredHolder: s.preferredHolder ?? '',
  }
}

/** upstream: LeaderElectionRecordToLeaseSpec — holder, duration, times and transitions always set. */
export function recordToLeaseSpec(r: LeaderElectionRecord): LeaseSpec {
  const spec: LeaseSpec = {
    holderIdentity: r.holderIdentity,
    leaseDurationSeconds: r.leaseDurationSeconds,
    acquireTime: r.acquireTime ?? null,
    renewTime: r.renewTime ?? null,
    leaseTransitions: r.leaderTransitions,
  }
  if (r.preferredHolder !== '') spec.preferredHolder = r.preferredHolder
  if (r.strategy !== '') spec.strategy = r.strategy
  return spec
}

/** The record's canonical bytes: every field, in one order (upstream: json.Marshal of the record). */
export function rawRecord(r: LeaderElectionRecord): string {
  return JSON.stringify([
    r.holderIdentity,
    r.leaseDurationSeconds,
    r.acquireTime ?? null,
    r.renewTime ?? null,
    r.leaderTransitions,
    r.strategy,
    r.preferredHolder,
  ])
}

export class LeaseLock implements ResourceLock {
  private lease: Lease | undefined

  constructor(
    private readonly api: ApiClient,
    readonly namespace: string,
    readonly name: string,
    private readonly id: string,
    private readonly labels?: Record<string, string>,
    private readonly events?: (lease: Lease, message: string) => void,
  ) {}

  private path(collection = false): string {
    const base = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases`
    return collection ? base : `${base}/${encodeURIComponent(this.name)}`
  }

  // upstream: LeaseLock.Get
  async get(signal?: AbortSignal): Promise<ObservedRecord> {
    const lease = await this.api.request<Lease>({method: 'GET', path: this.path(), signal})
    this.lease = lease
    const record = leaseSpecToRecord(lease.spec)
    return {record, raw: rawRecord(record)}
  }

  // upstream: LeaseLock.Create
  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.name,
        namespace: this.namespace,
        ...(this.labels ? {labels: {...this.labels}} : {}),
      },
      spec: recordToLeaseSpec(record),
    }
    this.lease = await this.api.request<Lease>({method: 'POST', path: this.path(true), body, signal})
  }

  // upstream: LeaseLock.Update — a PUT of the last Lease seen, carrying its resourceVersion.
  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.lease) throw new Error('lease not initialized, call get or create first')
    const labels = this.labels ? {...(this.lease.metadata.labels ?? {}), ...this.labels} : undefined
    const body: Lease = {
      ...this.lease,
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {...this.lease.metadata, ...(labels ? {labels} : {})},
      spec: recordToLeaseSpec(record),
    }
    this.lease = await this.api.request<Lease>({method: 'PUT', path: this.path(), body, signal})
  }

  identity(): string {
    return this.id
  }

  describe(): string {
    return `${this.namespace}/${this.name}`
  }

  // upstream: LeaseLock.RecordEvent — "<identity> became leader" on the Lease.
  recordEvent(message: string): void {
    if (!this.events || !this.lease) return
    this.events(this.lease, `${this.id} ${message}`)
  }
}
