// apimachinery's pkg/util/validation: the name, label and key formats, with its messages byte for
// byte (RegexError's double space included).

const maxLenError = (n: number): string => `must be no more than ${n} characters`

// upstream: validation.RegexError
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`
  let out = `${msg} (e.g. `
  examples.forEach((e, i) => {
    if (i > 0) out += ' or '
    out += `'${e}', `
  })
  return `${out}regex used for validation is '${fmt}')`
}

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`)
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const LABEL_VALUE_FMT = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`)
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`)
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`)
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
const PERCENT_FMT = '[0-9]+%'
const PERCENT_RE = new RegExp(`^${PERCENT_FMT}$`)
export const PERCENT_MSG = regexError(
  "a valid percent string must be a numeric string followed by an ending '%'",
  PERCENT_FMT,
  '1%',
  '93%',
)

// upstream: validation.IsDNS1123Subdomain
export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = []
  if (v.length > 253) errs.push(maxLenError(253))
  if (!DNS1123_SUBDOMAIN_RE.test(v))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'))
  return errs
}

// upstream: validation.IsDNS1123Label
export function isDNS1123Label(v: string): string[] {
  const errs: string[] = []
  if (v.length > 63) errs.push(maxLenError(63))
  // A valid subdomain that is not a label (the length was checked) has dots.
  if (!DNS1123_LABEL_RE.test(v)) {
    if (DNS1123_SUBDOMAIN_RE.test(v)) errs.push('must not contain dots')
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'))
  }
  return errs
}

// The words IsQualifiedName (content.IsLabelKey from 1.35) starts its message with for a key of
// more than two parts; up to 1.34 they were "a qualified name " (wordedFor rewrites them).
const LABEL_KEY_PREFIX = 'a valid label key '
const LEGACY_LABEL_KEY_PREFIX = 'a qualified name '

/** Errors worded as the API server of `minor` words them (the label-key message, see above). */
export function wordedFor<E extends {detail: string}>(minor: number | undefined, errs: E[]): E[] {
  if (minor === undefined || minor >= 35) return errs
  for (const e of errs) {
    if (e.detail.includes(LABEL_KEY_PREFIX))
      e.detail = e.detail.replace(LABEL_KEY_PREFIX, LEGACY_LABEL_KEY_PREFIX)
  }
  return errs
}

// upstream: validation.IsQualifiedName
export function isQualifiedName(v: string): string[] {
  const errs: string[] = []
  const parts = v.split('/')
  let name: string
  if (parts.length === 1) name = parts[0] ?? ''
  else if (parts.length === 2) {
    const prefix = parts[0] ?? ''
    name = parts[1] ?? ''
    if (prefix.length === 0) errs.push('prefix part must be non-empty')
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`)
  } else {
    return [
      `${LABEL_KEY_PREFIX}${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]
  }
  if (name.length === 0) errs.push('name part must be non-empty')
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`)
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(
      `name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`,
    )
  }
  return errs
}

// upstream: validation.IsValidLabelValue
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = []
  if (v.length > 63) errs.push(maxLenError(63))
  if (!LABEL_VALUE_RE.test(v))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'))
  return errs
}

// upstream: validation.IsValidPercent
export function isValidPercent(v: string): string[] {
  return PERCENT_RE.test(v) ? [] : [PERCENT_MSG]
}

// upstream: validation.InclusiveRangeError
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`
}

// upstream: validation.IsValidPortNum
export function isValidPortNum(port: number): string[] {
  return port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)]
}

const MAX_INT32 = 2147483647

// upstream: validation.IsValidUserID, IsValidGroupID (0 to MaxInt32 in every release 1.33-1.37)
export function isValidUserID(id: number): string[] {
  return id >= 0 && id <= MAX_INT32 ? [] : [inclusiveRangeError(0, MAX_INT32)]
}

const PORT_NAME_CHARSET_RE = /^[-a-z0-9]+$/
const PORT_NAME_LETTER_RE = /[a-z]/

// upstream: validation.IsValidPortName
export function isValidPortName(port: string): string[] {
  const errs: string[] = []
  if (port.length > 15) errs.push(maxLenError(15))
  if (!PORT_NAME_CHARSET_RE.test(port))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)')
  if (!PORT_NAME_LETTER_RE.test(port)) errs.push('must contain at least one letter (a-z)')
  if (port.includes('--')) errs.push('must not contain consecutive hyphens')
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-')))
    errs.push('must not begin or end with a hyphen')
  return errs
}

// upstream: validation.IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation: on by default
// from 1.32, GA in 1.34, so the rule of every supported minor)
export function isRelaxedEnvVarName(v: string): string[] {
  const errs: string[] = []
  if (v.length === 0) errs.push('environment variable name must be non-empty')
  for (const ch of v) {
    const c = ch.codePointAt(0) ?? 0
    if (c > 0x7e || c < 0x20 || ch === '=') {
      errs.push(
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
      )
      break
    }
  }
  return errs
}

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+'
const CONFIG_MAP_KEY_RE = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`)

// upstream: validation.hasChDirPrefix
function chDirPrefix(v: string): string[] {
  if (v === '.') return ["must not be '.'"]
  if (v === '..') return ["must not be '..'"]
  if (v.startsWith('..')) return ["must not start with '..'"]
  return []
}

// upstream: validation.IsConfigMapKey
export function isConfigMapKey(v: string): string[] {
  const errs: string[] = []
  if (v.length > 253) errs.push(maxLenError(253))
  if (!CONFIG_MAP_KEY_RE.test(v))
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    )
  errs.push(...chDirPrefix(v))
  return errs
}

const HTTP_HEADER_NAME_FMT = '[-A-Za-z0-9]+'
const HTTP_HEADER_NAME_RE = new RegExp(`^${HTTP_HEADER_NAME_FMT}$`)

// upstream: validation.IsHTTPHeaderName
export function isHTTPHeaderName(v: string): string[] {
  return HTTP_HEADER_NAME_RE.test(v)
    ? []
    : [
        regexError(
          "a valid HTTP header must consist of alphanumeric characters or '-'",
          HTTP_HEADER_NAME_FMT,
          'X-Header-Name',
        ),
      ]
}

// upstream: apimachineryvalidation.NameIsDNSSubdomain with prefix (maskTrailingDash)
export function isDNS1123SubdomainPrefix(v: string): string[] {
  return isDNS1123Subdomain(v.length > 1 && v.endsWith('-') ? `${v.slice(0, -2)}a` : v)
}

// Label keys, annotation keys and label values repeat across a snapshot's objects (app,
// pod-template-hash, ...): their verdicts are remembered, within a bound, instead of re-run.
const MEMO_LIMIT = 10_000
const NO_ERRORS: string[] = []

function memoized(check: (v: string) => string[]): (v: string) => string[] {
  const memo = new Map<string, string[]>()
  return (v) => {
    let r = memo.get(v)
    if (r === undefined) {
      r = check(v)
      if (r.length === 0) r = NO_ERRORS
      if (memo.size >= MEMO_LIMIT) memo.clear()
      memo.set(v, r)
    }
    return r
  }
}

export const qualifiedNameMemo = memoized(isQualifiedName)
export const dns1123LabelMemo = memoized(isDNS1123Label)
export const dns1123SubdomainMemo = memoized(isDNS1123Subdomain)
export const portNameMemo = memoized(isValidPortName)
export const labelValueMemo = memoized(isValidLabelValue)
