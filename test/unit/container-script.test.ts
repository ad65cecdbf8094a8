// What the simulated kubelet reads from a container's command (src/sim/container-script.ts).

import {describe, expect, it} from 'vitest'
import {containerRun, crashingContainer} from '../../src/sim/container-script.js'

const sh = (script: string) => ({name: 'app', command: ['sh', '-c', script]})

describe('containerRun', () => {
  it('reads the lines a script echoes and the code it exits with', () => {
    expect(containerRun(sh(`echo starting; echo "config 'x' missing" && exit 3`))).toEqual({
      lines: ['starting', "config 'x' missing"],
      exitCode: 3,
    })
    expect(containerRun({name: 'a', command: ['/bin/sh'], args: ['-c', 'echo hi\nfalse']})).toEqual({
      lines: ['hi'],
      exitCode: 1,
    })
    expect(containerRun({name: 'a', command: ['false']})).toEqual({lines: [], exitCode: 1})
  })

  it('takes a script that runs out of statements as exiting 0, a long sleep as still running', () => {
    expect(containerRun(sh('echo done'))).toEqual({lines: ['done'], exitCode: 0})
    expect(containerRun(sh('sleep 1; exit 2'))).toEqual({lines: [], exitCode: 2})
    expect(containerRun(sh('echo ready; sleep 3600'))).toEqual({lines: ['ready']})
    expect(containerRun(sh('echo ready; sleep infinity; exit 1'))).toEqual({lines: ['ready']})
  })

  it('leaves any other command alone: a server that keeps running and prints nothing', () => {
    expect(containerRun({name: 'nginx', image: 'nginx'})).toEqual({lines: []})
    expect(containerRun(sh('for i in 1 2; do echo $i; done; exit 1'))).toEqual({lines: []})
    expect(containerRun({name: 'a', command: ['/bin/sh', '-exc', 'exit 1']})).toEqual({lines: []})
  })

  it('finds the first container that ends by itself', () => {
    expect(crashingContainer([{name: 'web'}, sh('exit 1')])).toBe(1)
    expect(crashingContainer([{name: 'web'}])).toBeUndefined()
  })
})
