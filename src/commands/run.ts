import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../cli/base-command.js'
import {apiClientFlags, leaderElectionFlags, loggingFlags, servingFlags} from '../cli/controller-flags.js'
import {clockFlags, connectionFlags, globalFlags, MAX_WORKERS} from '../cli/flags.js'
import {RunOptions} from '../cli/run.js'
import {tuneHeapForController} from '../run/heap.js'

/**
 * A controller reads the cluster (no -f, no --now): the gates, the connection and -v. Its requests
 * are bounded by default: an unattended process must not hang on one.
 */
const runPassFlags = {
  'feature-gates': clockFlags['feature-gates'],
  'kube-version': clockFlags['kube-version'],
  ...connectionFlags,
  'request-timeout': Flags.string({
    helpGroup: 'CLUSTER',
    helpValue: 'DURATION',
    description:
      'Timeout of a whole request to the server (headers and body), e.g. 30s; 0 waits forever. Default 30s for run (watches are not bounded by it).',
  }),
  ...globalFlags,
}

export default class Run extends BaseCommand {
  static override summary = 'Run the Deployment controller against the cluster until interrupted'

  static override description =
    `Does what kube-controller-manager's Deployment controller does, for clusters that have none (an API server and \
etcd only, kube-controller-manager started with --controllers=-deployment, a local test API server): lists and \
watches Deployments, ReplicaSets and Pods, enqueues Deployments as upstream's event handlers decide, and runs \
--concurrent-deployment-syncs workers that sync one Deployment each over the caches and write as reconcile-once \
does (optimistic concurrency, status subresource, events from deployment-controller). Failed syncs are retried with \
client-go's rate limiter (5ms doubling to 1000s, 10 qps / burst 100, 15 retries); progress deadlines are requeued \
to fire on time.

It refuses to start (unless --force) while kube-controller-manager runs: its Lease in kube-system is held and \
freshly renewed (only the control plane can write it). Deployments whose status kube-controller-manager wrote in \
the last 5 minutes (their managedFields) only make it warn, as anyone who may update a Deployment can write those.

Logs go to stderr: --v 2 adds one line per sync (key, duration, result), --v 4 why the key was queued, the path \
through the controller, its writes, events and watch activity. SIGINT or SIGTERM finishes the syncs in progress and \
exits 0; a request still in flight 2 seconds later is cut, so a hung server cannot hold the exit (and every request \
is bounded by --request-timeout, 30s unless told otherwise).

As a controller of a cluster (deploy/ has the manifests): --leader-elect takes a coordination.k8s.io/v1 Lease as \
kube-controller-manager does, so that of several replicas one runs the workers (the others keep warm caches); the \
leader that cannot renew the Lease within --leader-elect-renew-deadline stops writing and exits 1, and on \
SIGTERM it finishes its syncs, then releases the Lease so a standby takes over at once. --metrics-bind-address \
serves kube-controller-manager's workqueue_*, rest_client_* and leader_election_master_status metrics; \
--health-probe-bind-address serves /healthz and /readyz (caches synced). Every request is rate-limited on the \
client (--kube-api-qps, --kube-api-burst). Without a kubeconfig, inside a pod, it uses the pod's service account.

With --once-synced it syncs every Deployment once the caches have synced, waits until no key is ready (error \
retries due within a second are waited for; progress-deadline requeues are not followed), and exits: 0 when every \
Deployment's last sync succeeded, 1 otherwise.`

  static override usage = [
    'run [-n NS | -A] [-l SELECTOR] [--concurrent-deployment-syncs 5] [--kube-version 1.NN] [--feature-gates ...] [--dry-run=none|server|client] [--once-synced] [--force] [--v N]',
    'run -A --leader-elect [--leader-elect-lease-duration 15s ...] [--metrics-bind-address :8080] [--health-probe-bind-address :8081] [--kube-api-qps 20 --kube-api-burst 30] [--log-format json]',
  ]

  static override examples = [
    {
      description: 'Be the Deployment controller of the current namespace, one line per sync:',
      command: '<%= config.bin %> <%= command.id %> --v 2',
    },
    {
      description: 'Reconcile every Deployment of the cluster once, for a script:',
      command: '<%= config.bin %> <%= command.id %> -A --once-synced',
    },
    {
      description: 'As two replicas in a cluster (what deploy/deployment.yaml runs):',
      command:
        '<%= config.bin %> <%= command.id %> -A --leader-elect --metrics-bind-address :8080 --health-probe-bind-address :8081 --log-format json',
    },
    {
      description: 'Next to a kube-controller-manager started with --controllers=-deployment:',
      command: '<%= config.bin %> <%= command.id %> -A --force',
    },
  ]

  static override flags = {
    namespace: Flags.string({
      char: 'n',
      helpValue: 'NS',
      description: 'Namespace to control (default: the context\'s namespace, else "default").',
    }),
    'all-namespaces': Flags.boolean({
      char: 'A',
      default: false,
      description: 'Control the Deployments of every namespace.',
    }),
    selector: Flags.string({
      char: 'l',
      helpValue: 'SELECTOR',
      description: "Only Deployments with these labels (kubectl syntax: 'a=b,c!=d,e in (x,y),!f').",
    }),
    'concurrent-deployment-syncs': Flags.integer({
      helpValue: 'N',
      min: 1,
      // Each worker holds a pass in memory: a bound that a cluster can use, with a clear error past it.
      max: MAX_WORKERS,
      default: 5,
      description: 'How many Deployments are synced at once (kube-controller-manager flag of the same name).',
    }),
    'dry-run': Flags.string({
      options: ['none', 'server', 'client'],
      default: 'none',
      description:
        "server: send every write with dryRun=All, so the API server validates it and stores nothing; client: send no write at all and log each write and event the controller would have sent, described as dry-run sync's CHANGE column.",
    }),
    'once-synced': Flags.boolean({
      default: false,
      description: 'Sync every Deployment once after the caches sync, wait for the queue to drain, and exit.',
    }),
    force: Flags.boolean({
      default: false,
      description: 'Start even when another Deployment controller seems active.',
    }),
    ...leaderElectionFlags,
    ...servingFlags,
    ...apiClientFlags,
    ...runPassFlags,
    ...loggingFlags,
    v: Flags.integer({
      char: 'v',
      min: 0,
      default: 0,
      helpGroup: 'GLOBAL',
      description:
        "Log level: 1 every flag's value, 2 one line per sync, 4 the path of each sync and watch activity, 6 every request.",
    }),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Run)
    await tuneHeapForController()
    const options = new RunOptions(processIO)
    await options.complete(flags, this.config.version)
    await options.validateOptions()
    process.exitCode = await options.run()
  }
}
