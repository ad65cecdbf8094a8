// kubectl's jsonpath template dialect (src/render/jsonpath.ts), on the cases of upstream's
// k8s.io/client-go/util/jsonpath/jsonpath_test.go (TestJSONPath's store example, TestKubernetes's
// List of nodes) that the plugin's documents exercise.

import {describe, expect, it} from 'vitest'
import {JsonPathError, jsonpath} from '../../src/render/jsonpath.js'

const store = {
  Name: 'jsonpath',
  Book: [
    {Category: 'reference', Author: 'Nigel Rees', Title: 'Sayings of the Centurey', Price: 8.95},
    {Category: 'fiction', Author: 'Evelyn Waugh', Title: 'Sword of Honour', Price: 12.99},
    {Category: 'fiction', Author: 'Herman Melville', Title: 'Moby Dick', Price: 8.99},
  ],
  Bicycle: [
    {Color: 'red', Price: 19.95, IsNew: true, Tags: ['a', 'b']},
    {Color: 'green', Price: 20.01, IsNew: false},
  ],
  Labels: {'web/html': 15, 'k8s.io/name': 'k8s'},
}

const nodes = {
  kind: 'List',
  items: [
    {
      kind: 'None',
      metadata: {name: '127.0.0.1', labels: {'kubernetes.io/hostname': '127.0.0.1'}},
      status: {capacity: {cpu: '4'}, addresses: [{type: 'LegacyHostIP', address: '127.0.0.1'}]},
    },
    {
      kind: 'None',
      metadata: {name: '127.0.0.2', labels: {'kubernetes.io/hostname': '127.0.0.2'}},
      status: {capacity: {cpu: '8'}, addresses: [{type: 'LegacyHostIP', address: '127.0.0.2'}]},
    },
  ],
}

describe('jsonpath (upstream: TestJSONPath, the store)', () => {
  const cases: Array<{name: string; given: string; want: string}> = [
    {name: 'plain text', given: 'hello jsonpath', want: 'hello jsonpath'},
    {name: 'a field', given: '{.Name}', want: 'jsonpath'},
    {name: 'text around fields', given: 'name: {.Name}.', want: 'name: jsonpath.'},
    {name: 'the current object', given: '{@.Name}', want: 'jsonpath'},
    {name: 'the root', given: '{$.Name}', want: 'jsonpath'},
    {name: 'an array', given: '{.Book[*].Author}', want: 'Nigel Rees Evelyn Waugh Herman Melville'},
    {name: 'an index', given: '{.Book[1].Author}', want: 'Evelyn Waugh'},
    {name: 'a negative index', given: '{.Book[-1].Title}', want: 'Moby Dick'},
    {name: 'a slice', given: '{.Book[0:2].Price}', want: '8.95 12.99'},
    {name: 'a slice with a step', given: '{.Book[0:3:2].Price}', want: '8.95 8.99'},
    {name: 'a union', given: '{.Book[0,2].Title}', want: 'Sayings of the Centurey Moby Dick'},
    {name: 'a quoted key with dots and slashes', given: "{.Labels['k8s.io/name']}", want: 'k8s'},
    {
      name: 'a filter on a string',
      given: '{.Book[?(@.Category=="fiction")].Author}',
      want: 'Evelyn Waugh Herman Melville',
    },
    {
      name: 'a filter on a number',
      given: '{.Book[?(@.Price<9)].Title}',
      want: 'Sayings of the Centurey Moby Dick',
    },
    {name: 'a filter on a boolean', given: '{.Bicycle[?(@.IsNew==true)].Color}', want: 'red'},
    {name: 'a filter by existence', given: '{.Bicycle[?(@.IsNew)].Color}', want: 'red'},
    {name: 'recursive descent', given: '{..Price}', want: '8.95 12.99 8.99 19.95 20.01'},
    {
      name: 'a map prints as JSON',
      given: '{.Bicycle[1]}',
      want: '{"Color":"green","Price":20.01,"IsNew":false}',
    },
    {name: 'a missing key prints nothing (kubectl allows missing keys)', given: '{.Nope}x', want: 'x'},
    {name: 'a string literal', given: '{.Name}{"\\n"}', want: 'jsonpath\n'},
    {
      name: 'range over the items, end',
      given: '{range .Book[*]}[{.Category}, {.Author}] {end}',
      want: '[reference, Nigel Rees] [fiction, Evelyn Waugh] [fiction, Herman Melville] ',
    },
    {name: 'range over one list visits it once', given: '{range .Bicycle}{@[0].Color}{end}', want: 'red'},
    {name: 'a key with escaped dots', given: '{.Labels.k8s\\.io/name}', want: 'k8s'},
    {name: 'a key with a slash', given: '{.Labels.web/html}', want: '15'},
    {
      name: "a range inside a range, over each item's list",
      given: '{range .Bicycle[*]}{.Color}:{range .Tags[*]}{@},{end};{end}',
      want: 'red:a,b,;green:;',
    },
  ]
  it.each(cases)('$name: $given', ({given, want}) => {
    expect(jsonpath(given, store)).toBe(want)
  })
})

describe('jsonpath (upstream: TestKubernetes, a List of nodes)', () => {
  const cases: Array<{name: string; given: string; want: string}> = [
    {name: 'names', given: '{.items[*].metadata.name}', want: '127.0.0.1 127.0.0.2'},
    {
      name: 'nested range',
      given: '{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}',
      want: '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ',
    },
    {
      name: 'a label with dots',
      given: "{.items[0].metadata.labels['kubernetes.io/hostname']}",
      want: '127.0.0.1',
    },
    {
      name: 'a filter inside a range',
      given: '{range .items[*]}{.status.addresses[?(@.type=="LegacyHostIP")].address}{"\\n"}{end}',
      want: '127.0.0.1\n127.0.0.2\n',
    },
  ]
  it.each(cases)('$name: $given', ({given, want}) => {
    expect(jsonpath(given, nodes)).toBe(want)
  })

  it.each([
    {name: 'an unclosed action', given: '{.items'},
    {name: 'an end outside a range', given: '{end}'},
    {name: 'a range without end', given: '{range .items[*]}{.kind}'},
  ])('refuses $name', ({given}) => {
    expect(() => jsonpath(given, nodes)).toThrow(JsonPathError)
  })
})
