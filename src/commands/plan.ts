import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../cli/base-command.js'
import {
  clockFlags,
  connectionFlags,
  deploymentArgs,
  exitCodeFlag,
  globalFlags,
  inputFlags,
  outputFlags,
} from '../cli/flags.js'
import {PlanOptions} from '../cli/plan.js'
import {timelineFlags} from '../cli/timeline-flags.js'

export default class Plan extends BaseCommand {
  static override summary = 'Show what applying a change will do to a rollout, before it is applied'

  static override description =
    `For each Deployment in PROPOSED (-f: what you are about to apply), says whether the change starts a rollout \
(the pod template changes: a new ReplicaSet is created, or an old one is reused), which fields cause it, and \
which fields change without one; then simulates the rollout on the current world with the same simulator as \
"rollout watch -f": the steps, the most pods at once and the extra requests that needs, the fewest available, \
an ETA from how long the current pods took to become ready, and the risks (progress deadline, paused, an \
autoscaler's count reset or amplified by the surge, spec.replicas reset by the merge, an immutable selector, \
quota headroom, a surge the nodes cannot take, no surge and no unavailability, a rollout in progress).

The proposed objects are applied as kubectl would (--apply): client (the default, kubectl apply's three-way \
merge with the last-applied-configuration annotation), server (kubectl apply --server-side) or replace. The \
current world comes from --current files (offline: the merge and the API server's defaults are done here), or \
else from the cluster, read-only, with the proposed objects as a dry run of the apply returns them. Nothing is \
written.

-o wide adds the pods after each step and keeps long values whole. -o json and -o yaml print a PlanResult \
document (docs/plan.md). With --exit-code the exit status says whether \
anything would roll out, as kubectl diff: 0 nothing, 1 something would, 2 or more an error.`

  static override usage = [
    'plan -f PROPOSED... [NAME...] [--current FILE...] [-n NS] [--now T] [-o FORMAT] [--exit-code] [--apply client|server|replace]',
  ]

  static override examples = [
    {
      description: 'A new image for the steady example, planned offline:',
      command:
        '<%= config.bin %> <%= command.id %> -f examples/plan/web-image.yaml --current examples/steady.yaml',
    },
    {
      description: 'What applying a manifest would do on the current cluster, and fail CI if it rolls out:',
      command: '<%= config.bin %> <%= command.id %> -f deploy/web.yaml --exit-code',
    },
  ]

  static override strict = false

  static override args = deploymentArgs(
    'Deployments of PROPOSED to plan (default: all of them): NAME or deployment/NAME.',
  )

  static override flags = {
    ...inputFlags,
    ...timelineFlags,
    filename: Flags.string({
      char: 'f',
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ',',
      helpValue: 'PROPOSED',
      description:
        'The Deployments you are about to apply: files or directories (YAML or JSON; - for stdin).',
    }),
    current: Flags.string({
      multiple: true,
      multipleNonGreedy: true,
      delimiter: ',',
      helpValue: 'FILE',
      description:
        'The current world (Deployments, ReplicaSets, Pods) from files or directories instead of the cluster.',
    }),
    namespace: Flags.string({
      char: 'n',
      helpValue: 'NS',
      description: 'Namespace of proposed objects that name none (default: the context\'s, or "default").',
    }),
    ...clockFlags,
    'pod-ready-after': Flags.string({
      helpValue: 'DURATION',
      description:
        'Time a new pod takes from creation to Ready (default: the median observed on the current pods, else 10s).',
    }),
    apply: Flags.string({
      default: 'client',
      options: ['client', 'server', 'replace'],
      helpValue: 'MODE',
      description:
        'How the change is applied: client (kubectl apply: three-way merge with the last-applied configuration), server (kubectl apply --server-side: field managers), replace (kubectl replace).',
    }),
    'field-manager': Flags.string({
      helpValue: 'NAME',
      description:
        'Field manager of the apply (default: kubectl-client-side-apply, or kubectl with --apply=server).',
    }),
    'force-conflicts': Flags.boolean({
      default: false,
      description:
        'With --apply=server: take fields another manager owns, as kubectl apply --server-side --force-conflicts.',
    }),
    ...exitCodeFlag('Exit 0 when nothing would roll out, 1 when something would, 2 or more on error.'),
    ...connectionFlags,
    ...globalFlags,
    ...outputFlags(['table', 'wide', 'json', 'yaml', 'name', 'jsonpath'], {default: 'table'}),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Plan)
    const options = new PlanOptions(processIO)
    options.columns = process.stdout.columns
    await this.runOptions(options, {...flags, 'all-namespaces': false}, argv)
  }
}
