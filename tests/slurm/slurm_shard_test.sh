#!/usr/bin/env bash
# A sharded bake as a Slurm job array on a private single-node cluster (issue #19): munged,
# slurmctld and slurmd started here with their own key, sockets, ports and state under a
# scratch folder (nothing in /etc is read or changed), docs/distributed/slurm-submit.sh submits
# the array and the dependent merge, and the merge must equal a one-process bake (diff -r).
# Usage: slurm_shard_test.sh ECOBAKE SOURCE_DIR SCRATCH
# Exit 77 (ctest: skipped) where Slurm or munge is not installed or cannot start here.
set -euo pipefail
ecobake=$(realpath "$1") source=$(realpath "$2") scratch=$3
skip() { echo "SKIP: $*"; exit 77; }
for tool in munged slurmctld slurmd sbatch squeue scontrol mungekey; do
  command -v "$tool" >/dev/null || PATH=$PATH:/usr/sbin
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: slurmctld slurmd slurm-client munge)"
done
[[ $(id -u) -eq 0 ]] || skip "a private slurmd must run as root here"

rm -rf "$scratch"
mkdir -p "$scratch"/{munge,state,spool,logs}
scratch=$(cd "$scratch" && pwd)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

# munge with its own key and socket.
mungekey --create --keyfile="$scratch/munge/munge.key" >/dev/null 2>&1 || skip "mungekey failed"
chmod 600 "$scratch/munge/munge.key"
munged --foreground --force --key-file="$scratch/munge/munge.key" --socket="$scratch/munge/socket" \
  --pid-file="$scratch/munge/pid" --seed-file="$scratch/munge/seed" >"$scratch/logs/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [[ -S "$scratch/munge/socket" ]] && break; sleep 0.1; done
[[ -S "$scratch/munge/socket" ]] || skip "munged did not start: $(tail -2 "$scratch/logs/munged.log" 2>/dev/null)"

# Free ports: the first pair from 16817 that nothing listens on.
port=16817
while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null || (echo >"/dev/tcp/127.0.0.1/$((port + 1))") 2>/dev/null; do
  port=$((port + 2))
done
host=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)  # MB, for --mem
export SLURM_CONF=$scratch/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=ecobaketest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$scratch/munge/socket
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool/%n
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/logs/slurmctld.log
SlurmdLogFile=$scratch/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" >>"$scratch/logs/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$scratch/logs/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
  sinfo -h -o %T 2>/dev/null | grep -qE "^(idle|mixed)" && break
  sleep 0.2
done
sinfo -h -o %T 2>/dev/null | grep -qE "^(idle|mixed)" ||
  skip "slurmctld/slurmd did not come up: $(tail -3 "$scratch/logs/slurmctld.log" "$scratch/logs/slurmd.log" 2>/dev/null | tr '\n' ' ')"

# The world: the sample config's tiles 0..7 would need --tiles, so a small world of its own:
# the repository's sample terrain with the sample config, baked whole in one process first.
config=$source/configs/temperate_mountain.json
"$ecobake" bake "$config" -o "$scratch/full" -q -j "$cpus"
cd "$scratch"
ECOBAKE=$ecobake "$source/docs/distributed/slurm-submit.sh" "$config" "$scratch/world" 3 \
  --cpus-per-task=1 --output="$scratch/logs/job-%A_%a.out" | tee "$scratch/submit.out"
merge=$(sed -E 's/.*merge: job ([0-9]+).*/\1/' "$scratch/submit.out")
for _ in $(seq 600); do
  state=$(scontrol show job "$merge" 2>/dev/null | sed -nE 's/.*JobState=([A-Z_]+).*/\1/p')
  [[ "$state" == COMPLETED || "$state" == FAILED || "$state" == CANCELLED || "$state" == TIMEOUT ]] && break
  sleep 0.5
done
if [[ "$state" != COMPLETED ]]; then
  echo "FAIL: merge job $merge ended $state"
  tail -n 5 "$scratch"/logs/job-* 2>/dev/null
  exit 1
fi
ls "$scratch/world.parts"
diff -r "$scratch/full" "$scratch/world"
echo "PASS: Slurm array of 3 shards + merge == one-process bake"
rm -rf "$scratch/full" "$scratch/world" "$scratch/world.parts"  # the logs stay
