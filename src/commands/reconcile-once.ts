import {Args} from '@oclif/core'
import {BaseCommand, outputFlag, passFlags, processIO} from '../base-command.js'
import {RECONCILE_OUTPUT_FORMATS, ReconcileOnceOptions} from '../cli/reconcile-once.js'

export default class ReconcileOnce extends BaseCommand {
  static override summary = 'Run one Deployment controller pass on files and print the world after it'

  static override description =
    `Runs the same pass as "dry-run sync" and prints every input object as a kind: List, with the \
objects the pass wrote updated, the ReplicaSets it created added (after their Deployment's last ReplicaSet) and the ones \
it deleted removed. Feed the output back with -f - to run the next pass. Pods are not changed: the ReplicaSet controller, \
the scheduler and the kubelet are not simulated.`

  static override usage = [
    'reconcile-once [NAME | deployment/NAME ...] -f FILE... [-n NS | -A] [-l SELECTOR] [--now T] [--feature-gates ...] [-o yaml|json]',
  ]

  static override examples = [
    {
      description: 'The world after one pass of a new Deployment:',
      command:
        '<%= config.bin %> <%= command.id %> -f examples/new-deployment.yaml -n demo --now 2026-11-29T10:00:01Z',
    },
    {
      description: 'Two passes in a row:',
      command:
        '<%= config.bin %> <%= command.id %> -f examples/rolling-update.yaml -n demo | <%= config.bin %> <%= command.id %> -f - -n demo',
    },
  ]

  static override strict = false

  static override args = {
    name: Args.string({
      description: 'Deployments to sync: NAME, deployment/NAME, or deployment NAME...',
      // oclif would otherwise take piped stdin as a NAME; stdin belongs to -f -.
      ignoreStdin: true,
    }),
  }

  static override flags = {
    ...passFlags,
    output: outputFlag(RECONCILE_OUTPUT_FORMATS, 'yaml'),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(ReconcileOnce)
    const options = new ReconcileOnceOptions(processIO)
    await options.complete(flags, argv as string[])
    await options.validateOptions()
    process.exitCode = await options.run()
  }
}
