// upstream: k8s.io/apimachinery/pkg/api/resource (ParseQuantity, CanonicalizeBytes and the int64 /
// inf.Dec arithmetic they use), ported for one purpose: the pod-template-hash. A Quantity reaches
// kube-controller-manager as the canonical string the API server wrote into protobuf, parsed again;
// the hash then prints that Quantity's unexported fields, so this reproduces them exactly: which of
// int64Amount or inf.Dec holds the value, the scale, and whether the string was kept.

export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI'

/** resource.Quantity's fields, as ParseQuantity leaves them. */
export interface ParsedQuantity {
  /** i: int64Amount (zero when dec is set) */
  value: bigint
  scale: number
  /** d: the inf.Dec, when the value did not fit the int64 form */
  dec?: Dec
  /** s: the input, kept when it was already canonical */
  s: string
  format: QuantityFormat
}

/** inf.Dec: unscaled × 10^-scale. */
export interface Dec {
  unscaled: bigint
  scale: number
}

export class QuantityError extends Error {}

const MAX_INT64 = (1n << 63n) - 1n
const MIN_INT64 = -(1n << 63n)
const NANO = -9
const MAX_INT64_FACTORS = 18

const int64 = (v: bigint) => BigInt.asIntN(64, v)

// upstream: int64Multiply — the product, and whether it did not overflow.
function int64Multiply(a: bigint, b: bigint): [bigint, boolean] {
  if (a === 0n || b === 0n || a === 1n || b === 1n) return [int64(a * b), true]
  if (a === MIN_INT64 || b === MIN_INT64) return [0n, false]
  const c = int64(a * b)
  return [c, c / b === a]
}

// upstream: int64MultiplyScale10 / 100 (the same check with a constant factor)
function int64MultiplyScale(a: bigint, b: bigint): [bigint, boolean] {
  if (a === 0n || a === 1n) return [int64(a * b), true]
  if (a === MIN_INT64 && b !== 1n) return [0n, false]
  const c = int64(a * b)
  return [c, c / b === a]
}

// upstream: removeInt64Factors / removeBigIntFactors
function removeFactors(value: bigint, base: bigint): [bigint, number] {
  let result = value < 0n ? -value : value
  let times = 0
  while (result !== 0n && result % base === 0n) {
    // removeInt64Factors stops below the base; for a non-zero multiple of it that is the same.
    times++
    result /= base
  }
  return [value < 0n ? -result : result, times]
}

const pow10 = (n: number) => 10n ** BigInt(n)

/** The exact value as a fraction num / 10^den, for comparisons. */
function compareExact(aUnscaled: bigint, aScale: number, bUnscaled: bigint, bScale: number): number {
  // a = aUnscaled × 10^-aScale; compare on the larger scale.
  const s = Math.max(aScale, bScale)
  const x = aUnscaled * pow10(s - aScale)
  const y = bUnscaled * pow10(s - bScale)
  return x === y ? 0 : x < y ? -1 : 1
}

// upstream: inf.Dec.Round(x, s, inf.RoundUp) — to scale s, away from zero when inexact.
function decRoundUp(x: Dec, s: number): Dec {
  const shift = s - x.scale
  if (shift >= 0) return {unscaled: x.unscaled * pow10(shift), scale: s}
  const d = pow10(-shift)
  let q = x.unscaled / d
  if (x.unscaled % d !== 0n) q += x.unscaled < 0n ? -1n : 1n
  return {unscaled: q, scale: s}
}

// upstream: inf.Dec.SetString (scan): optional sign, digits, at most one '.'.
function decFromString(s: string): Dec | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(s)
  if (!m || (m[2]!.length === 0 && (m[3] ?? '').length === 0)) return undefined
  const digits = `${m[2]}${m[3] ?? ''}`
  const unscaled = BigInt(digits)
  return {unscaled: m[1] === '-' ? -unscaled : unscaled, scale: (m[3] ?? '').length}
}

interface Scanned {
  positive: boolean
  value: string
  num: string
  denom: string
  suffix: string
}

const SUFFIX_CHARS = 'eEinumkKMGTP'

// upstream: parseQuantityString
function parseQuantityString(str: string): Scanned {
  let positive = true
  let pos = 0
  const end = str.length
  if (pos < end) {
    if (str[0] === '-') {
      positive = false
      pos++
    } else if (str[0] === '+') pos++
  }
  for (let i = pos; ; i++) {
    if (i >= end) return {positive, value: '0', num: '0', denom: '', suffix: ''}
    if (str[i] !== '0') break
    pos++
  }
  let num = ''
  let i = pos
  for (; i < end && str[i]! >= '0' && str[i]! <= '9'; i++);
  if (i >= end) return {positive, value: str, num: str.slice(pos), denom: '', suffix: ''}
  num = str.slice(pos, i)
  pos = i
  if (num.length === 0) num = '0'
  let denom = ''
  if (str[pos] === '.') {
    pos++
    let j = pos
    for (; j < end && str[j]! >= '0' && str[j]! <= '9'; j++);
    if (j >= end) return {positive, value: str, num, denom: str.slice(pos), suffix: ''}
    denom = str.slice(pos, j)
    pos = j
  }
  const value = str.slice(0, pos)
  const suffixStart = pos
  let k = pos
  for (; k < end && SUFFIX_CHARS.includes(str[k]!); k++);
  if (k >= end) return {positive, value, num, denom, suffix: str.slice(suffixStart)}
  pos = k
  if (str[pos] === '-' || str[pos] === '+') pos++
  for (let n = pos; n < end; n++) {
    if (str[n]! < '0' || str[n]! > '9')
      throw new QuantityError(
        `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
      )
  }
  return {positive, value, num, denom, suffix: str.slice(suffixStart)}
}

const DEC_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
}
const BIN_SUFFIXES: Record<string, number> = {Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60}
const DEC_BY_EXPONENT = new Map(Object.entries(DEC_SUFFIXES).map(([s, e]) => [e, s]))
const BIN_BY_EXPONENT = new Map(Object.entries(BIN_SUFFIXES).map(([s, e]) => [e, s]))

// upstream: suffixHandler.interpret (via fastLookup)
function interpretSuffix(s: string): {base: 2 | 10; exponent: number; format: QuantityFormat} | undefined {
  if (s in DEC_SUFFIXES) return {base: 10, exponent: DEC_SUFFIXES[s]!, format: 'DecimalSI'}
  if (s in BIN_SUFFIXES) return {base: 2, exponent: BIN_SUFFIXES[s]!, format: 'BinarySI'}
  if (s.length > 1 && (s[0] === 'E' || s[0] === 'e')) {
    // strconv.ParseInt(s[1:], 10, 64), then int32(): out-of-range exponents fail, large ones wrap.
    const m = /^[+-]?\d+$/.exec(s.slice(1))
    if (!m) return undefined
    const parsed = BigInt(s.slice(1))
    if (parsed > MAX_INT64 || parsed < MIN_INT64) return undefined
    return {base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent'}
  }
  return undefined
}

// upstream: ParseQuantity
export function parseQuantity(str: string): ParsedQuantity {
  if (str.length === 0) throw new QuantityError('quantities must not be empty')
  if (str === '0') return {value: 0n, scale: 0, s: str, format: 'DecimalSI'}
  const {positive, value, num, denom, suffix} = parseQuantityString(str)
  const interpreted = interpretSuffix(suffix)
  if (!interpreted) throw new QuantityError("unable to parse quantity's suffix")
  const {base, exponent} = interpreted
  let format = interpreted.format

  let precision = 0
  let scale = 0
  let mantissa = 1n
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = int64(1n << BigInt(exponent))
      precision = 15 - num.length - Math.trunc(Math.fround((Math.fround(exponent) * 3) / 10)) - 1
    } else precision = -1
  } else {
    scale = exponent
    precision = MAX_INT64_FACTORS - (num.length + denom.length)
  }

  if (precision >= 0) {
    scale -= denom.length
    if (scale >= NANO) {
      const shifted = num + denom
      const parsed = BigInt(shifted)
      if (parsed > MAX_INT64) throw new QuantityError('unable to parse numeric part of quantity')
      const [product, ok] = int64Multiply(parsed, mantissa)
      if (ok) {
        const result = positive ? product : -product
        const canonical =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (parsed & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0'
        return {value: result, scale, s: canonical ? str : '', format}
      }
    }
  }

  const parsedDec = decFromString(value)
  if (!parsedDec) throw new QuantityError('unable to parse numeric part of quantity')
  let amount: Dec = parsedDec
  if (base === 10) amount = {unscaled: amount.unscaled, scale: amount.scale - exponent}
  else amount = {unscaled: amount.unscaled * (1n << BigInt(exponent)), scale: amount.scale}

  const negative = amount.unscaled < 0n
  if (negative) amount = {unscaled: -amount.unscaled, scale: amount.scale}
  const fitsInt64 = amount.unscaled <= MAX_INT64 && amount.unscaled >= MIN_INT64
  if (amount.unscaled !== 0n || !fitsInt64) amount = decRoundUp(amount, -NANO)
  if (format === 'BinarySI' && compareExact(amount.unscaled, amount.scale, MAX_INT64, 0) > 0) {
    amount = {unscaled: MAX_INT64, scale: 0}
  }
  if (
    format === 'BinarySI' &&
    compareExact(amount.unscaled, amount.scale, 1n, 0) < 0 &&
    compareExact(amount.unscaled, amount.scale, 0n, 0) > 0
  ) {
    format = 'DecimalSI'
  }
  if (negative) amount = {unscaled: -amount.unscaled, scale: amount.scale}
  return {value: 0n, scale: 0, dec: amount, s: '', format}
}

// upstream: int64Amount.AsCanonicalBytes / infDecAmount.AsCanonicalBytes
function asCanonical(q: ParsedQuantity): [string, number] {
  if (!q.dec) {
    let [amount, times] = removeFactors(q.value, 10n)
    let exponent = q.scale + times
    const mod = exponent % 3
    if (mod === 1 || mod === -2) {
      const [c, ok] = int64MultiplyScale(amount, 10n)
      if (!ok) return asCanonicalDec({unscaled: q.value, scale: -q.scale})
      amount = c
      exponent -= 1
    } else if (mod === 2 || mod === -1) {
      const [c, ok] = int64MultiplyScale(amount, 100n)
      if (!ok) return asCanonicalDec({unscaled: q.value, scale: -q.scale})
      amount = c
      exponent -= 2
    }
    return [amount.toString(), exponent]
  }
  return asCanonicalDec(q.dec)
}

function asCanonicalDec(d: Dec): [string, number] {
  let [amount, times] = removeFactors(d.unscaled, 10n)
  let exponent = -d.scale + times
  while (exponent % 3 !== 0) {
    amount *= 10n
    exponent--
  }
  return [amount.toString(), exponent]
}

// upstream: AsCanonicalBase1024Bytes of int64Amount (scale >= 0 here) and infDecAmount
function asCanonicalBase1024(unscaled: bigint, scale: number): [string, number] {
  // The value is an integer here (it was rounded to scale 0 first).
  const value = decRoundUp({unscaled, scale}, 0).unscaled
  const [amount, exponent] = removeFactors(value, 1024n)
  return [amount.toString(), exponent]
}

/** upstream: Quantity.String — the cached s, or CanonicalizeBytes. */
export function quantityString(q: ParsedQuantity): string {
  if (q.s.length > 0) return q.s
  const [unscaled, scale] = q.dec ? [q.dec.unscaled, q.dec.scale] : [q.value, -q.scale]
  if (unscaled === 0n) return '0'
  let format = q.format
  let rounded: Dec | undefined
  if (format === 'BinarySI') {
    if (compareExact(unscaled, scale, -1024n, 0) > 0 && compareExact(unscaled, scale, 1024n, 0) < 0) {
      format = 'DecimalSI'
    } else {
      // AsScale(0): int64Amount keeps a non-negative scale as it is; otherwise round up to units.
      rounded = scale <= 0 ? {unscaled, scale} : decRoundUp({unscaled, scale}, 0)
      if (compareExact(rounded.unscaled, rounded.scale, unscaled, scale) !== 0) format = 'DecimalSI'
    }
  }
  if (format === 'BinarySI') {
    const [number, exponent] = asCanonicalBase1024(rounded!.unscaled, rounded!.scale)
    return number + (BIN_BY_EXPONENT.get(exponent * 10) ?? '')
  }
  const [number, exponent] = asCanonical(q)
  if (format === 'DecimalExponent') return exponent === 0 ? number : `${number}e${exponent}`
  return number + (DEC_BY_EXPONENT.get(exponent) ?? '')
}

// upstream: Quantity.Cmp — by value, whatever the form.
/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantities(a: ParsedQuantity, b: ParsedQuantity): number {
  const exact = (q: ParsedQuantity): [bigint, number] =>
    q.dec ? [q.dec.unscaled, q.dec.scale] : [q.value, -q.scale]
  const [au, as] = exact(a)
  const [bu, bs] = exact(b)
  return compareExact(au, as, bu, bs)
}

/** The Quantity kube-controller-manager holds for a quantity the API server was given as `input`. */
export function decodedQuantity(input: string): ParsedQuantity {
  return parseQuantity(quantityString(parseQuantity(input.trim())))
}
