// The one error printer (src/errors.ts errorText), in kubectl's words: upstream kubectl cmdutil
// StandardErrorMessage and checkErr.

import {describe, expect, it} from 'vitest'
import {StatusError} from '../../src/controller/api/errors.js'
import {errorText, InputError, NotFoundError} from '../../src/errors.js'

class ConnectionError extends Error {
  override name = 'ConnectionError'
}

describe('errorText', () => {
  it("prints the server's answers as Error from server (Reason), a 401 as kubectl's error line", () => {
    expect(errorText(new StatusError('NotFound', 404, 'deployments.apps "nope" not found'))).toBe(
      'Error from server (NotFound): deployments.apps "nope" not found\n',
    )
    expect(errorText(new StatusError('Forbidden', 403, 'replicasets.apps is forbidden: no'))).toBe(
      'Error from server (Forbidden): replicasets.apps is forbidden: no\n',
    )
    expect(errorText(new StatusError('Unknown', 418, 'teapot'))).toBe('Error from server: teapot\n')
    expect(
      errorText(new StatusError('Unauthorized', 401, 'You must be logged in to the server (Unauthorized)')),
    ).toBe('error: You must be logged in to the server (Unauthorized)\n')
  })

  it("a NotFound read from a cluster is the server's; from files it is an error line; a hint follows", () => {
    expect(errorText(new NotFoundError('deployments.apps "x" not found', true, 'Use -n demo.'))).toBe(
      'Error from server (NotFound): deployments.apps "x" not found\nUse -n demo.\n',
    )
    expect(errorText(new NotFoundError('deployments.apps "x" not found', false))).toBe(
      'error: deployments.apps "x" not found\n',
    )
  })

  it('an unreachable server as kubectl says it; anything else error:, escaped by the caller', () => {
    expect(errorText(new ConnectionError('Unable to connect to the server: tls: bad'))).toBe(
      'Unable to connect to the server: tls: bad\n',
    )
    expect(errorText(new ConnectionError('getting credentials for user "u": boom'))).toBe(
      'error: getting credentials for user "u": boom\n',
    )
    expect(errorText(new InputError('bad\ninput'), (t) => t.replaceAll('\n', '\\n'))).toBe(
      'error: bad\\ninput\n',
    )
  })
})
