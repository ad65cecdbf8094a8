// API errors the controller distinguishes, shaped like apimachinery's StatusError so the branches
// that test for NotFound / AlreadyExists / Invalid / Conflict read like upstream's.

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'Forbidden'
  | 'Unauthorized'
  | 'BadRequest'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'TooManyRequests'
  | 'Timeout'
  | 'Unknown'

export interface StatusCause {
  type: string
  message?: string
  field?: string
}

export class StatusError extends Error {
  constructor(
    readonly reason: StatusReason,
    readonly code: number,
    message: string,
    readonly causes: StatusCause[] = [],
  ) {
    super(message)
    this.name = 'StatusError'
  }
}

export const NamespaceTerminatingCause = 'NamespaceTerminating'

export function newNotFound(resource: string, name: string): StatusError {
  return new StatusError('NotFound', 404, `${resource} "${name}" not found`)
}

export function newAlreadyExists(resource: string, name: string): StatusError {
  return new StatusError('AlreadyExists', 409, `${resource} "${name}" already exists`)
}

export function newConflict(resource: string, name: string, detail: string): StatusError {
  return new StatusError('Conflict', 409, `Operation cannot be fulfilled on ${resource} "${name}": ${detail}`)
}

export function reasonOf(err: unknown): StatusReason | undefined {
  return err instanceof StatusError ? err.reason : undefined
}

export const isNotFound = (err: unknown): boolean => reasonOf(err) === 'NotFound'
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists'
export const isInvalid = (err: unknown): boolean => reasonOf(err) === 'Invalid'
export const isConflict = (err: unknown): boolean => reasonOf(err) === 'Conflict'

export function hasStatusCause(err: unknown, type: string): boolean {
  return err instanceof StatusError && err.causes.some((c) => c.type === type)
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
