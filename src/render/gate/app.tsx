// The interactive gate: the live view redrawn at each update of the gate, q or Ctrl-C to stop; the
// last frame stays on the screen, and the summary follows it as plain text.

import {render, renderToString, useApp, useInput, useStdin, useStdout} from 'ink'
import {useEffect, useState} from 'react'
import type {GateRow} from '../../status/gate.js'
import type {GateEnd} from '../../watch/gate.js'
import type {GateRunner} from '../../watch/multi-gate.js'
import {GateView} from './view.js'

interface AppProps {
  gate: GateRunner
  onEnd: (end: GateEnd) => void
  onError: (err: unknown) => void
}

function GateApp({gate, onEnd, onError}: AppProps) {
  const {exit} = useApp()
  const stdout = useStdout().stdout as NodeJS.WritableStream & {columns?: number}
  const {isRawModeSupported} = useStdin()
  const [state, setState] = useState<{rows: GateRow[]; elapsed: number; ended: boolean}>({
    rows: [],
    elapsed: 0,
    ended: false,
  })
  useInput(
    (input, key) => {
      if (input === 'q' || (key.ctrl && input === 'c')) void gate.stop()
    },
    {isActive: isRawModeSupported === true},
  )
  useEffect(() => {
    gate
      .run((u) => setState({rows: u.rows, elapsed: u.elapsed, ended: false}))
      .then((end) => {
        onEnd(end)
        setState({rows: end.rows, elapsed: end.elapsed, ended: true})
      })
      .catch((err: unknown) => {
        onError(err)
        setState((s) => ({...s, ended: true}))
      })
  }, [gate, onEnd, onError])
  useEffect(() => {
    if (state.ended) exit()
  }, [state.ended, exit])
  if (state.rows.length === 0) return null
  return (
    <GateView
      rows={state.rows}
      elapsed={state.elapsed}
      columns={stdout.columns || 100}
      footer={state.ended ? undefined : 'q or Ctrl-C to stop'}
    />
  )
}

/** Runs the gate under the live view until it ends (or the user stops it). */
export async function runGateView(
  gate: GateRunner,
  io: {stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream},
): Promise<GateEnd> {
  let end: GateEnd | undefined
  let failure: unknown
  const instance = render(
    <GateApp
      gate={gate}
      onEnd={(e) => {
        end = e
      }}
      onError={(err) => {
        failure = err
      }}
    />,
    {stdout: io.stdout, stdin: io.stdin, exitOnCtrlC: false, patchConsole: false},
  )
  const onSignal = () => {
    void gate.stop()
  }
  process.once('SIGINT', onSignal)
  try {
    await instance.waitUntilExit()
  } finally {
    process.removeListener('SIGINT', onSignal)
  }
  if (failure !== undefined) throw failure
  if (!end) throw new Error('the gate ended without a result')
  return end
}

/** The view of `rows` as text, touching no terminal (tests). */
export function gateViewToString(rows: readonly GateRow[], elapsed: number, columns: number): string {
  return renderToString(<GateView rows={rows} elapsed={elapsed} columns={columns} />, {columns})
}
