// core/v1 validation of pod specs (pkg/apis/core/validation: ValidatePodSpec and what it calls),
// for the checks that decide whether a template or a pod could exist at all. What is checked and
// what is knowingly not: docs/fidelity.md, "Validation of input".

import {
  type PodContext,
  validateContainers,
  validateInitContainers,
  validateSeccompProfile,
} from './container.js'
import {
  duplicate,
  type FieldError,
  forbidden,
  invalid,
  notSupported,
  type Path,
  type PathElem,
  required,
} from './field.js'
import {isObject, type Obj, str, validateLabelSelector, validateLabels} from './meta.js'
import {
  inclusiveRangeError,
  dns1123LabelMemo as isDNS1123Label,
  dns1123SubdomainMemo as isDNS1123Subdomain,
  qualifiedNameMemo as isQualifiedName,
  isValidLabelValue,
  isValidUserID,
} from './names.js'
import {validateResourceRequirements} from './resources.js'
import {validateVolumes} from './volumes.js'

/** What validation needs to know about the API server it stands in for. */
export interface ValidationOptions {
  /** The Kubernetes minor whose words the messages take (the newest when absent). */
  minor?: number
  /** Whether a feature gate is on (the minor's default, or --feature-gates). */
  enabled?: (gate: string) => boolean
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never']
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']
const MAX_INT32 = 2147483647

const num = (v: unknown): number => (typeof v === 'number' ? v : 0)
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [])

// upstream: unversionedvalidation.ValidateLabelName
function validateLabelName(name: string, path: Path, errs: FieldError[]): void {
  for (const m of isQualifiedName(name)) errs.push(invalid(path, name, m))
}

function validateSubdomain(s: string, path: Path, errs: FieldError[]): void {
  for (const m of isDNS1123Subdomain(s)) errs.push(invalid(path, s, m))
}

/** An optional name: checked when not empty. */
function validateSubdomainField(v: unknown, path: Path, errs: FieldError[]): void {
  const s = str(v)
  if (s !== '') validateSubdomain(s, path, errs)
}

// node:net is fetched on first use: loading it at start-up costs every file-mode call (and
// test/e2e/startup.test.ts holds file mode to not loading it).
// upstream: netutils.ParseIPSloppy (IPv4 octets may have leading zeros)
function isSloppyIP(v: string): boolean {
  if (process.getBuiltinModule('node:net').isIP(v) !== 0) return true
  const parts = v.split('.')
  return parts.length === 4 && parts.every((p) => /^[0-9]{1,3}$/.test(p) && Number(p) <= 255)
}

// upstream: validation.IsValidIP
function validateIP(v: string, path: Path, errs: FieldError[]): void {
  if (!isSloppyIP(v))
    errs.push(invalid(path, v, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'))
}

// upstream: validatePodResourceClaims
function validatePodResourceClaims(list: unknown, path: Path, errs: FieldError[]): void {
  const names = new Set<string>()
  objects(list).forEach((claim, i) => {
    const p: PathElem[] = [...path, i]
    const name = str(claim.name)
    if (name === '') errs.push(required([...p, 'name']))
    else if (names.has(name)) errs.push(duplicate([...p, 'name'], name))
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalid([...p, 'name'], name, m))
      names.add(name)
    }
    const byName = typeof claim.resourceClaimName === 'string'
    const byTemplate = typeof claim.resourceClaimTemplateName === 'string'
    const value = {
      name,
      resourceClaimName: claim.resourceClaimName,
      resourceClaimTemplateName: claim.resourceClaimTemplateName,
    }
    if (byName && byTemplate) {
      errs.push(
        invalid(
          p,
          value,
          'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified',
        ),
      )
    }
    if (!byName && !byTemplate) {
      errs.push(invalid(p, value, 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'))
    }
    for (const f of ['resourceClaimName', 'resourceClaimTemplateName'] as const) {
      const v = claim[f]
      if (typeof v === 'string') validateSubdomain(v, [...p, f], errs)
    }
  })
}

// upstream: validatePodHostNetworkDeps (a template may leave hostPort 0)
function validateHostNetworkDeps(spec: Obj, path: Path, isPod: boolean, errs: FieldError[]): void {
  if (spec.hostNetwork !== true) return
  objects(spec.containers).forEach((c, i) => {
    objects(c.ports).forEach((port, j) => {
      const hp = num(port.hostPort)
      if ((isPod || hp !== 0) && hp !== num(port.containerPort)) {
        errs.push(
          invalid(
            [...path, 'containers', i, 'ports', j, 'hostPort'],
            hp,
            'must match `containerPort` when `hostNetwork` is true',
          ),
        )
      }
    })
  })
}

const SYSCTL_FMT = '^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$'
const SYSCTL_RE = new RegExp(SYSCTL_FMT)
const FS_GROUP_CHANGE_POLICIES = ['Always', 'OnRootMismatch']
const SUPPLEMENTAL_GROUPS_POLICIES = ['Merge', 'Strict']
const SELINUX_CHANGE_POLICIES = ['MountOption', 'Recursive']

// upstream: validatePodSpecSecurityContext (host namespaces are the pod spec's in v1)
function validatePodSecurityContext(spec: Obj, path: Path, errs: FieldError[]): void {
  const sc = spec.securityContext
  if (!isObject(sc)) return
  const p: PathElem[] = [...path, 'securityContext']
  for (const f of ['fsGroup', 'runAsUser', 'runAsGroup'] as const) {
    const v = sc[f]
    if (typeof v === 'number') for (const m of isValidUserID(v)) errs.push(invalid([...p, f], v, m))
  }
  if (Array.isArray(sc.supplementalGroups)) {
    sc.supplementalGroups.forEach((g, i) => {
      if (typeof g === 'number')
        for (const m of isValidUserID(g)) errs.push(invalid([...p, 'supplementalGroups', i], g, m))
    })
  }
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    errs.push(
      invalid(
        [...p, 'shareProcessNamespace'],
        true,
        'ShareProcessNamespace and HostPID cannot both be enabled',
      ),
    )
  }
  if (Array.isArray(sc.sysctls)) {
    const names = new Set<string>()
    objects(sc.sysctls).forEach((s, i) => {
      const name = str(s.name)
      const np: PathElem[] = [...p, 'sysctls', i, 'name']
      if (name === '') errs.push(required(np))
      else if (name.length > 253 || !SYSCTL_RE.test(name)) {
        errs.push(invalid(np, name, `must have at most 253 characters and match regex ${SYSCTL_FMT}`))
      } else if (names.has(name)) errs.push(duplicate(np, name))
      names.add(name)
    })
  }
  const fsPolicy = sc.fsGroupChangePolicy
  if (typeof fsPolicy === 'string' && !FS_GROUP_CHANGE_POLICIES.includes(fsPolicy)) {
    errs.push(notSupported([...p, 'fsGroupChangePolicy'], fsPolicy, FS_GROUP_CHANGE_POLICIES))
  }
  validateSeccompProfile(sc.seccompProfile, [...p, 'seccompProfile'], errs)
  const sgp = sc.supplementalGroupsPolicy
  if (typeof sgp === 'string' && !SUPPLEMENTAL_GROUPS_POLICIES.includes(sgp)) {
    errs.push(notSupported([...p, 'supplementalGroupsPolicy'], sgp, SUPPLEMENTAL_GROUPS_POLICIES))
  }
  const selinux = sc.seLinuxChangePolicy
  if (typeof selinux === 'string' && !SELINUX_CHANGE_POLICIES.includes(selinux)) {
    errs.push(notSupported([...p, 'seLinuxChangePolicy'], selinux, SELINUX_CHANGE_POLICIES))
  }
}

const NODE_SELECTOR_OPS_WITH_VALUES = ['In', 'NotIn']
const NODE_SELECTOR_OPS_WITHOUT_VALUES = ['Exists', 'DoesNotExist']

// upstream: ValidateNodeSelectorRequirement
function validateNodeSelectorRequirement(
  rq: Obj,
  checkValues: boolean,
  path: Path,
  errs: FieldError[],
): void {
  const op = str(rq.operator)
  const values = Array.isArray(rq.values) ? rq.values : []
  if (NODE_SELECTOR_OPS_WITH_VALUES.includes(op)) {
    if (values.length === 0)
      errs.push(required([...path, 'values'], "must be specified when `operator` is 'In' or 'NotIn'"))
  } else if (NODE_SELECTOR_OPS_WITHOUT_VALUES.includes(op)) {
    if (values.length > 0) {
      errs.push(
        forbidden([...path, 'values'], "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
      )
    }
  } else if (op === 'Gt' || op === 'Lt') {
    if (values.length !== 1) {
      errs.push(
        required([...path, 'values'], "must be specified single value when `operator` is 'Lt' or 'Gt'"),
      )
    }
  } else errs.push(invalid([...path, 'operator'], op, 'not a valid selector operator'))
  validateLabelName(str(rq.key), [...path, 'key'], errs)
  if (checkValues) {
    values.forEach((v, i) => {
      for (const m of isValidLabelValue(str(v))) errs.push(invalid([...path, 'values', i], v, m))
    })
  }
}

// upstream: ValidateNodeSelectorTerm (matchFields: only metadata.name, one value for In/NotIn)
function validateNodeSelectorTerm(term: Obj, checkValues: boolean, path: Path, errs: FieldError[]): void {
  objects(term.matchExpressions).forEach((rq, j) => {
    validateNodeSelectorRequirement(rq, checkValues, [...path, 'matchExpressions', j], errs)
  })
  objects(term.matchFields).forEach((rq, j) => {
    const p: PathElem[] = [...path, 'matchFields', j]
    const op = str(rq.operator)
    const values = Array.isArray(rq.values) ? rq.values : []
    if (op === 'In' || op === 'NotIn') {
      if (values.length !== 1) {
        errs.push(
          required(
            [...p, 'values'],
            "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
          ),
        )
      }
    } else errs.push(invalid([...p, 'operator'], op, 'not a valid selector operator'))
    if (str(rq.key) !== 'metadata.name')
      errs.push(invalid([...p, 'key'], str(rq.key), 'not a valid field selector key'))
    else
      values.forEach((v, i) => {
        validateSubdomain(str(v), [...p, 'values', i], errs)
      })
  })
}

function validateWeight(w: unknown, path: Path, errs: FieldError[]): void {
  const weight = num(w)
  if (weight <= 0 || weight > 100) errs.push(invalid(path, weight, 'must be in the range 1-100'))
}

// upstream: validatePodAffinityTerm
function validatePodAffinityTerm(term: Obj, path: Path, errs: FieldError[]): void {
  if (isObject(term.labelSelector))
    validateLabelSelector(term.labelSelector, [...path, 'labelSelector'], errs)
  if (isObject(term.namespaceSelector))
    validateLabelSelector(term.namespaceSelector, [...path, 'namespaceSelector'], errs)
  if (Array.isArray(term.namespaces)) {
    for (const ns of term.namespaces) {
      for (const m of isDNS1123Label(str(ns))) errs.push(invalid([...path, 'namespace'], str(ns), m))
    }
  }
  // upstream: validateMatchLabelKeysAndMismatchLabelKeys (the label-name and overlap checks)
  const selector = isObject(term.labelSelector) ? term.labelSelector : undefined
  const match = Array.isArray(term.matchLabelKeys) ? term.matchLabelKeys.map(str) : []
  const mismatch = Array.isArray(term.mismatchLabelKeys) ? term.mismatchLabelKeys.map(str) : []
  for (const [key, keys] of [
    ['matchLabelKeys', match],
    ['mismatchLabelKeys', mismatch],
  ] as const) {
    if (keys.length === 0) continue
    if (!selector) errs.push(forbidden([...path, key], 'must not be specified when labelSelector is not set'))
    else
      keys.forEach((k, i) => {
        validateLabelName(k, [...path, key, i], errs)
      })
  }
  match.forEach((k, i) => {
    if (mismatch.includes(k)) {
      errs.push(
        invalid([...path, 'matchLabelKeys', i], k, 'exists in both matchLabelKeys and mismatchLabelKeys'),
      )
    }
  })
  const topologyKey = str(term.topologyKey)
  if (topologyKey === '') errs.push(required([...path, 'topologyKey'], 'can not be empty'))
  validateLabelName(topologyKey, [...path, 'topologyKey'], errs)
}

// upstream: validateAffinity (node, pod and pod anti-affinity)
function validateAffinity(affinity: unknown, path: Path, errs: FieldError[]): void {
  if (!isObject(affinity)) return
  const na = affinity.nodeAffinity
  if (isObject(na)) {
    const np: PathElem[] = [...path, 'nodeAffinity']
    const req = na.requiredDuringSchedulingIgnoredDuringExecution
    if (isObject(req)) {
      const tp: PathElem[] = [...np, 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms']
      const terms = objects(req.nodeSelectorTerms)
      if (terms.length === 0) errs.push(required(tp, 'must have at least one node selector term'))
      terms.forEach((t, i) => {
        validateNodeSelectorTerm(t, true, [...tp, i], errs)
      })
    }
    objects(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const pp: PathElem[] = [...np, 'preferredDuringSchedulingIgnoredDuringExecution', i]
      validateWeight(t.weight, [...pp, 'weight'], errs)
      validateNodeSelectorTerm(isObject(t.preference) ? t.preference : {}, false, [...pp, 'preference'], errs)
    })
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const a = affinity[kind]
    if (!isObject(a)) continue
    const ap: PathElem[] = [...path, kind]
    objects(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      validatePodAffinityTerm(t, [...ap, 'requiredDuringSchedulingIgnoredDuringExecution', i], errs)
    })
    objects(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const wp: PathElem[] = [...ap, 'preferredDuringSchedulingIgnoredDuringExecution', i]
      validateWeight(t.weight, [...wp, 'weight'], errs)
      validatePodAffinityTerm(
        isObject(t.podAffinityTerm) ? t.podAffinityTerm : {},
        [...wp, 'podAffinityTerm'],
        errs,
      )
    })
  }
}

// upstream: validatePodDNSConfig (relaxed search names: RelaxedDNSSearchValidation, on from 1.33)
function validateDNSConfig(spec: Obj, path: Path, errs: FieldError[]): void {
  const config = spec.dnsConfig
  if (spec.dnsPolicy === 'None') {
    if (!isObject(config)) {
      errs.push(required(path, 'must provide `dnsConfig` when `dnsPolicy` is None'))
      return
    }
    if (!Array.isArray(config.nameservers) || config.nameservers.length === 0) {
      errs.push(
        required(
          [...path, 'nameservers'],
          'must provide at least one DNS nameserver when `dnsPolicy` is None',
        ),
      )
      return
    }
  }
  if (!isObject(config)) return
  const nameservers = Array.isArray(config.nameservers) ? config.nameservers.map(str) : []
  if (nameservers.length > 3)
    errs.push(invalid([...path, 'nameservers'], nameservers, 'must not have more than 3 nameservers'))
  nameservers.forEach((ns, i) => {
    validateIP(ns, [...path, 'nameservers', i], errs)
  })
  const searches = Array.isArray(config.searches) ? config.searches.map(str) : []
  if (searches.length > 32)
    errs.push(invalid([...path, 'searches'], searches, 'must not have more than 32 search paths'))
  if (searches.join(' ').length > 2048) {
    errs.push(
      invalid(
        [...path, 'searches'],
        searches,
        'must not have more than 2048 characters (including spaces) in the search list',
      ),
    )
  }
  searches.forEach((s, i) => {
    if (s === '.') return
    const name = s.endsWith('.') ? s.slice(0, -1) : s
    for (const m of isDNS1123SubdomainWithUnderscore(name))
      errs.push(invalid([...path, 'searches', i], name, m))
  })
  objects(config.options).forEach((o, i) => {
    if (str(o.name) === '') errs.push(required([...path, 'options', i], 'must not be empty'))
  })
}

const DNS1123_LABEL_US = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?'
const DNS1123_SUBDOMAIN_US = `${DNS1123_LABEL_US}(\\.${DNS1123_LABEL_US})*`
const DNS1123_SUBDOMAIN_US_RE = new RegExp(`^${DNS1123_SUBDOMAIN_US}$`)

// upstream: validation.IsDNS1123SubdomainWithUnderscore
function isDNS1123SubdomainWithUnderscore(v: string): string[] {
  const errs: string[] = []
  if (v.length > 253) errs.push('must be no more than 253 characters')
  if (!DNS1123_SUBDOMAIN_US_RE.test(v)) {
    errs.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN_US}')`,
    )
  }
  return errs
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute']

// upstream: ValidateTolerations
function validateTolerations(list: unknown, path: Path, errs: FieldError[]): void {
  objects(list).forEach((t, i) => {
    const p: PathElem[] = [...path, i]
    const key = str(t.key)
    const op = str(t.operator)
    const effect = str(t.effect)
    const value = str(t.value)
    if (key !== '') validateLabelName(key, [...p, 'key'], errs)
    if (key === '' && op !== 'Exists') {
      errs.push(
        invalid(
          [...p, 'operator'],
          op,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      )
    }
    if (typeof t.tolerationSeconds === 'number' && effect !== 'NoExecute') {
      errs.push(
        invalid([...p, 'effect'], effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      )
    }
    if (op === 'Equal' || op === '') {
      const msgs = isValidLabelValue(value)
      if (msgs.length > 0) errs.push(invalid([...p, 'operator'], value, msgs.join(';')))
    } else if (op === 'Exists') {
      if (value !== '')
        errs.push(invalid([...p, 'operator'], value, "value must be empty when `operator` is 'Exists'"))
    } else errs.push(notSupported([...p, 'operator'], op, ['Equal', 'Exists']))
    if (effect !== '' && !TAINT_EFFECTS.includes(effect))
      errs.push(notSupported([...p, 'effect'], effect, TAINT_EFFECTS))
  })
}

const SCHEDULE_ACTIONS = ['DoNotSchedule', 'ScheduleAnyway']
const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore']

// upstream: validateTopologySpreadConstraints
function validateTopologySpread(list: unknown, path: Path, errs: FieldError[]): void {
  const constraints = objects(list)
  constraints.forEach((c, i) => {
    const p: PathElem[] = [...path, i]
    const maxSkew = num(c.maxSkew)
    if (maxSkew <= 0) errs.push(invalid([...p, 'maxSkew'], maxSkew, 'must be greater than zero'))
    const key = str(c.topologyKey)
    if (key === '') errs.push(required([...p, 'topologyKey'], 'can not be empty'))
    const action = str(c.whenUnsatisfiable)
    if (!SCHEDULE_ACTIONS.includes(action))
      errs.push(notSupported([...p, 'whenUnsatisfiable'], action, SCHEDULE_ACTIONS))
    if (
      constraints.slice(i + 1).some((r) => str(r.topologyKey) === key && str(r.whenUnsatisfiable) === action)
    ) {
      errs.push(duplicate([...p, '{topologyKey, whenUnsatisfiable}'], `{${key}, ${action}}`))
    }
    if (typeof c.minDomains === 'number') {
      if (c.minDomains <= 0)
        errs.push(invalid([...p, 'minDomains'], c.minDomains, 'must be greater than zero'))
      if (action !== 'DoNotSchedule') {
        errs.push(
          invalid(
            [...p, 'minDomains'],
            c.minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`,
          ),
        )
      }
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const) {
      const v = c[f]
      if (typeof v === 'string' && !NODE_INCLUSION_POLICIES.includes(v))
        errs.push(notSupported([...p, f], v, NODE_INCLUSION_POLICIES))
    }
    const selector = isObject(c.labelSelector) ? c.labelSelector : undefined
    const keys = Array.isArray(c.matchLabelKeys) ? c.matchLabelKeys.map(str) : []
    if (keys.length > 0) {
      const inSelector = new Set<string>()
      if (selector) {
        if (isObject(selector.matchLabels))
          for (const k of Object.keys(selector.matchLabels)) inSelector.add(k)
        for (const e of objects(selector.matchExpressions)) inSelector.add(str(e.key))
      } else
        errs.push(forbidden([...p, 'matchLabelKeys'], 'must not be specified when labelSelector is not set'))
      keys.forEach((k, j) => {
        validateLabelName(k, [...p, 'matchLabelKeys', j], errs)
        if (inSelector.has(k))
          errs.push(
            invalid([...p, 'matchLabelKeys', j], k, 'exists in both matchLabelKeys and labelSelector'),
          )
      })
    }
    if (selector) validateLabelSelector(selector, [...p, 'labelSelector'], errs)
  })
}

// upstream: ValidatePodSpec
export function validatePodSpec(
  spec: Obj,
  path: Path,
  errs: FieldError[],
  opts: ValidationOptions = {},
  isPod = false,
): void {
  const enabled = opts.enabled ?? (() => false)
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    errs.push(required([...path, 'terminationGracePeriodSeconds']))
  }
  const grace =
    typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : undefined
  const volumes = validateVolumes(spec.volumes, [...path, 'volumes'], errs)
  const claims = new Set(
    objects(spec.resourceClaims)
      .map((c) => str(c.name))
      .filter((n) => n !== ''),
  )
  validatePodResourceClaims(spec.resourceClaims, [...path, 'resourceClaims'], errs)
  const ctx: PodContext = {
    volumes,
    claims,
    gracePeriod: grace,
    restartPolicy: str(spec.restartPolicy),
    hostUsers: spec.hostUsers !== false,
    enabled,
  }
  validateContainers(spec.containers, [...path, 'containers'], ctx, errs)
  validateInitContainers(spec.initContainers, spec.containers, [...path, 'initContainers'], ctx, errs)
  if (isObject(spec.resources) && enabled('PodLevelResources')) {
    if (spec.resources.claims !== undefined) {
      errs.push(
        forbidden([...path, 'resources', 'claims'], 'claims cannot be set for Resources at pod-level'),
      )
    }
    validateResourceRequirements(spec.resources, claims, [...path, 'resources'], errs, false)
  }
  validateHostNetworkDeps(spec, path, isPod, errs)
  const rp = str(spec.restartPolicy)
  if (rp === '') errs.push(required([...path, 'restartPolicy']))
  else if (!RESTART_POLICIES.includes(rp))
    errs.push(notSupported([...path, 'restartPolicy'], rp, RESTART_POLICIES))
  const dns = str(spec.dnsPolicy)
  if (dns === '') errs.push(required([...path, 'dnsPolicy']))
  else if (!DNS_POLICIES.includes(dns)) errs.push(notSupported([...path, 'dnsPolicy'], dns, DNS_POLICIES))
  validateLabels(spec.nodeSelector, [...path, 'nodeSelector'], errs)
  validatePodSecurityContext(spec, path, errs)
  validateAffinity(spec.affinity, [...path, 'affinity'], errs)
  validateDNSConfig(spec, [...path, 'dnsConfig'], errs)
  objects(spec.readinessGates).forEach((g, i) => {
    validateLabelName(str(g.conditionType), [...path, 'readinessGates', i, 'conditionType'], errs)
  })
  const gates = new Set<string>()
  objects(spec.schedulingGates).forEach((g, i) => {
    const name = str(g.name)
    validateLabelName(name, [...path, 'schedulingGates', i], errs)
    if (gates.has(name)) errs.push(duplicate([...path, 'schedulingGates', i], name))
    gates.add(name)
  })
  validateTopologySpread(spec.topologySpreadConstraints, [...path, 'topologySpreadConstraints'], errs)
  // upstream: validateHostUsers
  if (spec.hostUsers === false) {
    if (spec.hostNetwork === true)
      errs.push(forbidden([...path, 'hostNetwork'], 'when `pod.Spec.HostUsers` is false'))
    if (spec.hostPID === true)
      errs.push(forbidden([...path, 'HostPID'], 'when `pod.Spec.HostUsers` is false'))
    if (spec.hostIPC === true)
      errs.push(forbidden([...path, 'HostIPC'], 'when `pod.Spec.HostUsers` is false'))
  }
  validateSubdomainField(spec.serviceAccountName, [...path, 'serviceAccountName'], errs)
  validateSubdomainField(spec.nodeName, [...path, 'nodeName'], errs)
  if (typeof spec.activeDeadlineSeconds === 'number') {
    const v = spec.activeDeadlineSeconds
    if (v < 1 || v > MAX_INT32)
      errs.push(invalid([...path, 'activeDeadlineSeconds'], v, inclusiveRangeError(1, MAX_INT32)))
  }
  for (const f of ['hostname', 'subdomain'] as const) {
    const v = str(spec[f])
    if (v !== '') for (const m of isDNS1123Label(v)) errs.push(invalid([...path, f], v, m))
  }
  validateTolerations(spec.tolerations, [...path, 'tolerations'], errs)
  objects(spec.hostAliases).forEach((a, i) => {
    validateIP(str(a.ip), [...path, 'hostAliases', i, 'ip'], errs)
    if (Array.isArray(a.hostnames)) {
      a.hostnames.forEach((h, j) => {
        for (const m of isDNS1123Subdomain(str(h)))
          errs.push(invalid([...path, 'hostAliases', i, 'hostnames', j], str(h), m))
      })
    }
  })
  validateSubdomainField(spec.priorityClassName, [...path, 'priorityClassName'], errs)
  if (typeof spec.runtimeClassName === 'string') {
    for (const m of isDNS1123Subdomain(spec.runtimeClassName)) {
      errs.push(invalid([...path, 'runtimeClassName'], spec.runtimeClassName, m))
    }
  }
  if (typeof spec.preemptionPolicy === 'string') {
    const pp = spec.preemptionPolicy
    if (pp === '') errs.push(required([...path, 'preemptionPolicy']))
    else if (pp !== 'PreemptLowerPriority' && pp !== 'Never') {
      errs.push(notSupported([...path, 'preemptionPolicy'], pp, ['PreemptLowerPriority', 'Never']))
    }
  }
  if (isObject(spec.overhead))
    validateResourceRequirements({limits: spec.overhead}, claims, [...path, 'overhead'], errs)
  // upstream: validateOS
  if (isObject(spec.os)) {
    const name = str(spec.os.name)
    if (name === '') errs.push(required([...path, 'os', 'name'], 'cannot be empty'))
    else if (name !== 'linux' && name !== 'windows')
      errs.push(notSupported([...path, 'os'], name, ['linux', 'windows']))
  }
}
