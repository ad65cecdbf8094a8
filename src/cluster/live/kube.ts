// The one place client-node enters live mode, behind a dynamic import: the bundle (scripts/bundle.mjs)
// then keeps client-node's 1.6 MB in its own chunk, which only live commands load.
export {KubeConfig} from '@kubernetes/client-node'
