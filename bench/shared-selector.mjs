#!/usr/bin/env node
// Rewrites a gen-cluster.mjs snapshot (JSON, on stdin) so that every Deployment of it selects
// `app: shared` (selector, template, ReplicaSets and pods relabelled): the overlapping-selector
// case of the benchmark (`explain -A` must stay linear when 1,000 Deployments share one selector).
//
//   node gen-cluster.mjs --deployments 1000 --namespaces 1 | node bench/shared-selector.mjs > shared.json
import {readFileSync} from 'node:fs'

const list = JSON.parse(readFileSync(0, 'utf8'))
const relabel = (labels) => (labels && 'app' in labels ? {...labels, app: 'shared'} : labels)
for (const o of list.items) {
  o.metadata.labels = relabel(o.metadata.labels)
  if (o.kind === 'Deployment' || o.kind === 'ReplicaSet') {
    if (o.spec.selector?.matchLabels) o.spec.selector.matchLabels = relabel(o.spec.selector.matchLabels)
    if (o.spec.template?.metadata) o.spec.template.metadata.labels = relabel(o.spec.template.metadata.labels)
  }
}
process.stdout.write(JSON.stringify(list))
