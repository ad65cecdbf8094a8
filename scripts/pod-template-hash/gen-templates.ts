import {writeFileSync} from 'node:fs'

writeFileSync(
  process.argv[2]!,
  JSON.stringify([
    {name: 'empty', template: {}, keepText: true},
    {
      name: 'nginx',
      keepText: true,
      template: {
        metadata: {labels: {app: 'web'}, creationTimestamp: null},
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              resources: {limits: {cpu: '1000m', memory: '1Gi'}, requests: {cpu: '0.5', memory: '1Ei'}},
              ports: [{containerPort: 80, protocol: 'TCP'}],
            },
          ],
        },
      },
    },
  ]),
)
