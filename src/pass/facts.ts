// Typed reads of the facts a pass recorded (the contract is src/controller/trace.ts): the last or
// every value under a name, with the type the controller recorded it with.

import type {Branch, Fact, FactName, FactValues} from '../controller/trace.js'
import type {DeploymentResult} from './result.js'

/** The facts of one Deployment's pass. */
export class Facts {
  private readonly list: readonly Fact[]

  constructor(result: DeploymentResult) {
    this.list = result.facts ?? []
  }

  /** The last value recorded under `name`. */
  last<N extends FactName>(name: N): FactValues[N] | undefined {
    for (let i = this.list.length - 1; i >= 0; i--) {
      const f = this.list[i]!
      if (f.name === name) return f.value as FactValues[N]
    }
    return undefined
  }

  /** Every value recorded under `name`, in order. */
  all<N extends FactName>(name: N): Array<FactValues[N]> {
    return this.list.filter((f) => f.name === name).map((f) => f.value as FactValues[N])
  }

  has(name: FactName): boolean {
    return this.list.some((f) => f.name === name)
  }

  branch(): Branch | undefined {
    return this.last('branch')
  }
}
