import * as Args from '@oclif/core/args'
import {Command} from '@oclif/core/command'
import {completionScript, SHELLS, type Shell} from '../completion/scripts.js'

export default class Completion extends Command {
  static override summary =
    'Print a shell completion script for kubectl deployctl (bash, zsh, fish or powershell)'

  static override description =
    `The script completes commands, flags, -o values, files for -f, and namespaces and \
Deployment names from the cluster (honouring --kubeconfig, --context and -n typed so far) by asking \
\`kubectl-deployctl __complete\`, in the completion protocol of kubectl and other cobra programs.

Through kubectl (\`kubectl deployctl <TAB>\`, kubectl 1.26 or newer), completion needs no script: kubectl runs \
kubectl_complete-deployctl from the PATH, which comes with the release archives (krew cannot link it: see docs/install.md in the project).`

  // With a description each, so that oclif wraps a long command line with a shell line continuation.
  static override examples = [
    {description: 'bash, in ~/.bashrc:', command: 'source <(kubectl-deployctl completion bash)'},
    {
      description: 'zsh, once:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's ${fpath[1]}, not a template
      command: 'kubectl-deployctl completion zsh > "${fpath[1]}/_kubectl-deployctl"',
    },
    {
      description: 'fish, once:',
      command: 'kubectl-deployctl completion fish > ~/.config/fish/completions/kubectl-deployctl.fish',
    },
    {
      description: 'PowerShell, in $PROFILE:',
      command: 'kubectl-deployctl completion powershell | Out-String | Invoke-Expression',
    },
  ]

  // Not strict, and the shell not required of oclif: the errors are kubectl's own (below).
  static override strict = false

  static override args = {
    shell: Args.string({description: 'The shell: bash, zsh, fish or powershell.'}),
  }

  async run(): Promise<void> {
    const {argv} = await this.parse(Completion)
    const usage = (message: string) => {
      process.stderr.write(`error: ${message}\nSee 'kubectl deployctl completion -h' for help and examples\n`)
      process.exitCode = 1
    }
    // upstream: kubectl completion's RunCompletion (its messages and exit code 1).
    if (argv.length === 0) return usage('Shell not specified.')
    if (argv.length > 1) return usage('Too many arguments. Expected only the shell type.')
    const shell = String(argv[0])
    if (!(SHELLS as readonly string[]).includes(shell)) return usage(`Unsupported shell type "${shell}".`)
    process.stdout.write(completionScript(shell as Shell))
  }
}
