#!/usr/bin/env bash
# `npm run setup`: installs the dependencies on the project's own Node release (.node-version),
# whatever Node the machine has, so npm checks every package's engines against the release that
# will run it. Then node_modules/.bin/node is that release and every npm script runs on it.
set -euo pipefail
cd "$(dirname "$0")/../.."
runtime="$(bash tooling/runtime/node-runtime.sh)"
PATH="$runtime/bin:$PATH" npm ci --no-audit --no-fund "$@"
echo "keyhook: dependencies installed; npm scripts run on node $(node_modules/.bin/node --version)"
