#!/usr/bin/env node
// Build step after `oclif manifest`: its commands in the order of their ids. oclif writes them in
// the order their files finished loading, which differs from build to build, and the manifest goes
// into the npm package and, bundled, into each executable: two builds of one commit would differ.
// oclif and the completion sort commands themselves, so nothing reads this order.
import {readFileSync, writeFileSync} from 'node:fs'

const file = 'oclif.manifest.json'
const manifest = JSON.parse(readFileSync(file, 'utf8'))
const ids = Object.keys(manifest.commands ?? {}).sort()
if (ids.length === 0) throw new Error(`${file} has no commands`)
manifest.commands = Object.fromEntries(ids.map((id) => [id, manifest.commands[id]]))
writeFileSync(file, JSON.stringify(manifest, null, 2))
