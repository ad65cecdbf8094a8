#!/usr/bin/env node
import {execute} from '../dist/main.js'

await execute({dir: import.meta.url})
