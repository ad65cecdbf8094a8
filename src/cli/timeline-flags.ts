// --at: the moment of a timeline input (-f FILE recorded by `rollout record`, or kubectl's watch
// streams) that a command reads, and the controller's clock. Kept light (only oclif's flag builder)
// like the other flag groups; what the flag does happens in ./timeline-options.ts.

import * as Flags from '@oclif/core/flags'

export const timelineFlags = {
  at: Flags.string({
    helpValue: 'TIME|+D|-D',
    description:
      "With a timeline (-f FILE from rollout record): the moment to read, an RFC 3339 time, +5m from its start or -2m from its end (default: its end); the controller's clock is set to it.",
  }),
}

export interface TimelineFlagValues {
  at?: string
}
