// The krew Plugin manifest (krew.googlecontainertools.github.com/v1alpha2) for the archives built:
// one platform per archive, selected by os and arch, with its download address and sha256. krew
// links `bin` into its bin directory as kubectl-deployctl; it cannot link a second executable, so
// the completion helper's one manual step is in caveats (krew issue 812).
import {stringify} from 'yaml'

const SHORT = "Run the Deployment controller's logic on demand"

const DESCRIPTION = `Runs the logic of kube-controller-manager's Deployment controller (a
decision-for-decision port of pkg/controller/deployment) whenever you ask for it, on a live
cluster or on a snapshot in files:
- dry-run sync: what one controller pass would write, which events it would record, when it
  would requeue the Deployment;
- explain: why a rollout is where it is, the numbers behind each step, what happens next;
- reconcile-once: the same pass, applied;
- rollout watch: a live or simulated view of a rollout;
- run: be the Deployment controller where a cluster has none.
`

const CAVEATS = `Completion through kubectl (kubectl 1.26 or newer) needs the helper
kubectl_complete-deployctl on your PATH, and krew cannot put it there.
Link it once (and again after an upgrade if the path changes):

  ln -sf "$(dirname "$(readlink -f "$(command -v kubectl-deployctl)")")/kubectl_complete-deployctl" \\
    "\${KREW_ROOT:-$HOME/.krew}/bin/kubectl_complete-deployctl"

On Windows, copy kubectl_complete-deployctl.cmd from the plugin's directory
(%USERPROFILE%\\.krew\\store\\deployctl\\<version>) into %USERPROFILE%\\.krew\\bin.
`

/**
 * @param {{pjson: {version: string}, tag: string, releaseUrl: string,
 *   built: Array<{os: string, arch: string, archive: string, sha256: string, bin: string, files: string[]}>}} o
 */
export function krewManifest({pjson, tag, releaseUrl, built}) {
  const uri = (file) =>
    releaseUrl.replaceAll('{tag}', tag).replaceAll('{version}', pjson.version).replaceAll('{file}', file)
  const doc = {
    apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
    kind: 'Plugin',
    metadata: {name: 'deployctl'},
    spec: {
      version: tag,
      ...(pjson.homepage ? {homepage: pjson.homepage} : {}),
      shortDescription: SHORT,
      description: DESCRIPTION,
      caveats: CAVEATS,
      platforms: built.map((p) => ({
        selector: {matchLabels: {os: p.os, arch: p.arch}},
        uri: uri(p.archive),
        sha256: p.sha256,
        bin: p.bin,
        files: p.files.map((f) => ({from: f, to: '.'})),
      })),
    },
  }
  return stringify(doc, {lineWidth: 0})
}
