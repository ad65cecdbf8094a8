// What a simulated container does when it runs, read from its command: the simulated kubelet
// cannot run images, but a container whose command is a small shell script (`sh -c 'echo
// starting; exit 1'`, the usual way to make a crash loop on purpose) says what it prints and how
// it ends. Only scripts made of `echo`, `sleep`, `true`, `false` and `exit` are read; any other
// command is taken as a server that keeps running and prints nothing.

import type {Container} from '../controller/api/types.js'

export interface ContainerRun {
  /** What one run of the container writes to its log. */
  lines: string[]
  /** The exit code when the run ends by itself; undefined when it keeps running. */
  exitCode?: number
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', '/bin/sh', '/bin/bash', '/bin/ash', '/bin/dash'])

/** One run of the container, as far as its command says. */
export function containerRun(c: Container): ContainerRun {
  const words = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : [])
  const argv = [...words(c.command), ...words(c.args)]
  if (argv.length === 1 && (argv[0] === 'false' || argv[0] === '/bin/false')) return {lines: [], exitCode: 1}
  if (argv.length !== 3 || !SHELLS.has(argv[0] ?? '') || argv[1] !== '-c') return {lines: []}
  return runScript(argv[2] ?? '')
}

const UNIT_SECONDS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86400}

function runScript(script: string): ContainerRun {
  const lines: string[] = []
  for (const raw of script.split(/;|&&|\n/)) {
    const statement = raw.trim()
    if (statement === '' || statement === 'true') continue
    const sleep = statement.match(/^sleep\s+(infinity|\d+(?:\.\d+)?)([smhd]?)$/)
    // A long sleep is how a script keeps its container up: it is still running when anyone looks.
    if (sleep) {
      if (sleep[1] === 'infinity' || Number(sleep[1]) * (UNIT_SECONDS[sleep[2] || 's'] ?? 1) >= 60)
        return {lines}
      continue
    }
    if (statement === 'false') return {lines, exitCode: 1}
    const exit = statement.match(/^exit(?:\s+(\d{1,3}))?$/)
    if (exit) return {lines, exitCode: Number(exit[1] ?? 0)}
    const echo = statement.match(/^echo(?:\s+(.*))?$/s)
    if (!echo) return {lines: []}
    lines.push(unquote(echo[1] ?? ''))
  }
  // A script that runs out of statements ends with status 0.
  return {lines, exitCode: 0}
}

/** The words of an echo, with the shell's quotes taken off (no expansion: nothing is set here). */
function unquote(words: string): string {
  const out: string[] = []
  for (const m of words.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3] ?? ''))
  }
  return out.join(' ')
}

/** The index of the first container whose run ends by itself (restartPolicy Always makes that a crash loop). */
export function crashingContainer(containers: readonly Container[]): number | undefined {
  const i = containers.findIndex((c) => containerRun(c).exitCode !== undefined)
  return i < 0 ? undefined : i
}
