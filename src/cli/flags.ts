// The flags of every command, in groups as kubectl composes ConfigFlags and PrintFlags: a command
// spreads the groups it takes (`...selectionFlags, ...inputFlags, ...outputFlags(...)`), and its
// options object completes each group with the matching part of options.ts. Kept light (only
// oclif's flag builders) so that `--help` is fast.

import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {OutputKind} from '../render/output.js'

/**
 * Which cluster and as whom (live mode): kubectl's ConfigFlags, each applied over the kubeconfig
 * as kubectl applies it (src/cluster/live/kubeconfig.ts). Credential values are never printed.
 */
export const connectionFlags = {
  kubeconfig: Flags.string({helpGroup: 'CLUSTER', description: 'Path to the kubeconfig file (live mode).'}),
  context: Flags.string({helpGroup: 'CLUSTER', description: 'The kubeconfig context to use (live mode).'}),
  cluster: Flags.string({helpGroup: 'CLUSTER', description: 'The kubeconfig cluster to use (live mode).'}),
  user: Flags.string({helpGroup: 'CLUSTER', description: 'The kubeconfig user to use (live mode).'}),
  server: Flags.string({
    char: 's',
    helpGroup: 'CLUSTER',
    helpValue: 'URL',
    description: 'The address and port of the Kubernetes API server (live mode).',
  }),
  'request-timeout': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'DURATION',
    description:
      'Timeout of a whole request to the server (headers and body), e.g. 30s; 0 waits forever (live mode).',
  }),
  'insecure-skip-tls-verify': Flags.boolean({
    helpGroup: 'CLUSTER',
    default: false,
    description: "Do not check the server's certificate (live mode).",
  }),
  'certificate-authority': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'FILE',
    description: 'Path to a cert file for the certificate authority (live mode).',
  }),
  'tls-server-name': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'NAME',
    description: "Server name to check the server's certificate against, instead of the host (live mode).",
  }),
  token: Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'TOKEN',
    description: 'Bearer token for authentication to the API server (live mode).',
  }),
  username: Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'NAME',
    description: 'Username for basic authentication to the API server (live mode).',
  }),
  password: Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'PASSWORD',
    description: 'Password for basic authentication to the API server (live mode).',
  }),
  'client-certificate': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'FILE',
    description: 'Path to a client certificate file for TLS (live mode).',
  }),
  'client-key': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'FILE',
    description: 'Path to a client key file for TLS (live mode).',
  }),
  as: Flags.string({helpGroup: 'CLUSTER', description: 'User to impersonate (live mode).'}),
  'as-group': Flags.string({
    helpGroup: 'CLUSTER',
    multiple: true,
    multipleNonGreedy: true,
    description: 'Group to impersonate; repeat for several (live mode).',
  }),
  'as-uid': Flags.string({helpGroup: 'CLUSTER', description: 'UID to impersonate (live mode).'}),
}

/**
 * Several clusters in one run (explain --summary, rollout watch): --context repeated, or
 * --all-contexts for every context of the kubeconfig. Replaces connectionFlags' --context.
 */
export const multiContextFlags = {
  context: Flags.string({
    helpGroup: 'CLUSTER',
    multiple: true,
    multipleNonGreedy: true,
    description:
      'The kubeconfig context to use (live mode); repeat it to cover several clusters, each a CONTEXT column and JSON field.',
  }),
  'all-contexts': Flags.boolean({
    helpGroup: 'CLUSTER',
    default: false,
    description:
      'Every context of the kubeconfig, one after the other as with --context repeated (live mode).',
  }),
}

/** Which Deployments: -n, -A, -l (names are arguments). */
export const selectionFlags = {
  namespace: Flags.string({
    char: 'n',
    helpValue: 'NS',
    description:
      'Namespace of the Deployments (default: the kubeconfig context\'s namespace, or "default"; with -f, every namespace the files name, and objects without one in the context\'s).',
  }),
  'all-namespaces': Flags.boolean({
    char: 'A',
    default: false,
    description: 'The Deployments of every namespace.',
  }),
  selector: Flags.string({
    char: 'l',
    helpValue: 'SELECTOR',
    description: "Label selector (kubectl syntax: 'a=b,c!=d,e in (x,y),!f').",
  }),
}

/** Where objects come from: -f files (no -f: the cluster), -R, --validate. */
export const inputFlags = {
  filename: Flags.string({
    char: 'f',
    multiple: true,
    multipleNonGreedy: true,
    delimiter: ',',
    helpValue: 'FILE',
    description: 'Files or directories with Deployments, ReplicaSets and Pods (YAML or JSON; - for stdin).',
  }),
  recursive: Flags.boolean({
    char: 'R',
    default: false,
    description: 'Process the directories given with -f recursively.',
  }),
  validate: Flags.string({
    options: ['strict', 'warn', 'ignore', 'true', 'false'],
    default: 'strict',
    description: 'What to do with objects the API server would reject: fail, warn, or ignore.',
  }),
}

/** The controller's clock and its gates: what makes a pass replayable. */
export const clockFlags = {
  now: Flags.string({
    helpValue: 'RFC3339|+DURATION',
    description:
      "The controller's clock, e.g. 2026-11-29T10:05:00Z (default: the current time); or relative, e.g. +10m or -1h: to the current time, or with -f to the snapshot's newest timestamp.",
  }),
  'feature-gates': Flags.string({
    helpValue: 'NAME=BOOL,...',
    description:
      'Kubernetes feature gates, over the defaults of --kube-version: DeploymentReplicaSetTerminatingReplicas (on from 1.35), ImageVolume (on from 1.35), PodLevelResources, DynamicResourceAllocation, ... (docs/fidelity.md lists them).',
  }),
  'kube-version': Flags.string({
    helpValue: 'MAJOR.MINOR',
    description:
      "The Kubernetes minor whose kube-controller-manager and API server to act as, 1.33 to 1.37: ReplicaSet names, feature-gate defaults, the fields an API server drops (default: with -f the newest, 1.37; on a cluster the server's /version).",
  }),
}

/** -v, on every command. */
export const globalFlags = {
  v: Flags.integer({
    char: 'v',
    min: 0,
    default: 0,
    helpGroup: 'GLOBAL',
    description:
      "Log level: 1 or more logs every flag's value, 6 or more every API request and stack traces of unexpected errors.",
  }),
}

/**
 * -o and --no-headers: kubectl's PrintFlags. `kinds` are the formats the command prints; the value
 * is checked by parseOutput (render/output.ts), since `jsonpath=TEMPLATE` carries its template.
 */
export function outputFlags(
  kinds: readonly OutputKind[],
  options: {default?: OutputKind; description?: string; tables?: boolean} = {},
) {
  const list = kinds.map((k) => (k === 'jsonpath' ? 'jsonpath=TEMPLATE' : k)).join('|')
  return {
    output: Flags.string({
      char: 'o',
      // The completion reads the formats from here (completion/complete.ts).
      helpValue: list,
      ...(options.default ? {default: options.default} : {}),
      description: options.description ?? `Output format: ${list.replaceAll('|', ', ')}.`,
    }),
    ...(options.tables !== false ? {'no-headers': noHeadersFlag} : {}),
  }
}

const noHeadersFlag = Flags.boolean({
  default: false,
  description: 'Print tables without their header row (as kubectl --no-headers).',
})

/**
 * The Deployments a command acts on: NAME, deployment/NAME or `deployment NAME...` (the command is
 * not strict, so every word is an argument). Piped stdin is never a NAME: it belongs to -f -.
 */
export function deploymentArgs(description: string) {
  return {name: Args.string({description, ignoreStdin: true})}
}

/**
 * --exit-code: kubectl diff's convention, 0 nothing changes, 1 something does, 2 or more an error
 * (errors exit 2: BaseCommand.runOptions). `description` says what changes for the command.
 */
export function exitCodeFlag(description: string) {
  return {'exit-code': Flags.boolean({default: false, description})}
}

/** The groups of a command that runs one pass per Deployment. */
export const passFlags = {
  ...inputFlags,
  ...selectionFlags,
  ...clockFlags,
  ...connectionFlags,
  ...globalFlags,
}

/** --concurrent-deployment-syncs at most: beyond, workers only cost memory (and 10^8 of them the heap). */
export const MAX_WORKERS = 1000
