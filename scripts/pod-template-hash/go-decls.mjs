// A reader of Go type declarations: just enough of Go's grammar to list the named types of a
// package (structs with their fields and tags, named basic/slice/map/pointer types), which is all
// the pod-template-hash generator needs. It reads declarations; it never evaluates code.

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y
const NUMBER = /[0-9][0-9A-Za-z_.]*/y

/** Tokens of Go source with comments dropped and newlines kept (they end struct fields). */
export function tokenize(src) {
  const out = []
  let i = 0
  while (i < src.length) {
    const c = src[i]
    if (c === '\n') {
      out.push({t: 'nl'})
      i++
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++
    } else if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2)
      const body = src.slice(i, end + 2)
      if (body.includes('\n')) out.push({t: 'nl'})
      i = end + 2
    } else if (c === '`') {
      const end = src.indexOf('`', i + 1)
      out.push({t: 'str', v: src.slice(i + 1, end)})
      i = end + 1
    } else if (c === '"' || c === "'") {
      let j = i + 1
      while (src[j] !== c) j += src[j] === '\\' ? 2 : 1
      out.push({t: 'str', v: JSON.parse(c === '"' ? src.slice(i, j + 1) : '""')})
      i = j + 1
    } else if (/[A-Za-z_]/.test(c)) {
      IDENT.lastIndex = i
      const m = IDENT.exec(src)
      out.push({t: 'id', v: m[0]})
      i += m[0].length
    } else if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i
      const m = NUMBER.exec(src)
      out.push({t: 'num', v: m[0]})
      i += m[0].length
    } else {
      out.push({t: 'p', v: c})
      i++
    }
  }
  return out
}

/** Evaluates a `//go:build` line for a plain linux/amd64 gc build with no custom tags. */
export function buildConstraintHolds(src) {
  const m = /^\/\/go:build (.+)$/m.exec(src)
  if (!m) return true
  const tags = new Set(['linux', 'amd64', 'gc', 'unix', 'cgo'])
  const expr = m[1].replace(/[A-Za-z0-9_.]+/g, (t) =>
    tags.has(t) || /^go1\.\d+$/.test(t) ? 'true' : 'false',
  )
  // The expression now holds only true/false, !, &&, || and parentheses.
  if (!/^[truefals!&|() ]+$/.test(expr)) throw new Error(`unexpected build constraint: ${m[1]}`)
  return Function(`return (${expr})`)()
}

/**
 * Parses the package clause, imports and type declarations of one Go file.
 * Returns {pkg, imports: Map(alias -> path), types: Map(name -> {expr})}. A type expression is
 * {k:'name', pkg?: alias, name} | {k:'ptr'|'slice', elem} | {k:'array', len, elem} |
 * {k:'map', key, elem} | {k:'struct', fields:[{name, embedded, type, tag}]} | {k:'other', text}.
 */
export function parseGoFile(src) {
  const toks = tokenize(src)
  let p = 0
  const peek = (o = 0) => toks[p + o]
  const isP = (v, o = 0) => peek(o)?.t === 'p' && peek(o).v === v
  const isId = (v, o = 0) => peek(o)?.t === 'id' && (v === undefined || peek(o).v === v)
  const skipNl = () => {
    while (peek()?.t === 'nl' || isP(';')) p++
  }
  const expect = (t, v) => {
    const tok = toks[p++]
    if (!tok || tok.t !== t || (v !== undefined && tok.v !== v)) {
      throw new Error(`expected ${v ?? t}, found ${tok ? (tok.v ?? tok.t) : 'end of file'} (token ${p - 1})`)
    }
    return tok
  }
  /** Skips a balanced (...), [...] or {...} group starting at the current token. */
  const skipGroup = () => {
    const open = peek().v
    const close = {'(': ')', '[': ']', '{': '}'}[open]
    let depth = 0
    do {
      if (isP(open)) depth++
      else if (isP(close)) depth--
      p++
    } while (depth > 0)
  }

  const parseType = () => {
    if (isP('*')) {
      p++
      return {k: 'ptr', elem: parseType()}
    }
    if (isP('[')) {
      p++
      if (isP(']')) {
        p++
        return {k: 'slice', elem: parseType()}
      }
      const len = expect('num').v
      expect('p', ']')
      return {k: 'array', len: Number(len), elem: parseType()}
    }
    if (isId('map')) {
      p++
      expect('p', '[')
      const key = parseType()
      expect('p', ']')
      return {k: 'map', key, elem: parseType()}
    }
    if (isId('struct')) {
      p++
      return {k: 'struct', fields: parseFields()}
    }
    if (isId('interface') || isId('func') || isId('chan')) {
      const start = p
      p++
      if (isP('(')) skipGroup()
      if (isP('{')) skipGroup()
      return {
        k: 'other',
        text: toks
          .slice(start, p)
          .map((t) => t.v ?? ' ')
          .join(''),
      }
    }
    const first = expect('id').v
    if (isP('.')) {
      p++
      const name = expect('id').v
      if (isP('[')) return {k: 'other', text: `${first}.${name}[...]`, generic: skipGroup()}
      return {k: 'name', pkg: first, name}
    }
    if (isP('[') && !isP(']', 1)) {
      skipGroup()
      return {k: 'other', text: `${first}[...]`}
    }
    return {k: 'name', name: first}
  }

  const parseFields = () => {
    expect('p', '{')
    const fields = []
    for (;;) {
      skipNl()
      if (isP('}')) {
        p++
        return fields
      }
      // Embedded: [*]Name or [*]pkg.Name, then an optional tag, then the end of the line.
      const embeddedAt = (o) => {
        if (isP('*', o)) o++
        if (!isId(undefined, o)) return -1
        o++
        if (isP('.', o)) o += 2
        if (peek(o)?.t === 'str') o++
        return peek(o)?.t === 'nl' || isP('}', o) || isP(';', o) ? o : -1
      }
      if (embeddedAt(0) >= 0) {
        const type = parseType()
        const tag = peek()?.t === 'str' ? toks[p++].v : ''
        const base = type.k === 'ptr' ? type.elem : type
        fields.push({name: base.name, embedded: true, type, tag})
        continue
      }
      const names = [expect('id').v]
      while (isP(',')) {
        p++
        names.push(expect('id').v)
      }
      const type = parseType()
      const tag = peek()?.t === 'str' ? toks[p++].v : ''
      for (const name of names) fields.push({name, embedded: false, type, tag})
    }
  }

  skipNl()
  expect('id', 'package')
  const pkg = expect('id').v
  const imports = new Map()
  const types = new Map()
  const parseImportSpec = () => {
    let alias
    if (isId() || isP('.') || isP('_')) alias = toks[p++].v
    const path = expect('str').v
    imports.set(alias ?? path.split('/').pop(), path)
  }
  const parseTypeSpec = () => {
    const name = expect('id').v
    if (isP('[') && isId(undefined, 1) && !isP(']', 2))
      throw new Error(`generic type ${name} is not supported`)
    const alias = isP('=')
    if (alias) p++
    types.set(name, {expr: parseType(), alias})
  }
  for (;;) {
    skipNl()
    const tok = peek()
    if (!tok) break
    if (isId('import')) {
      p++
      if (isP('(')) {
        p++
        for (skipNl(); !isP(')'); skipNl()) parseImportSpec()
        p++
      } else parseImportSpec()
    } else if (isId('type')) {
      p++
      if (isP('(')) {
        p++
        for (skipNl(); !isP(')'); skipNl()) parseTypeSpec()
        p++
      } else parseTypeSpec()
    } else if (isId('func')) {
      p++
      if (isP('(')) skipGroup() // receiver
      if (isId()) p++
      if (isP('[')) skipGroup()
      skipGroup() // parameters
      // Results, then the body: skip to the body's opening brace at depth 0.
      while (!isP('{') && peek()?.t !== 'nl') {
        if (isP('(') || isP('[')) skipGroup()
        else if (isId('struct') || isId('interface')) {
          p++
          skipGroup()
        } else p++
      }
      if (isP('{')) skipGroup()
    } else if (isId('const') || isId('var')) {
      p++
      if (isP('(')) skipGroup()
      else {
        // One spec: up to the end of the line, skipping groups (func literals, composite literals).
        while (peek() && peek().t !== 'nl') {
          if (isP('(') || isP('[') || isP('{')) skipGroup()
          else p++
        }
      }
    } else {
      throw new Error(`unexpected top-level token ${tok.v ?? tok.t} (token ${p})`)
    }
  }
  return {pkg, imports, types}
}

/** Reads a struct tag's key, as reflect.StructTag.Get does. */
export function tagValue(tag, key) {
  const m = new RegExp(`(?:^|\\s)${key}:"((?:[^"\\\\]|\\\\.)*)"`).exec(tag)
  return m ? m[1] : undefined
}
