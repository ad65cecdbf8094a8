// The simulated nodes as Node objects: what a kubelet registers for itself (upstream: kubelet's
// initialNode and its node status setters), so that a simulated cluster serves nodes as a real one
// does: the labels a kubelet sets, capacity and allocatable, the Ready condition, addresses and the
// node info `kubectl get nodes -o wide` shows. A node of a GPU pool also has what NVIDIA's device
// plugin advertises (nvidia.com/gpu in capacity and allocatable) and the label its GPU feature
// discovery sets (nvidia.com/gpu.present), as GPU nodes of a real cluster have them.

import type {ClusterObject} from '../cluster/world.js'
import {formatTime} from '../util/duration.js'
import {nodeLabels} from './pods.js'

/** What one simulated node has (a mid-size cloud VM); every simulated node is alike. */
export const NODE_CAPACITY = {cpu: '4', memory: '16Gi', pods: '110', ephemeralStorage: '100Gi'}
/**
 * allocatable = capacity minus the kubelet's default hard eviction thresholds (no kube-reserved or
 * system-reserved by default): memory.available<100Mi, nodefs.available<10%.
 */
const MEMORY_KI = 16 * 1024 * 1024
const EVICTION_MEMORY_KI = 100 * 1024
const STORAGE_BYTES = 100 * 1024 ** 3

/** The extended resource NVIDIA's device plugin registers with the kubelet. */
export const GPU_RESOURCE = 'nvidia.com/gpu'

/** What makes a node of a pool different: `gpus`, the GPUs its device plugin advertises. */
export interface NodePool {
  gpus?: number
}

/** The Node object a kubelet on `name` registers and keeps reporting (the n-th node of the cluster). */
export function simulatedNode(
  name: string,
  index: number,
  created: number,
  kubeletVersion = 'v1.36.3',
  pool: NodePool = {},
): ClusterObject & {metadata: {name: string; labels: Record<string, string>}} {
  const gpus = pool.gpus ? {[GPU_RESOURCE]: String(pool.gpus)} : {}
  const at = formatTime(created)
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: at,
    lastTransitionTime: at,
    reason,
    message,
  })
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {...nodeLabels(name), ...(pool.gpus ? {'nvidia.com/gpu.present': 'true'} : {})},
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
      creationTimestamp: at,
    },
    spec: {podCIDR: `10.244.${index}.0/24`, podCIDRs: [`10.244.${index}.0/24`]},
    status: {
      capacity: {
        cpu: NODE_CAPACITY.cpu,
        'ephemeral-storage': `${STORAGE_BYTES / 1024}Ki`,
        memory: `${MEMORY_KI}Ki`,
        ...gpus,
        pods: NODE_CAPACITY.pods,
      },
      allocatable: {
        cpu: NODE_CAPACITY.cpu,
        'ephemeral-storage': String(Math.floor(STORAGE_BYTES * 0.9)),
        memory: `${MEMORY_KI - EVICTION_MEMORY_KI}Ki`,
        ...gpus,
        pods: NODE_CAPACITY.pods,
      },
      conditions: [
        condition(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
        ),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        {type: 'InternalIP', address: `172.18.0.${index + 2}`},
        {type: 'Hostname', address: name},
      ],
      daemonEndpoints: {kubeletEndpoint: {Port: 10250}},
      nodeInfo: {
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '6.8.0-generic',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://2.1.1',
        kubeletVersion,
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  }
}
