import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../cli/base-command.js'
import {deploymentArgs, exitCodeFlag, MAX_WORKERS, outputFlags, passFlags} from '../cli/flags.js'
import {ReconcileOnceOptions} from '../cli/reconcile-once.js'

export default class ReconcileOnce extends BaseCommand {
  static override summary =
    'Run one Deployment controller pass and apply it: to the cluster, or to the objects of files'

  static override description =
    `Against a cluster (no -f): runs one pass per selected Deployment and performs its writes as the controller \
would: creates the new ReplicaSet, updates ReplicaSets and the Deployment with their resourceVersion (optimistic \
concurrency), writes the Deployment's status through the status subresource, deletes ReplicaSets with uid and \
resourceVersion preconditions, and posts the events. A conflict with someone else's change stops that Deployment's pass \
(--retries re-reads and runs it again). Prints what was done and whether each write succeeded.

On files (-f): runs the same pass, applies its writes to the objects in memory and prints what it did, as against a cluster (the table dry-run sync prints, or the same SyncResult document). The document's objects field holds every input object after the pass (a kind: List: written ones updated, created ReplicaSets added, deleted ones removed): -o jsonpath={.objects} prints it, to feed back with -f - for the next pass. Pods are not changed: the ReplicaSet controller, the scheduler and the kubelet are not simulated.

With --exit-code the exit status tells whether the pass changed anything, as kubectl diff's: 0 it wrote nothing, 1 it \
wrote something (with --dry-run=server: the server accepted writes it did not store; on files: the pass wrote to the \
objects), 2 or more an error, a write the server refused, incomplete input (see the warning on stderr) or \
a namespace with no Deployments while others have some.`

  static override usage = [
    'reconcile-once [NAME | deployment/NAME ...] [-n NS | -A] [-l SELECTOR] [--dry-run=none|server|client] [--retries N] [-o FORMAT] [--exit-code]',
    'reconcile-once [NAME | deployment/NAME ...] -f FILE... [-n NS | -A] [-l SELECTOR] [--now T] [--kube-version 1.NN] [--feature-gates ...] [-o FORMAT] [--exit-code]',
  ]

  static override examples = [
    {
      description: 'Reconcile every Deployment of the current namespace of the current context:',
      command: '<%= config.bin %> <%= command.id %>',
    },
    {
      description: 'Let the API server validate the writes of one pass without storing them:',
      command: '<%= config.bin %> <%= command.id %> deployment/web -n prod --dry-run=server -o wide',
    },
    {
      description: 'Fail a CI step when a pass had to change something, or could not:',
      command: '<%= config.bin %> <%= command.id %> -n prod --exit-code -o name',
    },
    {
      description: 'The world after one pass of a new Deployment:',
      command:
        "<%= config.bin %> <%= command.id %> -f examples/new-deployment.yaml -n demo --now 2026-11-29T10:00:01Z -o jsonpath='{.objects}'",
    },
    {
      description: 'Two passes in a row:',
      command:
        "<%= config.bin %> <%= command.id %> -f examples/rolling-update.yaml -n demo -o jsonpath='{.objects}' | <%= config.bin %> <%= command.id %> -f - -n demo",
    },
  ]

  static override strict = false

  static override args = deploymentArgs('Deployments to sync: NAME, deployment/NAME, or deployment NAME...')

  static override flags = {
    ...passFlags,
    ...outputFlags(['table', 'wide', 'json', 'yaml', 'name', 'jsonpath'], {
      description:
        "Output format: table (default), wide, json, yaml, name or jsonpath=TEMPLATE: what was done (files: the objects after the pass in the document's objects).",
    }),
    'dry-run': Flags.string({
      options: ['none', 'server', 'client'],
      default: 'none',
      description:
        'server: send every write with dryRun=All, so the API server validates it and stores nothing; client: send nothing and print what the pass would write, as dry-run sync does.',
    }),
    'concurrent-deployment-syncs': Flags.integer({
      min: 1,
      // Each worker holds a pass in memory: a bound that a cluster can use, with a clear error past it.
      max: MAX_WORKERS,
      default: 5,
      description:
        "Deployments synced at once against a cluster, as kube-controller-manager's flag of the same name.",
    }),
    retries: Flags.integer({
      min: 0,
      default: 0,
      description:
        "After a conflict with someone else's change, re-read and run the pass again up to N times.",
    }),
    'record-events': Flags.boolean({
      default: true,
      allowNo: true,
      description: "Post the pass's events on the Deployment, as the controller does (live mode).",
    }),
    ...exitCodeFlag(
      'Exit 0 when the pass wrote nothing, 1 when it wrote something, 2 or more on error, a refused write, incomplete input or a namespace with no Deployments while others have some.',
    ),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(ReconcileOnce)
    if (flags['dry-run'] === 'client') {
      // kubectl's client-side dry run: nothing is sent, what would be is printed: dry-run sync's pass.
      const {DryRunSyncOptions} = await import('../cli/dry-run-sync.js')
      await this.runOptions(new DryRunSyncOptions(processIO), flags, argv)
      return
    }
    const options = new ReconcileOnceOptions(processIO)
    await this.runOptions(options, flags, argv)
  }
}
