// upstream: HealthzAdaptor — ties /healthz to leader election, which may start after the HTTP
// server: healthy until an elector is set, then unhealthy only while this replica holds the lease
// without having renewed it for the lease duration plus the timeout (it should have exited; a
// deadlock can prevent that, and the kubelet's liveness probe then restarts it).

import type {LeaderElector} from './leaderelection.js'

/** kube-controller-manager's tolerance beyond the lease duration. */
export const KCM_HEALTHZ_TIMEOUT_MS = 20_000

export class HealthzAdaptor {
  private elector: LeaderElector | undefined

  constructor(readonly timeoutMs: number = KCM_HEALTHZ_TIMEOUT_MS) {}

  /** upstream: Name */
  readonly name = 'leaderElection'

  setLeaderElection(elector: LeaderElector): void {
    this.elector = elector
  }

  /** upstream: Check — undefined when healthy. */
  check(): Error | undefined {
    return this.elector?.check(this.timeoutMs)
  }
}
