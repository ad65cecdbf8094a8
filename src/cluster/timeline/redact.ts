// What a recording must not carry: values that look like secrets. A recording is meant to be
// attached to a post-mortem, so the recorder replaces, before anything is written, the value of
// every env var whose name looks like a secret, and every value under a `data`, `stringData` or
// `binaryData` key (ConfigMap- and Secret-shaped content), including inside kubectl's
// last-applied-configuration annotation, which holds the whole manifest as a string.

export const REDACTED = 'REDACTED'

/** Env var names that usually hold a secret: PASSWORD, DB_PASS, API_KEY, GITHUB_TOKEN, TLS_CERT... */
const SECRET_NAME =
  /pass(word|wd)?|secret|token|api[-_]?key|private[-_]?key|credential|auth|cert|cookie|session|signature|dsn|conn(ection)?[-_]?str/i

const DATA_KEYS = new Set(['data', 'stringData', 'binaryData'])
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'

type Json = unknown

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Whether an env var of this name is redacted. */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name)
}

/** Every leaf replaced by REDACTED, the shape kept (the keys say what was there). */
function blank(v: Json): Json {
  if (Array.isArray(v)) return v.map(blank)
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, blank(x)]))
  return v === null ? null : REDACTED
}

function redactEnv(list: Json[]): Json[] {
  return list.map((e) =>
    isObject(e) &&
    typeof e.name === 'string' &&
    typeof e.value === 'string' &&
    e.value !== '' &&
    looksSecret(e.name)
      ? {...e, value: REDACTED}
      : redactValue(e),
  )
}

/** A copy of `v` with secret-like values replaced; `v` itself is not changed. */
export function redactValue(v: Json): Json {
  if (Array.isArray(v)) return v.map(redactValue)
  if (!isObject(v)) return v
  const out: Record<string, Json> = {}
  for (const [k, x] of Object.entries(v)) {
    if (DATA_KEYS.has(k) && x !== null && typeof x === 'object') out[k] = blank(x)
    else if (k === 'env' && Array.isArray(x)) out[k] = redactEnv(x)
    else if (k === LAST_APPLIED && typeof x === 'string') out[k] = redactJsonText(x)
    else out[k] = redactValue(x)
  }
  return out
}

/** A JSON document held in a string, redacted; a string that is not JSON is left as it is. */
function redactJsonText(text: string): string {
  try {
    return `${JSON.stringify(redactValue(JSON.parse(text)))}\n`
  } catch {
    return text
  }
}
