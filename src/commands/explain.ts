import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../cli/base-command.js'
import {ExplainOptions} from '../cli/explain.js'
import {deploymentArgs, multiContextFlags, outputFlags, passFlags} from '../cli/flags.js'
import {timelineFlags} from '../cli/timeline-flags.js'

export default class Explain extends BaseCommand {
  static override summary = 'Explain why a Deployment is where it is, what blocks it and what happens next'

  static override description =
    `Runs one pass of the Kubernetes Deployment controller (the v1.36 line) on the selected Deployments, \
changing nothing, and explains each:

  - a verdict (Complete, Progressing, Stalled, DeadlineExceeded, Paused, Deleting or Invalid) with a stable reason \
code, next to what "kubectl rollout status" would print;
  - its ReplicaSets (revision, sizes, age, role, images, revision history);
  - the pass check by check, with the numbers behind each decision: maxSurge and maxUnavailable as written and \
resolved, max total pods, minAvailable, the scale-up and scale-down budgets, proportional shares, cleanup;
  - the progress deadline: when it runs out, or why it cannot;
  - what blocks the new pods (image pulls, crashes, scheduling, readiness, minReadySeconds, quota) and known dead ends;
  - the writes of the next pass (as "dry-run sync" prints them) and when the controller looks again.

Without -f it reads the cluster of the current kubeconfig context (nothing is written) and also shows the recent \
Warning events of the Deployment, its ReplicaSets and their pods; with -f, the Events the files hold (kubectl get \
events -o yaml, core/v1 or events.k8s.io/v1) are read the same way.

Start from a pod or ReplicaSet (pod/NAME, po/NAME, rs/NAME, replicaset/NAME): explain finds the Deployment that \
controls it and the report starts from that object. When -f input lacks the ReplicaSets or pods a Deployment's \
status refers to, the verdict is IncompleteInput, with the command that gets a complete snapshot (docs/inputs.md).

-o json and -o yaml print the same facts as an ExplainResult document (-o name and -o jsonpath read it too); the reason codes are listed in \
docs/explain-reasons.md. Text wraps to the terminal (or $COLUMNS, else 100 columns); colour only on a terminal \
without NO_COLOR.`

  static override usage = [
    'explain [NAME | deployment/NAME | pod/NAME | rs/NAME ...] [-f FILE...] [--summary] [--fail-on STATES] [-n NS | -A] [-l SELECTOR] [--now T] [--kube-version 1.NN] [--feature-gates ...] [-o FORMAT] [--no-headers]',
  ]

  static override examples = [
    {
      description: 'Why a rollout is stuck:',
      command:
        '<%= config.bin %> <%= command.id %> deployment/api -f examples/stuck-image-pull.yaml -n demo --now 2026-11-29T10:00:00Z',
    },
    {
      description: 'A Deployment of the current cluster, with its recent Warning events:',
      command: '<%= config.bin %> <%= command.id %> deployment/api -n demo',
    },
    {
      description: 'Start from a failing pod: the report starts from it, then its Deployment:',
      command: '<%= config.bin %> <%= command.id %> pod/api-6f64564f4d-blwqh -n demo',
    },
    {
      description: 'A fleet gate: one line per Deployment, exit 1 when any is stuck or past its deadline:',
      command: '<%= config.bin %> <%= command.id %> -A --summary --fail-on stuck,deadline',
    },
    {
      description: 'The same gate over two clusters, a CONTEXT column first:',
      command:
        '<%= config.bin %> <%= command.id %> -A --summary --context prod-eu --context prod-us --fail-on stuck',
    },
    {
      description: 'Every Deployment of a snapshot, as JSON for a script:',
      command: 'kubectl get deploy,rs,pods -A -o yaml | <%= config.bin %> <%= command.id %> -f - -A -o json',
    },
  ]

  static override strict = false

  static override args = deploymentArgs(
    'Deployments to explain: NAME, deployment/NAME, or deployment NAME...; or a pod or ReplicaSet to start from: pod/NAME, rs/NAME',
  )

  static override flags = {
    ...passFlags,
    ...multiContextFlags,
    ...timelineFlags,
    summary: Flags.boolean({
      default: false,
      description:
        'One line per Deployment: namespace/name, verdict, ready/desired, updated, available and the deadline clock (-o json: the same rows).',
    }),
    'timeline-summary': Flags.boolean({
      default: false,
      description:
        'With -f TIMELINE (rollout record): each rollout of the selected Deployments in the recording: start, end, outcome, time to the first new pod ready, the longest stall and its blocker, the peak pods, when the progress deadline fired or would have, and the pods that blocked longest (-o json: a TimelineSummary).',
    }),
    'fail-on': Flags.string({
      helpValue: 'stuck,deadline,incomplete,invalid',
      description:
        'Exit 1 when any Deployment is stuck (Stalled or DeadlineExceeded), past its progress deadline, explained from incomplete input, or invalid; a comma-separated list.',
    }),
    ...outputFlags(['table', 'wide', 'json', 'yaml', 'name', 'jsonpath'], {
      default: 'table',
      description:
        'Output format: table (the report; `text` is the same, its former name), wide (the report, its ReplicaSets with CONTAINERS and SELECTOR as kubectl get rs -o wide), json, yaml, name or jsonpath=TEMPLATE.',
    }),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Explain)
    const options = new ExplainOptions(processIO)
    options.columns = process.stdout.columns
    await this.runOptions(options, flags, argv)
  }
}
