#!/bin/sh
# Builds binaries of an earlier commit, for a benchmark that runs them beside this commit's:
#   scripts/baseline-bins.sh <commit> <out-dir> <binary>...
# The commit is checked out in a worktree under .local/baseline/, built in release with this
# checkout's target directory (the dependencies, same versions and features, are not compiled
# again), and its binaries are copied to <out-dir>. Nothing is built when <out-dir> already has
# them for that commit.
set -eu
commit=$(git rev-parse --short "$1"); out=$2; shift 2
if [ -f "$out/.commit" ] && [ "$(cat "$out/.commit")" = "$commit" ]; then
  missing=0; for bin in "$@"; do [ -x "$out/$bin" ] || missing=1; done
  [ "$missing" = 0 ] && exit 0
fi
root=$(pwd)
tree=.local/baseline/$commit
if [ ! -d "$tree" ]; then
  git worktree prune
  git worktree add --detach "$tree" "$commit" >/dev/null
fi
args=""; for bin in "$@"; do args="$args --bin $bin"; done
# The copies would be overwritten by this commit's build of the same binaries.
(cd "$tree" && CARGO_TARGET_DIR="$root/target" cargo build --release --quiet $args)
mkdir -p "$out"
for bin in "$@"; do cp "target/release/$bin" "$out/$bin"; done
echo "$commit" > "$out/.commit"
