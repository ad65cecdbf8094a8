import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {startApiServer} from '/work/wt/s35-gate2/test/apiserver/index.js'
const gen = spawnSync(process.execPath, ['/work/shared/bench/gen-cluster.mjs', '--deployments', '500', '--now', new Date().toISOString()], {maxBuffer: 1 << 30})
const items = JSON.parse(gen.stdout.toString('utf8')).items
const server = await startApiServer({objects: items})
writeFileSync('/tmp/s35g2/kubeconfig.path', server.kubeconfigPath)
console.log(server.kubeconfigPath)
process.on('SIGTERM', async () => { await server.close(); process.exit(0) })
