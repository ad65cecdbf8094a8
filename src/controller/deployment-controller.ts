// upstream: pkg/controller/deployment/deployment_controller.go (the sync handler and ownership).
import type {ControllerContext} from './interfaces.js'

/**
 * One pass of the controller for the Deployment namespace/name. Resolves when the pass succeeds;
 * rejects with the error upstream's syncDeployment would return (the caller rate-limits the key).
 * Writes go through ctx.client, events through ctx.recorder, requeues through ctx.queue.
 */
// upstream: syncDeployment
export async function syncDeployment(ctx: ControllerContext, namespace: string, name: string): Promise<void> {
  ctx.trace.enter('syncDeployment')
  void namespace
  void name
  throw new Error('syncDeployment: port in progress')
}
