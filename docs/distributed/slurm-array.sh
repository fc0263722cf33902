#!/usr/bin/env bash
# One shard of a sharded bake per Slurm array task (docs/distributed.md). Submit with
# slurm-submit.sh, which also queues the merge; or by hand:
#   sbatch --array=1-16 --export=ALL,CONFIG=/shared/world/world.json,OUT=/shared/bakes/world \
#          docs/distributed/slurm-array.sh
# Any --array range works (0-15, 1-16, 10-160:10): --shard auto counts from
# SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP, and SLURM_ARRAY_TASK_COUNT is N.
#SBATCH --job-name=ecobake-shard
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=04:00:00
#SBATCH --requeue
set -euo pipefail
: "${CONFIG:?set CONFIG to the biome config (paths in it are relative to it)}"
: "${OUT:?set OUT to the merged bake folder; parts go to OUT.parts/}"
ECOBAKE=${ECOBAKE:-ecobake}
# Parts are named by the task id; the part manifests, not the names, say which shard is which.
exec "$ECOBAKE" bake "$CONFIG" -o "$OUT.parts/task-$SLURM_ARRAY_TASK_ID" --shard auto -j "${SLURM_CPUS_PER_TASK:-1}"
