// The Client of a pass against a live cluster: each controller write becomes an API call with
// optimistic concurrency, recorded with its outcome so a report can say exactly what was written.

import {isAlreadyExists, isConflict, StatusError} from '../../controller/api/errors.js'
import type {Deployment, KubeObject, ReplicaSet} from '../../controller/api/types.js'
import type {Client, PatchType} from '../../controller/interfaces.js'
import {equalIgnoreHash} from '../../controller/util/deployment-util.js'
import {deepCopy} from '../../controller/util/equality.js'
import type {Action, ActionResource} from '../action.js'
import {type ApiClient, ConnectionError} from './api.js'
import {collectionPath, objectPath} from './read.js'

export interface LiveClientOptions {
  /** --dry-run=server: every write carries dryRun=All and nothing is persisted. */
  serverDryRun: boolean
}

/**
 * Raised for every write after a conflict or a write of unknown outcome: the pass stops where
 * someone else's change was found, or where it no longer knows what the server holds.
 */
export class PassStopped extends Error {
  constructor(readonly reason: Error) {
    super(
      `stopped after ${reason instanceof StatusError ? 'a conflict' : 'a write of unknown outcome'}: ${reason.message}`,
    )
    this.name = 'PassStopped'
  }
}

export class LiveClient implements Client {
  readonly actions: Action[] = []
  /** The first conflict of the pass, if any: its writes stop there. */
  conflict: StatusError | undefined
  /** Writes that failed in a way that leaves their outcome unknown (timeout, reset, cut response). */
  readonly uncertain: Action[] = []
  /**
   * resourceVersion returned by this pass's last write of each object. Upstream reuses its stale
   * object and meets a 409 on its own second write; here the second write carries the version the
   * first one returned, so only someone else's change can conflict.
   */
  private readonly versions = new Map<string, string>()

  constructor(
    private readonly api: ApiClient,
    private readonly opts: LiveClientOptions,
  ) {}

  async getDeployment(namespace: string, name: string): Promise<Deployment> {
    const d = await this.api.request<Deployment>({
      method: 'GET',
      path: objectPath('deployments', namespace, name),
    })
    return {apiVersion: 'apps/v1', kind: 'Deployment', ...d}
  }

  updateDeployment(d: Deployment): Promise<Deployment> {
    return this.write('update', 'deployments', d, undefined, (body) => ({
      method: 'PUT',
      path: objectPath('deployments', ns(d), name(d)),
      body,
    }))
  }

  updateDeploymentStatus(d: Deployment): Promise<Deployment> {
    return this.write('update', 'deployments', d, 'status', (body) => ({
      method: 'PUT',
      path: objectPath('deployments', ns(d), name(d), 'status'),
      body,
    }))
  }

  async createReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    try {
      return await this.write('create', 'replicasets', rs, undefined, (body) => ({
        method: 'POST',
        path: collectionPath('replicasets', ns(rs)),
        body,
      }))
    } catch (err) {
      // Someone else (another pass) created this very ReplicaSet after the read: a conflict, so the
      // pass stops and --retries re-reads. A name taken by another owner, or by this Deployment's
      // ReplicaSet of another template, is a hash collision, which the controller handles itself
      // (upstream: getNewReplicaSet's AlreadyExists branch bumps collisionCount).
      if (err instanceof StatusError && isAlreadyExists(err) && (await this.createdByOther(rs))) {
        this.conflict ??= err
      }
      throw err
    }
  }

  /**
   * Whether the ReplicaSet of that name now exists under the same controller with the same template:
   * the one this pass meant to create, created by someone else.
   */
  private async createdByOther(rs: ReplicaSet): Promise<boolean> {
    const mine = rs.metadata.ownerReferences?.find((r) => r.controller)?.uid
    try {
      const existing = await this.api.request<ReplicaSet>({
        method: 'GET',
        path: objectPath('replicasets', ns(rs), name(rs)),
      })
      return (
        mine !== undefined &&
        existing.metadata?.ownerReferences?.find((r) => r.controller)?.uid === mine &&
        equalIgnoreHash(existing.spec?.template, rs.spec.template)
      )
    } catch {
      return false
    }
  }

  /** Why the pass stopped writing, if it did: a conflict or a write of unknown outcome. */
  get stopped(): Error | undefined {
    return this.conflict ?? (this.uncertain.length > 0 ? new Error(this.uncertain[0]!.error) : undefined)
  }

  updateReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    return this.write('update', 'replicasets', rs, undefined, (body) => ({
      method: 'PUT',
      path: objectPath('replicasets', ns(rs), name(rs)),
      body,
    }))
  }

  async patchReplicaSet(
    namespace: string,
    rsName: string,
    type: PatchType,
    patch: unknown,
  ): Promise<ReplicaSet> {
    const action: Action = {
      verb: 'patch',
      resource: 'replicasets',
      namespace,
      name: rsName,
      patch: deepCopy(patch),
      patchType: type,
    }
    return this.send(action, `replicasets/${namespace}/${rsName}`, {
      method: 'PATCH',
      path: objectPath('replicasets', namespace, rsName),
      body: patch,
      contentType:
        type === 'strategic-merge'
          ? 'application/strategic-merge-patch+json'
          : 'application/merge-patch+json',
    })
  }

  async deleteReplicaSet(rs: ReplicaSet): Promise<void> {
    const key = `replicasets/${ns(rs)}/${name(rs)}`
    const action: Action = {verb: 'delete', resource: 'replicasets', namespace: ns(rs), name: name(rs)}
    // Preconditions make the delete fail if the ReplicaSet changed since it was judged deletable.
    const preconditions = {
      uid: rs.metadata.uid,
      resourceVersion: this.versions.get(key) ?? rs.metadata.resourceVersion,
    }
    await this.send(action, key, {
      method: 'DELETE',
      path: objectPath('replicasets', ns(rs), name(rs)),
      body: {apiVersion: 'v1', kind: 'DeleteOptions', preconditions},
    })
  }

  private async write<T extends KubeObject>(
    verb: 'create' | 'update',
    resource: ActionResource,
    obj: T,
    subresource: 'status' | undefined,
    request: (body: T) => {method: 'POST' | 'PUT'; path: string; body: T},
  ): Promise<T> {
    const key = `${resource}/${ns(obj)}/${name(obj)}`
    const body = deepCopy(obj)
    const known = this.versions.get(key)
    if (known !== undefined) body.metadata.resourceVersion = known
    const action: Action = {
      verb,
      resource,
      ...(subresource ? {subresource} : {}),
      namespace: ns(obj),
      name: name(obj),
      object: deepCopy(body),
    }
    return this.send(action, key, request(body))
  }

  private async send<T>(
    action: Action,
    key: string,
    spec: {method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string; body?: unknown; contentType?: string},
  ): Promise<T> {
    const stopped = this.stopped
    if (stopped) {
      this.actions.push({...action, outcome: 'skipped'})
      throw new PassStopped(stopped)
    }
    try {
      const result = await this.api.request<T & {metadata?: {resourceVersion?: string}}>({
        ...spec,
        query: this.opts.serverDryRun ? {dryRun: 'All'} : undefined,
      })
      const rv = result?.metadata?.resourceVersion
      if (rv && action.verb !== 'delete' && !this.opts.serverDryRun) this.versions.set(key, rv)
      this.actions.push({...action, outcome: 'succeeded'})
      return result
    } catch (err) {
      const failed: Action = {
        ...action,
        outcome: 'failed',
        error: err instanceof Error ? err.message : String(err),
      }
      this.actions.push(failed)
      if (isConflict(err) && err instanceof StatusError) this.conflict ??= err
      if (err instanceof ConnectionError && err.uncertain) this.uncertain.push(failed)
      throw err
    }
  }
}

const ns = (o: KubeObject) => o.metadata.namespace ?? 'default'
const name = (o: KubeObject) => o.metadata.name ?? ''
