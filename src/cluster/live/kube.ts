// The one place client-node enters live mode. The build replaces this module's output with an
// esbuild bundle of it (scripts/bundle-kube.mjs): importing client-node's 967 files costs about
// 0.7 s per process, the bundle about a fifth of that, and every live command pays it.
export {KubeConfig} from '@kubernetes/client-node'
