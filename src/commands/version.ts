import * as Flags from '@oclif/core/flags'
import {BaseCommand, processIO} from '../cli/base-command.js'
import {connectionFlags, globalFlags} from '../cli/flags.js'
import {VersionOptions} from '../cli/version.js'

export default class Version extends BaseCommand {
  static override summary = 'Print the client and server version information'

  static override description =
    `As kubectl version: this program's version (clientVersion: its version, platform, the \
Kubernetes line whose Deployment controller it ports, and the Node.js that runs it) and, when a kubeconfig names a \
cluster, the API server's (serverVersion, its GET /version). A cluster that does not answer is an error after the \
client's version; --client asks none.`

  static override examples = [
    {description: 'Both versions, as JSON:', command: '<%= config.bin %> <%= command.id %> -o json'},
    {description: 'Only this program:', command: '<%= config.bin %> <%= command.id %> --client'},
  ]

  static override flags = {
    client: Flags.boolean({default: false, description: 'Only the client version; no server is asked.'}),
    output: Flags.string({
      char: 'o',
      helpValue: 'json|yaml',
      description: "One of 'yaml' or 'json'.",
    }),
    ...connectionFlags,
    ...globalFlags,
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(Version)
    await this.runOptions(new VersionOptions(processIO, this.config.version), flags, argv)
  }
}
