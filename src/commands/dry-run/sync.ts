import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../../cli/base-command.js'
import {DryRunSyncOptions} from '../../cli/dry-run-sync.js'
import {deploymentArgs, exitCodeFlag, outputFlags, passFlags} from '../../cli/flags.js'
import {timelineFlags} from '../../cli/timeline-flags.js'

export default class DryRunSync extends BaseCommand {
  static override summary =
    'Run one Deployment controller pass on files or the cluster and print what it would do, changing nothing'

  static override description =
    `Runs one syncDeployment pass of the Kubernetes Deployment controller (the v1.36 line) for each \
selected Deployment, read from -f files or, without -f, from the cluster of the kubeconfig context: every Deployment of \
the namespace (-n, default the context's namespace, else "default"; with -f, every namespace the files name), of all \
namespaces (-A), those matching -l, or the ones named. Nothing is written anywhere.

For each Deployment it prints the path through the controller, the writes it would make (VERB, RESOURCE, NAME and what \
CHANGEs), the events it would record and when it would requeue the Deployment. -o json and -o yaml print the same \
SyncResult document, a stable contract for scripts.

With --exit-code the exit status tells whether anything would change, as with kubectl diff: 0 no Deployment would change, \
1 some would, 2 or more an error. It also exits 2 when the files lack what a Deployment's status refers to (its \
ReplicaSets, or for Recreate its pods: a partial snapshot, see the warning on stderr).`

  static override usage = [
    'dry-run sync [NAME | deployment/NAME ...] [-f FILE...] [-n NS | -A] [-l SELECTOR] [--now T] [--kube-version 1.NN] [--feature-gates ...] [-o FORMAT] [--no-headers] [--exit-code]',
  ]

  static override examples = [
    {
      description: 'What the controller does next for a rolling update, at a fixed time:',
      command:
        '<%= config.bin %> <%= command.id %> -f examples/rolling-update.yaml -n demo --now 2026-11-29T10:05:00Z',
    },
    {
      description: 'One Deployment, all fields that change:',
      command:
        '<%= config.bin %> <%= command.id %> deployment/web -f examples/new-deployment.yaml -n demo -o wide',
    },
    {
      description: 'Every Deployment of a cluster snapshot, as JSON:',
      command: 'kubectl get deploy,rs,pods -A -o yaml | <%= config.bin %> <%= command.id %> -f - -A -o json',
    },
    {
      description: 'Fail a CI step when a pass would still change something:',
      command: '<%= config.bin %> <%= command.id %> -f snapshot/ -R -A --exit-code',
    },
  ]

  static override strict = false

  static override args = deploymentArgs('Deployments to sync: NAME, deployment/NAME, or deployment NAME...')

  static override flags = {
    ...passFlags,
    ...timelineFlags,
    ...outputFlags(['table', 'wide', 'json', 'yaml', 'name', 'jsonpath'], {
      default: 'table',
      description:
        'Output format: table; wide (the writes also with the REPLICAS, REVISION and IMAGES of the object written, and every field that changes); json or yaml (the SyncResult document); name (deployment.apps/NAME); or jsonpath=TEMPLATE.',
    }),
    ...exitCodeFlag(
      'Exit 0 when no Deployment would change, 1 when some would, 2 or more on error, incomplete input or a namespace with no Deployments while others have some.',
    ),
    // kubectl's --dry-run=client is what this command always is: accepted, so that the habit works.
    'dry-run': Flags.string({
      options: ['client'],
      default: 'client',
      description: "client (kubectl's spelling, the default and only strategy): nothing is sent anywhere.",
    }),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(DryRunSync)
    const options = new DryRunSyncOptions(processIO)
    await this.runOptions(options, flags, argv)
  }
}
