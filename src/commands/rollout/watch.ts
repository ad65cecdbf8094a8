import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../../cli/base-command.js'
import {
  clockFlags,
  connectionFlags,
  deploymentArgs,
  globalFlags,
  inputFlags,
  multiContextFlags,
  outputFlags,
} from '../../cli/flags.js'
import {RolloutWatchOptions} from '../../cli/rollout-watch.js'
import {timelineFlags} from '../../cli/timeline-flags.js'

const watchPassFlags = {...inputFlags, ...clockFlags, ...connectionFlags, ...globalFlags}

export default class RolloutWatch extends BaseCommand {
  static override summary =
    "Watch a Deployment's rollout move, or wait for several as a CI gate: live on the cluster, or simulated from files"

  static override description =
    `Follows one Deployment's rollout until it completes (as kubectl rollout status judges it), exceeds its \
progress deadline, or --max-time passes.

With -f, a rollout cannot progress in a file, so the cluster around the Deployment controller is simulated on a \
virtual clock: a ReplicaSet controller that creates pods and deletes surplus ones in upstream's order, a scheduler \
and a kubelet that make pods ready after --pod-ready-after (or keep --fail-new-pods of the newest ReplicaSet failing in \
ImagePullBackOff or CrashLoopBackOff), and terminating pods that go after --terminate-after. Each step runs the \
models and one pass of the ported controller. The same input always gives the same timeline. The clock starts at \
--now, by default at the newest timestamp in the files.

On a terminal the rollout is replayed as a live view (ReplicaSets, pods, deadline, ETA, events) at --speed; when \
output is not a terminal, or with --line-mode, CI set or TERM=dumb, one line per change in kubectl's words; with -o \
json, one JSON object per step and a final Summary (NDJSON).

Without -f, the Deployment, its ReplicaSets and their pods are watched on the cluster (list, then watch; a \
dropped stream resumes, 410 Gone lists again) and the view is redrawn at most a few times a second. The watch \
ends as kubectl rollout status does: 0 when complete, 1 when the progress deadline is exceeded or --timeout \
passes; --settled also waits for old pods to finish terminating; a paused Deployment ends it with 0 only with \
--paused-ok.

The flags of the SIMULATION group given with -f ask for a simulation whatever the files hold; --live and \
--simulate force either.

With several NAMEs, -l, -A, or -f files that hold manifests (Deployments without status, as one applies them), \
it is a gate: it waits on the cluster for every one of those Deployments (in the namespaces the files name, the \
context's for those that name none), one informer per kind and namespace. A Deployment is done by kubectl's rule \
(and --settled); it fails as soon as the status model finds a dead end (ErrImagePull, ImagePullBackOff, \
InvalidImageName, CrashLoopBackOff past --max-restarts, CreateContainerConfigError, Unschedulable past \
--unschedulable-grace, FailedCreate from a quota, ProgressDeadlineExceeded, paused without --paused-ok, no \
controller acting), unless --fail-fast=false. A failed Deployment's report gives its verdict and cause, the failing \
pod, its Warning events grouped and the last --log-lines of the failing container's log. Output: a live table on a \
terminal, one line per change otherwise, NDJSON ending with a RolloutGateResult with -o json; --junit FILE; \
::error annotations when GITHUB_ACTIONS=true. Exit status 0 when all are done, 1 when one failed or --timeout passed.

Exit status: 0 when the rollout completes, 1 when the progress deadline is exceeded, --max-time passes or nothing \
more can happen (a paused Deployment), 130 when interrupted.`

  static override usage = [
    'rollout watch NAME [-n NS] [--timeout D] [--settled] [--paused-ok] [--line-mode] [-o FORMAT]',
    'rollout watch NAME -f TIMELINE --replay [--at T] [--speed X] [--line-mode] [-o json]',
    'rollout watch NAME -f FILE... [-n NS] [--now T] [--pod-ready-after 10s] [--fail-new-pods N|P%] [--terminate-after 5s] [--max-time 30m] [--speed X] [--line-mode] [-o FORMAT]',
  ]

  static override examples = [
    {
      description: 'In CI, after kubectl apply -f k8s/: wait for every Deployment the directory defines:',
      command: '<%= config.bin %> <%= command.id %> -f k8s/ --timeout 5m --junit rollout.xml',
    },
    {
      description: 'Watch the rolling update of the example play out:',
      command: '<%= config.bin %> <%= command.id %> web -f examples/rolling-update.yaml -n demo',
    },
    {
      description:
        'One line per change, with one new pod that never starts (ends with the progress deadline):',
      command:
        '<%= config.bin %> <%= command.id %> web -f examples/rolling-update.yaml -n demo --fail-new-pods 1 --line-mode',
    },
    {
      description: 'The timeline as NDJSON, for scripts:',
      command: '<%= config.bin %> <%= command.id %> web -f examples/rolling-update.yaml -n demo -o json',
    },
  ]

  static override strict = false

  static override args = deploymentArgs('The Deployment: NAME or deployment/NAME.')

  static override flags = {
    ...watchPassFlags,
    ...multiContextFlags,
    ...timelineFlags,
    namespace: Flags.string({
      char: 'n',
      helpValue: 'NS',
      description:
        'Namespace of the Deployments (default: the kubeconfig context\'s namespace, else "default"; with -f, the namespace the files hold each in).',
    }),
    'all-namespaces': Flags.boolean({
      char: 'A',
      default: false,
      description: 'Gate: wait for the Deployments of every namespace.',
    }),
    selector: Flags.string({
      char: 'l',
      helpValue: 'SELECTOR',
      description:
        "Gate: wait for the Deployments with these labels (kubectl syntax: 'a=b,c!=d,e in (x,y),!f').",
    }),
    live: Flags.boolean({
      default: false,
      description:
        "With -f: wait for the files' Deployments on the cluster, even if the files hold a snapshot.",
    }),
    simulate: Flags.boolean({
      default: false,
      description: 'With -f: simulate the rollout from the files, even if they hold only manifests.',
    }),
    'require-existing': Flags.boolean({
      default: false,
      description:
        'Gate: a Deployment that does not exist yet fails it (default: waited for, up to --timeout).',
    }),
    'fail-fast': Flags.boolean({
      default: true,
      description:
        'Gate: fail a Deployment as soon as the status model finds a dead end (image pull errors, crash loops, ...); --fail-fast=false waits for the progress deadline as kubectl does.',
    }),
    'max-restarts': Flags.integer({
      helpValue: 'N',
      default: 2,
      description: 'Gate: a crash-looping container fails its Deployment once it restarted this often.',
    }),
    'unschedulable-grace': Flags.string({
      helpValue: 'DURATION',
      default: '60s',
      description: 'Gate: how long new pods may stay Unschedulable (the cluster autoscaler may add a node).',
    }),
    'log-lines': Flags.integer({
      helpValue: 'N',
      default: 20,
      description:
        "Gate: the last lines of a failing container's log to print (0: none; needs pods/log get).",
    }),
    junit: Flags.string({
      helpValue: 'FILE',
      description: 'Gate: also write JUnit XML to FILE, one testcase per Deployment.',
    }),
    now: Flags.string({
      helpValue: 'RFC3339',
      description:
        'Start of the virtual clock (default: the newest timestamp in the files, or the current time).',
    }),
    'pod-ready-after': Flags.string({
      helpGroup: 'SIMULATION',
      helpValue: 'DURATION',
      description: 'How long a new pod takes from creation to Running and Ready (default 10s).',
    }),
    'fail-new-pods': Flags.string({
      helpGroup: 'SIMULATION',
      helpValue: 'N|P%',
      description:
        'Keep this many pods of the newest ReplicaSet failing (ImagePullBackOff and CrashLoopBackOff in turn); P% of spec.replicas, rounded up.',
    }),
    'terminate-after': Flags.string({
      helpGroup: 'SIMULATION',
      helpValue: 'DURATION',
      description: 'How long a deleted pod stays Terminating (default 5s).',
    }),
    'max-time': Flags.string({
      helpGroup: 'SIMULATION',
      helpValue: 'DURATION',
      description: 'Stop after this much virtual time (exit 1; default 30m).',
    }),
    speed: Flags.string({
      helpValue: 'X',
      default: 'auto',
      description:
        'Replay speed of the view, in virtual seconds per second; auto plays any rollout in a few seconds (at most 20 frames a second).',
    }),
    timeout: Flags.string({
      helpValue: 'DURATION',
      default: '0',
      description: 'Live mode: give up (exit 1) after this long; 0 waits forever.',
    }),
    settled: Flags.boolean({
      default: false,
      description: 'Live mode: after the rollout completes, also wait until no old pod is terminating.',
    }),
    'paused-ok': Flags.boolean({
      default: false,
      description: 'Live mode: a paused Deployment ends the watch with success instead of waiting.',
    }),
    replay: Flags.boolean({
      default: false,
      description:
        "With -f TIMELINE (rollout record): play the recording as the live watch showed it, on the recorded clock, and check every ReplicaSet write it holds against the port's pass on the world just before; each difference is a line with a reason code (docs/replay.md). --at starts the replay there.",
    }),
    'line-mode': Flags.boolean({
      default: false,
      description: 'One plain line per change, even on a terminal.',
    }),
    ...outputFlags(['table', 'json', 'yaml', 'name', 'jsonpath'], {
      default: 'table',
      tables: false,
      description:
        'Output format: table (the view on a terminal, lines otherwise; `text` is the same, its former name), json (one object per step, NDJSON), yaml (one document per step, after ---), name (deployment.apps/NAME at each step, as kubectl get -w -o name) or jsonpath=TEMPLATE (run on each object). It prints no table: no wide, no --no-headers.',
    }),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(RolloutWatch)
    const options = new RolloutWatchOptions(processIO, {stdout: process.stdout, stdin: process.stdin})
    this.options = options
    await this.runOptions(options, flags, argv)
  }

  private options: RolloutWatchOptions | undefined

  /** The gate's errors (input, usage, the cluster unreachable) exit 2: 1 says a Deployment failed. */
  protected override async catch(err: Error): Promise<void> {
    if (this.options?.gate) this.errorExitFloor = 2
    return super.catch(err)
  }
}
