// The interactive `rollout watch`: subscribes to a FrameSource (a replayed simulation now, a live
// watch later) and redraws the view; q or Ctrl-C quits and leaves the terminal clean.

import {render, renderToString, useApp, useInput, useStdin, useStdout} from 'ink'
import {useEffect, useState} from 'react'
import type {WatchFrame} from './frame.js'
import type {FrameSource} from './replay.js'
import {WatchView} from './view.js'

export interface WatchAppProps {
  source: FrameSource
  /** Fixed sizes (tests); by default the terminal's, read at every render so a resize reflows. */
  columns?: number
  rows?: number
  footer?: string
  /** Called when the user asks to stop (q or Ctrl-C) before the source ended. */
  onInterrupt?: () => void
}

export function WatchApp({source, columns, rows, footer, onInterrupt}: WatchAppProps) {
  const {exit} = useApp()
  // ink types its stream as any writable; a terminal's (or a test's) may carry its size.
  const stdout = useStdout().stdout as NodeJS.WritableStream & {columns?: number; rows?: number}
  const {isRawModeSupported} = useStdin()
  const [frame, setFrame] = useState<WatchFrame | undefined>()
  const [ended, setEnded] = useState(false)

  useInput(
    (input, key) => {
      if (input === 'q' || (key.ctrl && input === 'c')) {
        onInterrupt?.()
        exit()
      }
    },
    {isActive: isRawModeSupported === true},
  )
  useEffect(
    () =>
      source.subscribe(
        (f) => setFrame(f),
        () => setEnded(true),
      ),
    [source],
  )
  // Exit after the render that shows the last frame, so that it stays on the screen.
  useEffect(() => {
    if (ended) exit()
  }, [ended, exit])

  if (!frame) return null
  return (
    <WatchView
      frame={frame}
      columns={columns ?? (stdout.columns || 100)}
      rows={rows ?? (stdout.rows || 40)}
      footer={ended ? undefined : footer}
    />
  )
}

export interface InteractiveOptions {
  stdout: NodeJS.WriteStream
  stdin: NodeJS.ReadStream
  footer?: string
}

/** Renders the app on a terminal until the source ends or the user quits; 'interrupted' when they quit. */
export async function runInteractive(
  source: FrameSource,
  options: InteractiveOptions,
): Promise<'ended' | 'interrupted'> {
  let interrupted = false
  const instance = render(
    <WatchApp
      source={source}
      footer={options.footer}
      onInterrupt={() => {
        interrupted = true
      }}
    />,
    {stdout: options.stdout, stdin: options.stdin, exitOnCtrlC: false, patchConsole: false},
  )
  // Without raw mode (stdin not a terminal) Ctrl-C is a signal: unmount so ink restores the cursor.
  const onSignal = () => {
    interrupted = true
    instance.unmount()
  }
  process.once('SIGINT', onSignal)
  try {
    await instance.waitUntilExit()
  } finally {
    process.removeListener('SIGINT', onSignal)
  }
  return interrupted ? 'interrupted' : 'ended'
}

/** One frame as text, touching no terminal (non-TTY output and tests). */
export function frameToString(frame: WatchFrame, columns = 100, rows = 60): string {
  return renderToString(<WatchView frame={frame} columns={columns} rows={rows} />, {columns})
}
