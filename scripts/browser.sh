#!/usr/bin/env bash
# `make browser`: the explorer (`/_local/explorer`) in a real headless browser, Debian's Chromium
# driven by Selenium (tests/browser/explorer.py), against the local stack over the seeded table.
# BROWSER_SCREENSHOT=PATH also saves a screenshot (the README's is docs/explorer.png).
#
#   scripts/browser.sh DDB_ENDPOINT   (DynamoDB Local running there; binaries built: cargo build --bins)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

endpoint=${1:?usage: $0 DDB_ENDPOINT}
. scripts/stack.sh
start_stack "$endpoint" .local/browser-stack.log browser
AWS_ENDPOINT_URL_DYNAMODB=$endpoint target/debug/seed --endpoint "$endpoint" --table "$table" >/dev/null
.venv/bin/python tests/browser/explorer.py "http://127.0.0.1:$port" ${BROWSER_SCREENSHOT:+"$BROWSER_SCREENSHOT"}
