// `kubectl-deployctl completion bash|zsh|fish|powershell`: shell scripts that ask `kubectl-deployctl
// __complete` for candidates (cobra's protocol, complete.ts) and apply its directive, as the
// scripts of kubectl and other cobra programs do. Written for this program, not cobra's text.

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const
export type Shell = (typeof SHELLS)[number]

const BIN = 'kubectl-deployctl'

const bash = `# bash completion for ${BIN}
# Load it in this shell:     source <(${BIN} completion bash)
# or for every new shell:    ${BIN} completion bash > ~/.local/share/bash-completion/completions/${BIN}
# Directives (cobra's): 1 error, 2 no space, 4 no file completion, 8 file extensions, 16 directories.

__kubectl_deployctl_complete() {
    local cur cword
    local -a words
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref -n =: cur words cword
    else
        # Without bash-completion, put "--flag" "=" "value" back together as one word.
        local i w
        words=()
        for ((i = 0; i < \${#COMP_WORDS[@]}; i++)); do
            w=\${COMP_WORDS[i]}
            if [[ $w == = && \${#words[@]} -gt 0 && \${words[-1]} == -* ]]; then
                words[-1]+="=\${COMP_WORDS[i+1]}"
                ((i <= COMP_CWORD)) && ((COMP_CWORD -= 2))
                ((i++))
            else
                words+=("$w")
            fi
        done
        cword=$COMP_CWORD
        cur=\${words[cword]}
    fi

    local out directive
    out=$("\${words[0]}" __complete "\${words[@]:1:cword-1}" "$cur" 2>/dev/null) || return 0
    directive=\${out##*:}
    out=\${out%:*}
    [[ $directive =~ ^[0-9]+$ ]] || return 0
    ((directive & 1)) && return 0
    ((directive & 2)) && compopt -o nospace 2>/dev/null
    ((directive & 4)) && compopt +o default 2>/dev/null

    local line
    local -a values=()
    while IFS= read -r line; do
        [[ -n $line ]] && values+=("\${line%%$'\\t'*}")
    done <<<"$out"

    if ((directive & 8)); then
        local IFS='|'
        if declare -F _filedir >/dev/null 2>&1; then
            _filedir "@(\${values[*]})"
        else
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return 0
    fi
    if ((directive & 16)); then
        if declare -F _filedir >/dev/null 2>&1; then
            _filedir -d
        else
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        fi
        return 0
    fi

    # bash replaces only the part after "=" or ":" (COMP_WORDBREAKS): drop what precedes it.
    local drop=""
    [[ $cur == *=* ]] && drop=\${cur%%=*}=
    COMPREPLY=()
    local v
    for v in "\${values[@]}"; do
        COMPREPLY+=("\${v#"$drop"}")
    done
    if declare -F __ltrim_colon_completions >/dev/null 2>&1; then
        __ltrim_colon_completions "$cur"
    fi
    return 0
}

complete -o default -F __kubectl_deployctl_complete ${BIN}
`

const zsh = `#compdef ${BIN}
# zsh completion for ${BIN}
# Load it in this shell:     source <(${BIN} completion zsh)
# or for every new shell:    ${BIN} completion zsh > "\${fpath[1]}/_${BIN}"
# Directives (cobra's): 1 error, 2 no space, 4 no file completion, 8 file extensions, 16 directories.

_kubectl_deployctl() {
    local out directive line value
    local -a lines completions values suffix
    out=$("\${words[1]}" __complete "\${(@)words[2,CURRENT-1]}" "\${words[CURRENT]}" 2>/dev/null) || return 1
    lines=("\${(@f)out}")
    directive=\${lines[-1]#:}
    lines=("\${(@)lines[1,-2]}")
    [[ $directive == <-> ]] || return 1
    (( directive & 1 )) && return 1

    for line in "\${lines[@]}"; do
        [[ -z $line ]] && continue
        value=\${line%%$'\\t'*}
        values+=("$value")
        if [[ $line == *$'\\t'* ]]; then
            completions+=("\${value//:/\\\\:}:\${line#*$'\\t'}")
        else
            completions+=("\${value//:/\\\\:}")
        fi
    done

    if (( directive & 8 )); then
        _files -g "*.(\${(j:|:)values})"
        return
    fi
    if (( directive & 16 )); then
        _files -/
        return
    fi
    (( directive & 2 )) && suffix=(-S '')
    if (( \${#completions} > 0 )); then
        _describe -t values 'values' completions "\${suffix[@]}"
    elif (( ! (directive & 4) )); then
        _files
    fi
}

if [[ "\${funcstack[1]}" == _kubectl_deployctl ]]; then
    _kubectl_deployctl "$@"
else
    compdef _kubectl_deployctl ${BIN}
fi
`

const fish = `# fish completion for ${BIN}
# Load it in this shell:     ${BIN} completion fish | source
# or for every new shell:    ${BIN} completion fish > ~/.config/fish/completions/${BIN}.fish
# Directives (cobra's): 1 error, 2 no space, 4 no file completion, 8 file extensions, 16 directories.

function __kubectl_deployctl_complete
    set -l args (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($args[1] __complete $args[2..-1] "$cur" 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    string match -qr '^[0-9]+$' -- $directive; or return
    test (math "bitand($directive, 1)") -ne 0; and return
    if test (math "bitand($directive, 8)") -ne 0
        for ext in $out
            __fish_complete_suffix "$cur" ".$ext"
        end
        return
    end
    if test (math "bitand($directive, 16)") -ne 0
        __fish_complete_directories "$cur"
        return
    end
    if test (count $out) -eq 0; and test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path "$cur"
        return
    end
    printf '%s\\n' $out
end

complete -c ${BIN} -f -a '(__kubectl_deployctl_complete)'
`

const powershell = `# powershell completion for ${BIN}
# Load it in this session:   ${BIN} completion powershell | Out-String | Invoke-Expression
# or for every new session:  add that line to $PROFILE
# Directives (cobra's): 1 error, 2 no space, 4 no file completion, 8 file extensions, 16 directories,
# 32 keep order.

[scriptblock]$__kubectl_deployctlCompleter = {
    param($WordToComplete, $CommandAst, $CursorPosition)

    # The words up to the cursor (the cursor may have moved back).
    $Line = "$($CommandAst.CommandElements)"
    if ($Line.Length -gt $CursorPosition) { $Line = $Line.Substring(0, $CursorPosition) }
    $Program, $Rest = $Line.Split(' ', 2)
    $Words = @()
    if ($Rest) { $Words = @($Rest.Split(' ') | Where-Object { $_ -ne '' }) }
    $Current = ''
    if ($WordToComplete -ne '') {
        $Current = $Words[-1]
        if ($Words.Count -gt 1) { $Words = $Words[0..($Words.Count - 2)] } else { $Words = @() }
    }
    # --flag=value: complete the value, then put the flag back in front of each candidate.
    $Prefix = ''
    if ($Current -like '--*=*') {
        $Flag, $Value = $Current.Split('=', 2)
        $Prefix = "$Flag="
    }

    # The empty word is an argument of its own: before PowerShell 7.3 a native command only gets
    # one written as '""'.
    $Empty = if ($PSVersionTable.PSVersion -lt [version]'7.3.0') { '""' } else { '' }
    $Out = @(& $Program __complete @Words $(if ($Current -eq '') { $Empty } else { $Current }) 2>$null)
    if ($Out.Count -eq 0) { return }
    $Directive = 0
    if ($Out[-1] -match '^:(\\d+)$') { $Directive = [int]$Matches[1] }
    $Out = @($Out | Select-Object -SkipLast 1)
    if ($Directive -band 1) { return }
    # File extensions and directories: PowerShell's own path completion does better.
    if (($Directive -band 8) -or ($Directive -band 16)) { return }

    $Space = if ($Directive -band 2) { '' } else { ' ' }
    $Results = foreach ($Entry in $Out) {
        if ($Entry -eq '') { continue }
        $Name, $Description = $Entry.Split("\`t", 2)
        if (-not $Description) { $Description = $Name }
        $Text = $Name
        if ($Prefix -ne '' -and -not $Name.StartsWith($Prefix)) { $Text = "$Prefix$Name" }
        [System.Management.Automation.CompletionResult]::new(
            ($Text -replace '[\\s#@$;,''{}()"\`|<>&]', '\`$&') + $Space, $Name, 'ParameterValue', $Description)
    }
    if (-not ($Directive -band 32)) { $Results = $Results | Sort-Object -Property ListItemText }
    if (@($Results).Count -eq 0 -and ($Directive -band 4)) {
        # No candidates and no file completion: an empty result keeps PowerShell from offering files.
        ''
        return
    }
    $Results
}

Register-ArgumentCompleter -Native -CommandName '${BIN}', '${BIN}.exe' -ScriptBlock $__kubectl_deployctlCompleter
`

export function completionScript(shell: Shell): string {
  return {bash, zsh, fish, powershell}[shell]
}
