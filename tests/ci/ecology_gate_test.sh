#!/usr/bin/env bash
# docs/ci.md's job run for real (scripts/ecology_gate.sh) on the sample configs: unchanged
# configs pass (exit 0), a changed seed fails the gate (3) and names the species, a broken
# config is exit 2. The configs sit beside a link to samples/ as they do in a checkout.
# Usage: tests/ci/ecology_gate_test.sh ECOBAKE SOURCE_DIR SCRATCH_DIR
set -uo pipefail
ecobake=$1 source=$2 scratch=$3
rm -rf "$scratch"
mkdir -p "$scratch/base" "$scratch/head"
ln -s "$source/samples" "$scratch/samples"
cp "$source"/configs/*.json "$scratch/base/"
cp "$source"/configs/*.json "$scratch/head/"
gate() { "$source/scripts/ecology_gate.sh" "$ecobake" "$scratch/base" "$scratch/head" "$scratch/out$1" 2 10,10,13,13 >"$scratch/log$1" 2>&1; }
fail() { echo "FAIL: $*"; cat "$scratch/log$run"; exit 1; }

run=1; gate 1; rc=$?
((rc == 0)) || fail "unchanged configs: exit $rc"
grep -q "0 differ, 0 only in A, 0 only in B" "$scratch/log1" || fail "unchanged configs: tiles differ"

run=2
sed -i 's/"seed": 1,/"seed": 5,/' "$scratch/head/temperate_mountain.json"
grep -q '"seed": 5,' "$scratch/head/temperate_mountain.json" || fail "the fixture could not change the seed"
gate 2; rc=$?
((rc == 3)) || fail "a changed seed: exit $rc, expected 3"
grep -q "over the threshold" "$scratch/log2" || fail "a changed seed: no species over the threshold"
[[ -s $scratch/out2/temperate_mountain.diff.json ]] || fail "no JSON diff kept for the artifact"
[[ -s $scratch/out2/temperate_mountain.report/index.html ]] || fail "no report of the change kept for the artifact"
[[ -s $scratch/out2/temperate_mountain.moved/index.html ]] || fail "no moved-density page kept for the artifact"

run=3
echo '{"name": "broken"' >"$scratch/head/broken.json"
gate 3; rc=$?
((rc == 2)) || fail "a broken config: exit $rc, expected 2"
echo "ecology gate: unchanged 0, changed seed 3, broken config 2"
