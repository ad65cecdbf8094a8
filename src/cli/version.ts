// `version`: kubectl version's document for this plugin: clientVersion (this program), and
// serverVersion (GET /version) when a cluster is configured and answers; --client asks no server.

import type {ConnectionFlags} from '../cluster/live/kubeconfig.js'
import {UsageError} from '../errors.js'
import type {CommandOptions, IO} from './base-command.js'

export type VersionFlags = ConnectionFlags & {client: boolean; output?: string; v?: number}

/** The fields of apimachinery's version.Info that this program has; serverVersion is the server's own. */
export interface ClientVersion {
  major: string
  minor: string
  gitVersion: string
  platform: string
  /** The Kubernetes line whose Deployment controller this is a port of. */
  kubernetesVersion: string
  /** The Node.js that runs it. */
  nodeVersion: string
}

export interface VersionDocument {
  clientVersion: ClientVersion
  serverVersion?: Record<string, unknown>
}

export class VersionOptions implements CommandOptions<VersionFlags> {
  client = false
  output: 'text' | 'json' | 'yaml' = 'text'
  private flags: VersionFlags = {client: false}

  constructor(
    private readonly io: IO,
    private readonly version: string,
  ) {}

  async complete(flags: VersionFlags): Promise<void> {
    this.flags = flags
    this.client = flags.client
    const o = flags.output ?? ''
    if (o !== '' && o !== 'json' && o !== 'yaml') {
      // kubectl version's words.
      throw new UsageError(`--output must be 'yaml' or 'json'`)
    }
    this.output = o === '' ? 'text' : o
  }

  async validateOptions(): Promise<void> {}

  clientVersion(): ClientVersion {
    const [major = '0', minor = '0'] = this.version.split('.')
    const arch = process.arch === 'x64' ? 'amd64' : process.arch
    const os = process.platform === 'win32' ? 'windows' : process.platform
    return {
      major,
      minor,
      gitVersion: `v${this.version}`,
      platform: `${os}/${arch}`,
      kubernetesVersion: '',
      nodeVersion: process.version,
    }
  }

  /**
   * The server's /version, when a kubeconfig (or --server) names a cluster; undefined without one.
   * A cluster that does not answer is the error kubectl prints, after the client's version.
   */
  private async serverVersion(): Promise<{info?: Record<string, unknown>; error?: unknown}> {
    const {connect, connectionFlagsOf} = await import('../cluster/live/kubeconfig.js')
    let connection: Awaited<ReturnType<typeof connect>>
    try {
      connection = await connect(connectionFlagsOf(this.flags))
    } catch (err) {
      // No kubeconfig at all: a plugin's version works offline.
      if (err instanceof Error && /^no kubeconfig found/.test(err.message)) return {}
      return {error: err}
    }
    const {ApiClient} = await import('../cluster/live/api.js')
    try {
      const info = await new ApiClient(connection).request<Record<string, unknown>>({
        method: 'GET',
        path: '/version',
      })
      return {info}
    } catch (err) {
      return {error: err}
    }
  }

  async run(): Promise<number> {
    const {KUBERNETES_VERSION} = await import('../controller/features.js')
    const server = this.client ? {} : await this.serverVersion()
    // The minor the commands act as: the server's (nearest supported), else the newest.
    let acting = KUBERNETES_VERSION
    const git = server.info?.gitVersion
    if (typeof git === 'string') {
      const {kubeVersionString, resolveKubeVersion} = await import('../controller/version.js')
      try {
        acting = kubeVersionString(resolveKubeVersion(git, "the server's /version").minor)
      } catch {
        // a gitVersion that names no minor: the newest, as the commands would warn and use
      }
    }
    const doc: VersionDocument = {
      clientVersion: {...this.clientVersion(), kubernetesVersion: acting},
    }
    if (server.info) doc.serverVersion = server.info
    if (this.output === 'json') this.io.out(`${JSON.stringify(doc, null, 2)}\n`)
    else if (this.output === 'yaml') {
      const {yamlPrinter} = await import('../render/document.js')
      this.io.out((await yamlPrinter())(doc))
    } else {
      this.io.out(`Client Version: ${doc.clientVersion.gitVersion}\n`)
      this.io.out(`Deployment controller: Kubernetes ${acting}\n`)
      if (doc.serverVersion) this.io.out(`Server Version: ${String(doc.serverVersion.gitVersion ?? '')}\n`)
    }
    if (server.error !== undefined) throw server.error
    return 0
  }
}
