// Loading a text given as a string, synchronously (tests). It brings the exact YAML reader in
// statically, which the CLI's path through ./index.ts loads only when a text needs it.

import type {World} from '../world.js'
import {type LoadOptions, loadWorldFromLoadedText} from './index.js'
import * as exactReader from './yaml.js'
import {provideExactReader} from './yaml-fast.js'

provideExactReader(exactReader)

/** Loads one text as if it were the file `fileName`. */
export function loadWorldFromText(text: string, fileName: string, opts: LoadOptions = {}): World {
  return loadWorldFromLoadedText(text, fileName, opts)
}
