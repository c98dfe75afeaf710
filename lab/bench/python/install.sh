#!/usr/bin/env bash
# Installs the Python peer's requirements into a venv at .local/bench-python (git-ignored).
# Idempotent: a stamp holding a copy of requirements.txt (and the interpreter's version) says
# what is installed; when it matches, nothing is done.
#
#   lab/bench/python/install.sh      # prints the venv's python
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="$root/.local/bench-python"
python=${PYTHON:-python3}
stamp="$venv/.installed"

want="$("$python" -c 'import sys; print(sys.version.split()[0])')
$(cat "$here/requirements.txt")"

if [[ -x $venv/bin/python && -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
    echo "$venv/bin/python"
    exit 0
fi
rm -rf "$venv"
mkdir -p "$root/.local"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-virtualenv -r "$here/requirements.txt" >&2
"$venv/bin/python" -c 'import boto3' # fails the install if the SDK does not import
printf '%s' "$want" >"$stamp"
echo "$venv/bin/python"
