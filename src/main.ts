// The entry bin/run.js loads: oclif's runtime, bundled with the commands so that there is one copy.
export {execute} from '@oclif/core'
