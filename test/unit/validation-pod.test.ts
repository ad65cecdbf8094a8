// The pod-template rules of core/v1 validation (src/cluster/validation/{pod,container,volumes,resources}.ts),
// one block per upstream function, named after the upstream test that covers it
// (pkg/apis/core/validation/validation_test.go). Each case is a Deployment defaulted as the API
// server defaults it, and the expected lines are the API server's own words.

import {describe, expect, it} from 'vitest'
import {defaultDeployment, defaultPod} from '../../src/cluster/load/defaults.js'
import {fieldErrorText, validateDeployment, validatePod} from '../../src/cluster/validation/index.js'

type Obj = Record<string, unknown>

const T = 'spec.template.spec'
const C = `${T}.containers[0]`

function deployment(podSpec: Obj, container: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'web', namespace: 'default'},
    spec: {
      selector: {matchLabels: {app: 'web'}},
      template: {
        metadata: {labels: {app: 'web'}},
        spec: {containers: [{name: 'app', image: 'nginx:1.27', ...container}], ...podSpec},
      },
    },
  }
}

function errors(podSpec: Obj, container: Obj = {}, enabled?: (gate: string) => boolean): string[] {
  const d = deployment(podSpec, container)
  defaultDeployment(d)
  return validateDeployment(d, {enabled}).map(fieldErrorText)
}

const containerErrors = (c: Obj) => errors({}, c)

describe('TestValidateContainerPorts', () => {
  it('accepts named, numbered and host ports of the three protocols', () => {
    expect(
      containerErrors({
        ports: [
          {name: 'http', containerPort: 80},
          {name: 'dns', containerPort: 53, protocol: 'UDP', hostPort: 53},
          {containerPort: 9000, protocol: 'SCTP'},
        ],
      }),
    ).toEqual([])
  })

  it('refuses a missing or out-of-range port, a bad or repeated name, an unknown protocol', () => {
    expect(
      containerErrors({
        ports: [
          {name: 'http', containerPort: 80},
          {name: 'http', containerPort: 81},
          {name: 'Web_1', containerPort: 70000},
          {name: '8080', hostPort: -1, protocol: 'HTTP'},
        ],
      }),
    ).toEqual([
      `${C}.ports[1].name: Duplicate value: "http"`,
      `${C}.ports[2].name: Invalid value: "Web_1": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
      `${C}.ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
      `${C}.ports[3].name: Invalid value: "8080": must contain at least one letter (a-z)`,
      `${C}.ports[3].containerPort: Required value`,
      `${C}.ports[3].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive`,
      `${C}.ports[3].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`,
    ])
  })

  it('AccumulateUniqueHostPorts: one host port per protocol and host IP across the containers', () => {
    const errs = errors({
      containers: [
        {name: 'a', image: 'x', ports: [{containerPort: 80, hostPort: 8080}]},
        {name: 'b', image: 'x', ports: [{containerPort: 81, hostPort: 8080}]},
      ],
    })
    expect(errs).toEqual([`${T}.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"`])
  })

  it('validatePodHostNetworkDeps: with hostNetwork a template may leave hostPort 0, not another port', () => {
    expect(errors({hostNetwork: true}, {ports: [{containerPort: 80}]})).toEqual([])
    expect(errors({hostNetwork: true}, {ports: [{containerPort: 80, hostPort: 81}]})).toEqual([
      `${C}.ports[0].hostPort: Invalid value: 81: must match \`containerPort\` when \`hostNetwork\` is true`,
    ])
  })
})

describe('TestValidateEnv', () => {
  it('accepts relaxed names (printable ASCII but "=") and each source alone', () => {
    expect(
      containerErrors({
        env: [
          {name: 'A', value: 'x'},
          {name: '1-dotted.name with space', value: 'x'},
          {name: 'POD', valueFrom: {fieldRef: {fieldPath: 'metadata.name'}}},
          {name: 'LABEL', valueFrom: {fieldRef: {fieldPath: "metadata.labels['app']"}}},
          {name: 'CPU', valueFrom: {resourceFieldRef: {resource: 'limits.cpu', divisor: '1m'}}},
          {name: 'K', valueFrom: {configMapKeyRef: {name: 'cfg', key: 'k'}}},
          {name: 'S', valueFrom: {secretKeyRef: {name: 'sec', key: 'k.v'}}},
        ],
      }),
    ).toEqual([])
  })

  it('refuses empty names, "=", no source, two sources, and a source beside a value', () => {
    expect(
      containerErrors({
        env: [
          {name: ''},
          {name: 'A=B'},
          {name: 'X', valueFrom: {}},
          {name: 'Y', value: 'v', valueFrom: {configMapKeyRef: {name: 'c', key: 'k'}}},
          {
            name: 'Z',
            valueFrom: {configMapKeyRef: {name: 'c', key: 'k'}, secretKeyRef: {name: 's', key: 'k'}},
          },
        ],
      }),
    ).toEqual([
      `${C}.env[0].name: Required value`,
      `${C}.env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      `${C}.env[2].valueFrom: Invalid value: "": must specify one of: \`fieldRef\`, \`resourceFieldRef\`, \`configMapKeyRef\` or \`secretKeyRef\``,
      `${C}.env[3].valueFrom: Invalid value: "": may not be specified when \`value\` is not empty`,
      `${C}.env[4].valueFrom: Invalid value: "": may not have more than one field specified at a time`,
    ])
  })

  it('validateObjectFieldSelector: a field the downward API does not offer to env', () => {
    expect(
      containerErrors({
        env: [
          {name: 'A', valueFrom: {fieldRef: {fieldPath: 'status.phase'}}},
          {name: 'B', valueFrom: {fieldRef: {fieldPath: 'spec.nope'}}},
          {name: 'C', valueFrom: {fieldRef: {fieldPath: "metadata.labels['bad key']"}}},
        ],
      }),
    ).toEqual([
      `${C}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
      `${C}.env[1].valueFrom.fieldRef.fieldPath: Invalid value: "spec.nope": error converting fieldPath: field label not supported: spec.nope`,
      expect.stringMatching(
        /^.*\.env\[2\]\.valueFrom\.fieldRef: Invalid value: "bad key": name part must consist of/,
      ),
    ])
  })

  it('validateConfigMapKeySelector and the resource field divisor', () => {
    expect(
      containerErrors({
        env: [
          {name: 'A', valueFrom: {configMapKeyRef: {name: 'Cfg', key: ''}}},
          {name: 'B', valueFrom: {secretKeyRef: {name: 's', key: 'a/b'}}},
          {name: 'C', valueFrom: {resourceFieldRef: {resource: 'limits.gpu'}}},
          {name: 'D', valueFrom: {resourceFieldRef: {resource: 'limits.cpu', divisor: '10m'}}},
        ],
      }),
    ).toEqual([
      expect.stringMatching(
        /^.*\.env\[0\]\.valueFrom\.configMapKeyRef\.name: Invalid value: "Cfg": a lowercase RFC 1123 subdomain/,
      ),
      `${C}.env[0].valueFrom.configMapKeyRef.key: Required value`,
      `${C}.env[1].valueFrom.secretKeyRef.key: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      `${C}.env[2].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"`,
      `${C}.env[3].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`,
    ])
  })

  it('TestValidateEnvFrom: one of configMapRef or secretRef, on the list path', () => {
    expect(containerErrors({envFrom: [{configMapRef: {name: 'cfg'}, prefix: 'P_'}]})).toEqual([])
    expect(containerErrors({envFrom: [{prefix: 'A=B'}, {configMapRef: {name: ''}}]})).toEqual([
      `${C}.envFrom[0].prefix: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      `${C}.envFrom: Invalid value: "": must specify one of: \`configMapRef\` or \`secretRef\``,
      `${C}.envFrom[1].configMapRef.name: Required value`,
    ])
  })
})

describe('TestValidateProbe, TestValidateHandler', () => {
  it('accepts one handler each, defaulted thresholds, and a named port', () => {
    expect(
      containerErrors({
        ports: [{name: 'http', containerPort: 80}],
        livenessProbe: {httpGet: {port: 'http'}},
        readinessProbe: {tcpSocket: {port: 80}, periodSeconds: 5},
        startupProbe: {exec: {command: ['true']}},
      }),
    ).toEqual([])
  })

  it('refuses no handler, two handlers, negative numbers, a bad port and liveness success threshold above 1', () => {
    expect(
      containerErrors({
        livenessProbe: {successThreshold: 2, initialDelaySeconds: -1},
        readinessProbe: {httpGet: {port: 0}, exec: {command: []}, terminationGracePeriodSeconds: 5},
        startupProbe: {grpc: {port: 70000}, terminationGracePeriodSeconds: 0},
      }),
    ).toEqual([
      `${C}.livenessProbe: Required value: must specify a handler type`,
      `${C}.livenessProbe.initialDelaySeconds: Invalid value: -1: must be greater than or equal to 0`,
      `${C}.livenessProbe.successThreshold: Invalid value: 2: must be 1`,
      `${C}.readinessProbe.exec.command: Required value`,
      `${C}.readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type`,
      `${C}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
      `${C}.startupProbe.grpc.port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
      `${C}.startupProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater than 0`,
    ])
  })

  it('validateHTTPGetAction: scheme and header names', () => {
    expect(
      containerErrors({
        livenessProbe: {httpGet: {port: 80, scheme: 'FTP', httpHeaders: [{name: 'X Bad', value: 'v'}]}},
      }),
    ).toEqual([
      `${C}.livenessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`,
      `${C}.livenessProbe.httpGet.httpHeaders: Invalid value: "X Bad": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')`,
    ])
  })

  it('TestValidateLifecycle: a sleep within the grace period (0 allowed from 1.33)', () => {
    expect(containerErrors({lifecycle: {preStop: {sleep: {seconds: 0}}}})).toEqual([])
    expect(containerErrors({lifecycle: {preStop: {sleep: {seconds: 31}}, postStart: {}}})).toEqual([
      `${C}.lifecycle.postStart: Required value: must specify a handler type`,
      `${C}.lifecycle.preStop.sleep: Invalid value: 31: must be non-negative and less than terminationGracePeriodSeconds (30)`,
    ])
  })
})

describe('TestValidateResourceRequirements', () => {
  it('accepts standard, hugepages (with memory) and extended resources', () => {
    expect(
      containerErrors({
        resources: {
          limits: {cpu: '1', memory: '1Gi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '2'},
          requests: {cpu: '500m', 'example.com/gpu': '2'},
        },
      }),
    ).toEqual([])
  })

  it('refuses negative quantities, unknown resource names and fractions of an extended resource', () => {
    expect(
      containerErrors({
        resources: {
          limits: {cpu: '-1', pods: '1', gpu: '1', 'example.com/gpu': '1500m'},
          requests: {'example.com/gpu': '1500m'},
        },
      }),
    ).toEqual([
      `${C}.resources.limits[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
      `${C}.resources.limits[example.com/gpu]: Invalid value: "1500m": must be an integer`,
      `${C}.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified`,
      `${C}.resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers`,
      `${C}.resources.limits[pods]: Invalid value: "pods": must be a standard resource for containers`,
      `${C}.resources.requests[example.com/gpu]: Invalid value: "1500m": must be an integer`,
    ])
  })

  it('a value that is no quantity is refused, as the decoder refuses it; null is a zero quantity', () => {
    const re = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    expect(
      containerErrors({resources: {limits: {cpu: 'abc'}, requests: {memory: '1.5x', cpu: null}}}),
    ).toEqual([
      `${C}.resources.limits[cpu]: Invalid value: "abc": ${re}`,
      `${C}.resources.requests[memory]: Invalid value: "1.5x": ${re}`,
    ])
  })

  it('non-overcommitable resources: a request equals its limit, and needs one', () => {
    expect(
      containerErrors({resources: {limits: {'example.com/gpu': '2'}, requests: {'example.com/gpu': '1'}}}),
    ).toEqual([`${C}.resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`])
    expect(containerErrors({resources: {requests: {'example.com/gpu': '1'}}})).toEqual([
      `${C}.resources.limits: Required value: Limit must be set for non overcommitable resources`,
    ])
  })

  it('hugepages: whole pages, and only beside cpu or memory', () => {
    expect(containerErrors({resources: {limits: {'hugepages-2Mi': '3Mi'}}})).toEqual([
      `${C}.resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi`,
      `${C}.resources: Forbidden: HugePages require cpu or memory`,
    ])
  })
})

describe('TestValidateVolumes', () => {
  it('accepts the common sources', () => {
    expect(
      errors({
        volumes: [
          {name: 'a', emptyDir: {sizeLimit: '1Gi'}},
          {name: 'b', configMap: {name: 'cfg', items: [{key: 'k', path: 'dir/k'}]}},
          {name: 'c', secret: {secretName: 's', defaultMode: 0o400}},
          {name: 'd', persistentVolumeClaim: {claimName: 'data'}},
          {name: 'e', hostPath: {path: '/var/log', type: 'Directory'}},
          {name: 'f', downwardAPI: {items: [{path: 'labels', fieldRef: {fieldPath: 'metadata.labels'}}]}},
          {
            name: 'g',
            projected: {sources: [{serviceAccountToken: {path: 'token', expirationSeconds: 3600}}]},
          },
          {name: 'h', csi: {driver: 'secrets-store.csi.k8s.io'}},
        ],
      }),
    ).toEqual([])
  })

  it('refuses two sources, missing names and keys, bad modes and paths', () => {
    expect(
      errors({
        volumes: [
          {name: 'a', emptyDir: {}, configMap: {name: 'x'}},
          {name: 'b', configMap: {name: '', defaultMode: 0o1000, items: [{key: '', path: '../up'}]}},
          {name: 'c', secret: {}},
          {name: 'd', hostPath: {path: '/a/../b', type: 'Dir'}},
          {name: 'e', persistentVolumeClaim: {claimName: ''}},
          {name: 'f', emptyDir: {sizeLimit: '-1'}},
          {name: 'g', projected: {sources: [{serviceAccountToken: {path: 't', expirationSeconds: 60}}]}},
        ],
      }),
    ).toEqual([
      `${T}.volumes[0].configMap: Forbidden: may not specify more than 1 volume type`,
      `${T}.volumes[1].configMap.name: Required value`,
      `${T}.volumes[1].configMap.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive`,
      `${T}.volumes[1].configMap.items[0].key: Required value`,
      `${T}.volumes[1].configMap.items[0].path: Invalid value: "../up": must not contain '..'`,
      `${T}.volumes[2].secret.secretName: Required value`,
      `${T}.volumes[3].hostPath.path: Invalid value: "/a/../b": must not contain '..'`,
      `${T}.volumes[3].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"`,
      `${T}.volumes[4].persistentVolumeClaim.claimName: Required value`,
      `${T}.volumes[5].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`,
      `${T}.volumes[6].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`,
    ])
  })

  it('a volume with errors is not one a mount can name (Not found besides its own error)', () => {
    expect(
      errors({volumes: [{name: 'data', secret: {}}]}, {volumeMounts: [{name: 'data', mountPath: '/d'}]}),
    ).toEqual([
      `${T}.volumes[0].secret.secretName: Required value`,
      `${C}.volumeMounts[0].name: Not found: "data"`,
    ])
  })

  it('TestValidateVolumeMounts: subPath, propagation and read-only recursion', () => {
    expect(
      errors(
        {volumes: [{name: 'v', emptyDir: {}}]},
        {
          volumeMounts: [
            {name: 'v', mountPath: '/a', subPath: '../x'},
            {name: 'v', mountPath: '/b', subPath: 'x', subPathExpr: '$(POD)'},
            {name: 'v', mountPath: '/c', mountPropagation: 'Bidirectional'},
            {name: 'v', mountPath: '/d', recursiveReadOnly: 'Enabled'},
          ],
        },
      ),
    ).toEqual([
      `${C}.volumeMounts.subPath: Invalid value: "../x": must not contain '..'`,
      `${C}.volumeMounts[1].subPathExpr: Invalid value: "$(POD)": subPathExpr and subPath are mutually exclusive`,
      `${C}.volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers`,
      `${C}.volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly is true`,
    ])
  })
})

describe('TestValidateContainers, TestValidateInitContainers', () => {
  it('names: DNS labels ("must not contain dots" for a subdomain), unique across containers and init containers', () => {
    expect(
      errors({
        containers: [
          {name: 'web.app', image: 'x'},
          {name: 'a', image: 'x'},
        ],
        initContainers: [{name: 'a', image: 'x'}],
      }),
    ).toEqual([
      `${T}.containers[0].name: Invalid value: "web.app": must not contain dots`,
      `${T}.initContainers[0].name: Duplicate value: "a"`,
    ])
  })

  it('image: required, but a blank one is allowed in a template (not in a pod)', () => {
    expect(containerErrors({image: ''})).toEqual([`${C}.image: Required value`])
    expect(containerErrors({image: ' '})).toEqual([])
    const pod: Obj = {
      metadata: {name: 'p', namespace: 'default'},
      spec: {containers: [{name: 'a', image: ' x'}]},
    }
    defaultPod(pod)
    expect(validatePod(pod).map(fieldErrorText)).toEqual([
      'spec.containers[0].image: Invalid value: " x": must not have leading or trailing whitespace',
    ])
  })

  it('init containers: no probes or lifecycle unless restartPolicy Always (a sidecar)', () => {
    expect(
      errors({
        initContainers: [
          {name: 'init', image: 'x', readinessProbe: {exec: {command: ['x']}}},
          {name: 'side', image: 'x', restartPolicy: 'Always', readinessProbe: {exec: {command: ['x']}}},
        ],
      }),
    ).toEqual([
      `${T}.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always`,
    ])
  })

  it('a regular container restartPolicy: refused as 1.33 does; 1.34+ drop it first unless ContainerRestartRules is on', () => {
    expect(containerErrors({restartPolicy: 'Always'})).toEqual([
      `${C}.restartPolicy: Forbidden: may not be set for non-init containers`,
    ])
    expect(errors({}, {restartPolicy: 'Always'}, (g) => g === 'ContainerRestartRules')).toEqual([])
  })

  it('pull policy and termination message policy of the supported values', () => {
    expect(containerErrors({imagePullPolicy: 'Sometimes', terminationMessagePolicy: 'Logs'})).toEqual([
      `${C}.terminationMessagePolicy: Unsupported value: "Logs": supported values: "File", "FallbackToLogsOnError"`,
      `${C}.imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
    ])
  })

  it('ValidateSecurityContext: user and group IDs, procMount', () => {
    expect(
      containerErrors({securityContext: {runAsUser: -1, runAsGroup: 2147483648, procMount: 'Unmasked'}}),
    ).toEqual([
      `${C}.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive`,
      `${C}.securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive`,
      `${C}.securityContext.procMount: Invalid value: "Unmasked": \`hostUsers\` must be false to use \`Unmasked\``,
    ])
  })
})

describe('TestValidatePodSpec', () => {
  it('DNS policy, node selector, hostname, service account and priority class names', () => {
    expect(
      errors({
        dnsPolicy: 'Cluster',
        nodeSelector: {'bad key': 'x'},
        hostname: 'Web',
        serviceAccountName: 'My_SA',
        priorityClassName: 'high.',
      }),
    ).toEqual([
      `${T}.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`,
      expect.stringMatching(
        /^spec\.template\.spec\.nodeSelector: Invalid value: "bad key": name part must consist of/,
      ),
      expect.stringMatching(
        /^spec\.template\.spec\.serviceAccountName: Invalid value: "My_SA": a lowercase RFC 1123 subdomain/,
      ),
      expect.stringMatching(
        /^spec\.template\.spec\.hostname: Invalid value: "Web": a lowercase RFC 1123 label/,
      ),
      expect.stringMatching(
        /^spec\.template\.spec\.priorityClassName: Invalid value: "high\.": a lowercase RFC 1123 subdomain/,
      ),
    ])
  })

  it('TestValidateTolerations', () => {
    expect(
      errors({
        tolerations: [
          {operator: 'Exists'},
          {key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule'},
          {key: 'k', operator: 'Exists', value: 'v'},
          {operator: 'Equal', effect: 'NoExecute'},
          {key: 'k', tolerationSeconds: 10, effect: 'NoSchedule'},
          {key: 'k', operator: 'Lt', effect: 'Never'},
        ],
      }),
    ).toEqual([
      `${T}.tolerations[2].operator: Invalid value: "v": value must be empty when \`operator\` is 'Exists'`,
      `${T}.tolerations[3].operator: Invalid value: "Equal": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
      `${T}.tolerations[4].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when \`tolerationSeconds\` is set`,
      `${T}.tolerations[5].operator: Unsupported value: "Lt": supported values: "Equal", "Exists"`,
      `${T}.tolerations[5].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
    ])
  })

  it('TestValidateAffinity: node selector terms, weights, topology keys', () => {
    expect(
      errors({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{matchExpressions: [{key: 'zone', operator: 'In'}]}],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {}}],
          },
          podAntiAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: 'web'}}}],
          },
        },
      }),
    ).toEqual([
      `${T}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
      `${T}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100`,
      `${T}.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty`,
      expect.stringMatching(/topologyKey: Invalid value: "": name part must be non-empty$/),
      expect.stringMatching(/topologyKey: Invalid value: "": name part must consist of/),
    ])
  })

  it('TestValidateTopologySpreadConstraints', () => {
    expect(
      errors({
        topologySpreadConstraints: [
          {maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule'},
          {maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2},
          {maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'Maybe'},
        ],
      }),
    ).toEqual([
      `${T}.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero`,
      `${T}.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`,
      `${T}.topologySpreadConstraints[2].topologyKey: Required value: can not be empty`,
      `${T}.topologySpreadConstraints[2].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"`,
    ])
  })

  it('TestValidatePodDNSConfig: None needs nameservers; IPs and search names', () => {
    expect(errors({dnsPolicy: 'None'})).toEqual([
      `${T}.dnsConfig: Required value: must provide \`dnsConfig\` when \`dnsPolicy\` is None`,
    ])
    expect(
      errors({
        dnsPolicy: 'None',
        dnsConfig: {nameservers: ['1.1.1.1', 'dns'], searches: ['svc.cluster.local.', 'Bad!']},
      }),
    ).toEqual([
      `${T}.dnsConfig.nameservers[1]: Invalid value: "dns": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      expect.stringMatching(
        /^spec\.template\.spec\.dnsConfig\.searches\[1\]: Invalid value: "Bad!": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '\.'/,
      ),
    ])
  })

  it('ephemeral containers: refused when a pod is created, kept on a pod that exists (kubectl debug)', () => {
    const pod: Obj = {
      metadata: {name: 'p', namespace: 'default'},
      spec: {containers: [{name: 'a', image: 'x'}], ephemeralContainers: [{name: 'debug', image: 'busybox'}]},
    }
    defaultPod(pod)
    expect(validatePod(pod, {}, true).map(fieldErrorText)).toEqual([
      'spec.ephemeralContainers: Forbidden: cannot be set on create',
    ])
    expect(validatePod(pod).map(fieldErrorText)).toEqual([])
  })

  it('ephemeral containers are not allowed in a pod template', () => {
    expect(errors({ephemeralContainers: [{name: 'debug', image: 'busybox'}]})).toEqual([
      `${T}.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template`,
    ])
  })
})

describe('messages by minor', () => {
  it('a label key of three parts: "a qualified name" up to 1.34, "a valid label key" from 1.35 (content.IsLabelKey)', () => {
    const d = deployment({})
    ;((d.spec as Obj).template as Obj).metadata = {labels: {app: 'web', 'a/b/c': 'x'}}
    defaultDeployment(d)
    const first = (minor: number) => fieldErrorText(validateDeployment(structuredClone(d), {minor})[0]!)
    const tail =
      "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    for (const minor of [33, 34]) {
      expect(first(minor)).toMatch(
        /^spec\.template\.labels: Invalid value: "a\/b\/c": a qualified name must consist of/,
      )
      expect(first(minor).endsWith(tail)).toBe(true)
    }
    for (const minor of [35, 36, 37]) {
      expect(first(minor)).toMatch(
        /^spec\.template\.labels: Invalid value: "a\/b\/c": a valid label key must consist of/,
      )
    }
  })
})
