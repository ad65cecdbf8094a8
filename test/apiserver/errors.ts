// metav1.Status errors with the messages, reasons and details the real API server produces.

import * as field from '../../src/cluster/validation/field.js'
import {
  type ErrorType,
  formatPath,
  type FieldError as SharedFieldError,
} from '../../src/cluster/validation/index.js'
import type {Obj} from './util.js'

export interface StatusCause {
  reason: string
  message: string
  field?: string
}

export interface GroupResource {
  group: string
  resource: string
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Obj,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  status(): Obj {
    const s: Obj = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
    }
    if (this.details) s.details = this.details
    s.code = this.code
    return s
  }
}

export function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource
}

function details(gr: GroupResource, name: string | undefined): Obj {
  const d: Obj = {}
  if (name) d.name = name
  if (gr.group) d.group = gr.group
  d.kind = gr.resource
  return d
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, details(gr, name))
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, details(gr, name))
}

export const OBJECT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again'

export function conflict(gr: GroupResource, name: string, why: string = OBJECT_MODIFIED): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
    details(gr, name),
  )
}

export interface FieldError {
  /** field.ErrorType, a Status cause's reason. */
  type: ErrorType
  field: string
  /** The part after the field path, e.g. `Invalid value: -1: must be greater than or equal to 0`. */
  body: string
}

/** A field error of the shared validation module (src/cluster/validation) as a Status cause. */
export function asCause(e: SharedFieldError): FieldError {
  return {type: e.type ?? 'FieldValueInvalid', field: formatPath(e.path), body: e.detail}
}

/**
 * The server's own field errors (kinds the file loader does not read) are built by the shared
 * module's constructors too, so every cause is worded by one formatter.
 */
export const fieldErr = {
  required: (path: string, detail = ''): FieldError => asCause(field.required([path], detail)),
  invalid: (path: string, value: unknown, detail: string): FieldError =>
    asCause(field.invalid([path], value, detail)),
  forbidden: (path: string, detail: string): FieldError => asCause(field.forbidden([path], detail)),
  notSupported: (path: string, value: unknown, supported: string[]): FieldError =>
    asCause(field.notSupported([path], value, supported)),
}

/** errors.NewInvalid: 422 with `Kind.group "name" is invalid: <aggregate>` and one cause per error. */
export function invalid(kind: string, group: string, name: string, errs: FieldError[]): ApiError {
  const qualifiedKind = group ? `${kind}.${group}` : kind
  const texts = errs.map((e) => `${e.field}: ${e.body}`)
  const agg = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`
  const d: Obj = {}
  if (name) d.name = name
  if (group) d.group = group
  d.kind = kind
  d.causes = errs.map((e) => ({reason: e.type, message: e.body, field: e.field}))
  return new ApiError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${agg}`, d)
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message)
}

export function methodNotAllowed(): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
  )
}

export function unsupportedMediaType(): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
  )
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{message}],
  })
}

export function serviceUnavailable(
  message = 'the server is currently unable to handle the request',
): ApiError {
  return new ApiError(503, 'ServiceUnavailable', message)
}

export function tooManyRequests(retryAfterSeconds: number): ApiError {
  return new ApiError(
    429,
    'TooManyRequests',
    'Too many requests, please try again later.',
    {retryAfterSeconds},
    {'Retry-After': String(retryAfterSeconds)},
  )
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized')
}

/** The RBAC authorizer's denial, e.g. `deployments.apps "web" is forbidden: User "x" cannot update …`. */
export function forbidden(opts: {
  user: string
  verb: string
  group: string
  resource: string
  subresource?: string
  name?: string
  namespace?: string
}): ApiError {
  const gr = {group: opts.group, resource: opts.resource}
  const subject = opts.name ? `${qualified(gr)} "${opts.name}"` : qualified(gr)
  const res = opts.subresource ? `${opts.resource}/${opts.subresource}` : opts.resource
  const scope = opts.namespace ? `in the namespace "${opts.namespace}"` : 'at the cluster scope'
  const reason = `User "${opts.user}" cannot ${opts.verb} resource "${res}" in API group "${opts.group}" ${scope}`
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${reason}`, details(gr, opts.name))
}

export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message)
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Gone', message)
}

/** An admission plugin's refusal (upstream admission.NewForbidden): `pods "web-x" is forbidden: <why>`. */
export function admissionForbidden(gr: GroupResource, name: string, why: string): ApiError {
  return new ApiError(403, 'Forbidden', `${qualified(gr)} "${name}" is forbidden: ${why}`, details(gr, name))
}
