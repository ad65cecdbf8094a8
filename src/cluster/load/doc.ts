// What the JSON and YAML readers hand to the object collector.

import {InputError} from '../../errors.js'
import type {Path} from './problems.js'

/** Deeper documents are refused: no manifest needs them and the walkers below recurse. */
export const MAX_DEPTH = 200

export interface ParsedDoc {
  value: unknown
  /** 1-based line where the value starts. */
  line: number
  /** 0-based index of the document (YAML) or top-level value (JSON stream). */
  index: number
  /**
   * Start lines of the elements of the value's `items` (a List) or of the value itself when it is a
   * top-level array; only trusted when its length matches the array's.
   */
  itemLines?: number[]
  /** YAML only: the line of the deepest node that exists along `path` (for field-level messages). */
  locate?: (path: Path) => number | undefined
}

/** 1-based line and column of a UTF-16 offset; only for error messages, so a plain scan is fine. */
export function lineColAt(text: string, offset: number): {line: number; col: number} {
  let line = 1
  let lineStart = 0
  const end = Math.min(offset, text.length)
  let i = text.indexOf('\n')
  while (i >= 0 && i < end) {
    line++
    lineStart = i + 1
    i = text.indexOf('\n', lineStart)
  }
  return {line, col: end - lineStart + 1}
}

export function syntaxError(file: string, text: string, offset: number, msg: string): InputError {
  const {line, col} = lineColAt(text, offset)
  return new InputError(`${file}:${line}:${col}: ${msg}`)
}

export function tooDeep(file: string, line: number, col: number): InputError {
  return new InputError(`${file}:${line}:${col}: document is nested deeper than ${MAX_DEPTH} levels`)
}
