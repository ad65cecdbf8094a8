import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../../cli/base-command.js'
import {connectionFlags, deploymentArgs, globalFlags, selectionFlags} from '../../cli/flags.js'
import {DEFAULT_MAX_SIZE, RolloutRecordOptions} from '../../cli/rollout-record.js'

export default class RolloutRecord extends BaseCommand {
  static override summary =
    'Record Deployments, their ReplicaSets, pods, Events and autoscalers as they change, for a post-mortem'

  static override description =
    `Watches the selected Deployments (NAME..., -l SELECTOR or -A) and what concerns them: their ReplicaSets, their pods, \
the Events about any of those and the HorizontalPodAutoscalers that target them, one informer per kind, and appends \
every change with the time it was received to FILE (-O): NDJSON, a Timeline header (cluster, context, server \
version, selection, start), then one {"time", "type", "object"} line per change, as kubectl get -w \
--output-watch-events -o json prints them plus the time. A change of an object already in the file is written as a \
delta line, {"time", "type", "kind", "uid", "patch"}: a JSON merge patch against that object's previous line, when \
it gives back exactly the same object (--no-delta: every line whole).

The recording starts with a full list, so it is complete from its first line; a watch that expires (410 Gone) lists \
again and the recording marks where. Objects are written trimmed as the informer caches hold them; env values whose \
name looks like a secret (PASSWORD, TOKEN, API_KEY...) and everything under data are replaced by REDACTED unless \
--no-redact. The file stays under --max-size: past it, the oldest pod updates, then Event updates, are dropped (an \
object's creation, deletion and latest state always stay).

A recording is an input like a snapshot: explain, dry-run sync, plan and rollout watch read it with -f, at --at \
(default its end); rollout watch -f FILE --replay plays it and runs the controller at every change.

It ends with --until-done once every rollout it saw start is done (with NAMEs: one of each), after --duration, or on \
Ctrl-C; then it prints a summary of each rollout. Exit status: 0, or 1 when --until-done ended on a rollout past its \
progress deadline.`

  static override usage = [
    'rollout record NAME... [-n NS] -O FILE [--until-done | --duration D] [--max-size 256Mi] [--no-redact] [--no-delta]',
    'rollout record (-l SELECTOR [-n NS] | -A) -O FILE [--until-done | --duration D]',
  ]

  static override examples = [
    {
      description: 'Record the rollout of web until it is done, then explain the moment two seconds in:',
      command:
        '<%= config.bin %> <%= command.id %> web -O web.ndjson --until-done &\nkubectl set image deploy/web app=nginx:1.28\nwait\n<%= config.bin %> explain web -f web.ndjson --at +2s',
    },
    {
      description: 'Everything in namespace shop for an hour:',
      command: '<%= config.bin %> <%= command.id %> -l app -n shop -O shop.ndjson --duration 1h',
    },
  ]

  static override strict = false

  static override args = deploymentArgs('Deployments to record: NAME, deployment/NAME, or deployment NAME...')

  static override flags = {
    ...selectionFlags,
    ...connectionFlags,
    ...globalFlags,
    'output-file': Flags.string({
      char: 'O',
      helpValue: 'FILE',
      description: 'The file the recording is written to (created, or truncated).',
    }),
    'until-done': Flags.boolean({
      default: false,
      description:
        'Stop once every rollout the recording saw start is done (complete, or past its progress deadline); with NAMEs, one rollout of each.',
    }),
    duration: Flags.string({
      helpValue: 'DURATION',
      description: 'Stop after this long, e.g. 10m.',
    }),
    'max-size': Flags.string({
      helpValue: 'SIZE',
      default: DEFAULT_MAX_SIZE,
      description:
        'The most the file may hold, e.g. 256Mi, 50MB, 1Gi; past it the oldest pod updates are dropped first.',
    }),
    delta: Flags.boolean({
      default: true,
      allowNo: true,
      description:
        'Write a change of an object already in the file as a JSON merge patch against its previous line (--no-delta writes every object whole, as kubectl get -w prints it).',
    }),
    redact: Flags.boolean({
      default: true,
      allowNo: true,
      description:
        'Replace secret-like env values and everything under data by REDACTED (--no-redact keeps them).',
    }),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(RolloutRecord)
    await this.runOptions(new RolloutRecordOptions(processIO), flags, argv)
  }
}
