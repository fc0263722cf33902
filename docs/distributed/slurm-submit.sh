#!/usr/bin/env bash
# Submits a sharded bake to Slurm: an array of N shards, then the merge once every shard has
# succeeded (docs/distributed.md).
# Usage: docs/distributed/slurm-submit.sh CONFIG OUT N [extra sbatch options...]
#   CONFIG and OUT on a file system every node mounts; the parts go to OUT.parts/.
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 CONFIG OUT N [sbatch options...]" >&2
  exit 2
fi
config=$(realpath "$1") out=$(realpath -m "$2") n=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
ecobake=${ECOBAKE:-$(command -v ecobake || true)}
[[ -n "$ecobake" ]] || { echo "$0: ecobake is not on PATH; set ECOBAKE" >&2; exit 2; }
shards=$(sbatch --parsable --array="1-$n" --export="ALL,CONFIG=$config,OUT=$out,ECOBAKE=$ecobake" "$@" \
  "$here/slurm-array.sh")
shards=${shards%%;*}  # "jobid;cluster" on multi-cluster set-ups
# --kill-on-invalid-dep: a failed shard cancels the merge instead of leaving it pending.
merge=$(sbatch --parsable --dependency="afterok:$shards" --kill-on-invalid-dep=yes --job-name=ecobake-merge "$@" \
  --wrap "exec '$ecobake' merge '$out.parts' -o '$out'")
echo "shards: job $shards (array 1-$n), merge: job ${merge%%;*} -> $out"
