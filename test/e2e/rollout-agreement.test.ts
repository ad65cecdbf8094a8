// The readers behind DeploymentTester.agree(): each tells done, waiting and a passed deadline apart
// in its command's own words, and refuses output it does not understand rather than guessing.

import {describe, expect, it} from 'vitest'
import {readExplain, readKubectlRolloutStatus, readWatch} from './rollout-agreement.js'

const ok = (stdout: string) => ({code: 0, stdout, stderr: ''})
const WAITING = 'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...'
const DONE = 'deployment "web" successfully rolled out'
const DEADLINE = 'deployment "web" exceeded its progress deadline'

describe('kubectl rollout status --watch=false', () => {
  it('reads done, waiting and a passed deadline; anything else is an error', () => {
    expect(readKubectlRolloutStatus(ok(`${DONE}\n`))).toEqual({state: 'done', message: DONE})
    expect(readKubectlRolloutStatus(ok(`${WAITING}\n`))).toEqual({state: 'waiting', message: WAITING})
    expect(readKubectlRolloutStatus({code: 1, stdout: '', stderr: `error: ${DEADLINE}\n`})).toEqual({
      state: 'deadlineExceeded',
      message: DEADLINE,
    })
    expect(() =>
      readKubectlRolloutStatus({code: 1, stdout: '', stderr: 'error: deployments.apps "web" not found\n'}),
    ).toThrow(/exit 1/)
  })
})

describe('explain -o json', () => {
  const explanation = (message: string, done: boolean, error: boolean) => ({
    deployment: {namespace: 'demo', name: 'web'},
    rolloutStatus: {message, done, error},
  })

  it('reads the rolloutStatus of the named Deployment, under either envelope', () => {
    const v1 = {
      apiVersion: 'deployctl.kubectl.io/v1alpha1',
      explanations: [explanation(WAITING, false, false)],
    }
    expect(readExplain(JSON.stringify(v1), 'demo', 'web')).toEqual({state: 'waiting', message: WAITING})
    const v2 = {
      apiVersion: 'deployctl.kubectl.io/v1alpha3',
      items: [explanation(`error: ${DEADLINE}`, false, true)],
    }
    expect(readExplain(JSON.stringify(v2), 'demo', 'web')).toEqual({
      state: 'deadlineExceeded',
      message: DEADLINE,
    })
    expect(() => readExplain(JSON.stringify(v2), 'demo', 'api')).toThrow(/no explanation of demo\/api/)
  })
})

describe('rollout watch -o json', () => {
  const step = (status: string) => JSON.stringify({kind: 'Step', step: 0, status})
  const end = (outcome: string, message: string) => JSON.stringify({kind: 'End', outcome, message})

  it('reads the last step and how the watch ended', () => {
    expect(readWatch(ok(`${step(WAITING)}\n${step(DONE)}\n${end('complete', DONE)}\n`))).toEqual({
      state: 'done',
      message: DONE,
    })
    expect(
      readWatch({code: 1, stdout: `${step(WAITING)}\n${end('timeout', 'error: timed out')}\n`, stderr: ''}),
    ).toEqual({state: 'waiting', message: WAITING})
    expect(
      readWatch({
        code: 1,
        stdout: `${step(WAITING)}\n${end('deadlineExceeded', `error: ${DEADLINE}`)}\n`,
        stderr: '',
      }),
    ).toEqual({state: 'deadlineExceeded', message: DEADLINE})
  })

  it('refuses a watch that ended otherwise or printed no step', () => {
    expect(() => readWatch(ok(`${step(WAITING)}\n${end('deleted', 'error: gone')}\n`))).toThrow(
      /ended with deleted/,
    )
    expect(() => readWatch({code: 2, stdout: '', stderr: 'error: a Deployment NAME is required\n'})).toThrow(
      /exit 2.*\n.*NAME is required/,
    )
  })
})
