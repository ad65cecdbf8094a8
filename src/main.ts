// The entry bin/run.cjs loads: oclif's runtime, bundled with the commands so that there is one copy.
// Subpath imports (here and in the commands) skip @oclif/core's index, which loads every part of
// oclif and checks the engine version with semver on each start.
export {execute} from '@oclif/core/execute'
