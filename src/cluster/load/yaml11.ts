// The YAML 1.1 plain scalars kubectl's reader resolves (`on` is true, `0644` is 420, `1_000` is
// 1000), for the fast YAML path. They are the `yaml` package's own YAML 1.1 tags, in its order,
// minus those ./yaml.ts drops (timestamps, sexagesimal numbers): written out here so that the fast
// path does not load `yaml` (~6 ms of a small-file call). test/unit/load-yaml11.test.ts holds this
// table to the package's tags, test for test and value for value.

export interface ImplicitScalar {
  test: RegExp
  resolve(source: string): unknown
}

function int(offset: number, radix: number) {
  return (source: string): number => {
    const sign = source[0]
    const digits = source.substring(sign === '-' || sign === '+' ? offset + 1 : offset).replace(/_/g, '')
    const n = Number.parseInt(digits, radix)
    return sign === '-' ? -1 * n : n
  }
}

// Go's integer prefixes that YAML 1.1 lacks: kubectl's reader parses an integer with
// strconv.ParseInt(s, 0, 64) (go-yaml v2 resolve), so `0o644`, `0O7`, `0X1F` and `0B11` are numbers.
// ./yaml.ts gives the exact reader the same tag.
export const GO_INT = /^[-+]?0(?:[oO]_*[0-7][0-7_]*|X_*[0-9a-fA-F][0-9a-fA-F_]*|B_*[01][01_]*)$/
const GO_RADIX: Record<string, number> = {o: 8, x: 16, b: 2}

export function goInt(source: string): number {
  const sign = source[0] === '-' || source[0] === '+' ? 1 : 0
  const radix = GO_RADIX[source[sign + 1].toLowerCase()]
  const n = Number.parseInt(source.slice(sign + 2).replace(/_/g, ''), radix)
  return source[0] === '-' ? -n : n
}

const float = (source: string): number => Number.parseFloat(source.replace(/_/g, ''))

export const IMPLICIT_SCALARS: readonly ImplicitScalar[] = [
  {test: /^(?:~|[Nn]ull|NULL)?$/, resolve: () => null},
  {test: /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/, resolve: () => true},
  {test: /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/, resolve: () => false},
  {test: /^[-+]?0b[0-1_]+$/, resolve: int(2, 2)},
  {test: /^[-+]?0[0-7_]+$/, resolve: int(1, 8)},
  {test: /^[-+]?[0-9][0-9_]*$/, resolve: int(0, 10)},
  {test: /^[-+]?0x[0-9a-fA-F_]+$/, resolve: int(2, 16)},
  {
    test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
    resolve: (s) => (s.slice(-3).toLowerCase() === 'nan' ? Number.NaN : s[0] === '-' ? -Infinity : Infinity),
  },
  // Both with a digit in the mantissa, as kubectl's reader (./yaml.ts FLOAT_EXP, FLOAT).
  {test: /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$/, resolve: float},
  {test: /^[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)$/, resolve: float},
  {test: GO_INT, resolve: goInt},
]
