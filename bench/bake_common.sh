# Shared by the bake bench scripts (sourced).

# The folder run I bakes into, under BASE. On this project's VMs /tmp is ext4 mounted without a
# journal, where creating a file skips every inode deleted in the last 1-6 minutes, one buffer
# lookup each: deleting a bake's 2,300 tiles right before the next run made that run's file
# creation cost up to 2 s (docs/sampling.md, "Disk figures on these VMs"). So runs on disk keep
# their output until the script exits; on tmpfs the previous run is deleted to save memory.
run_output() {
  local base=$1 i=$2
  if [[ $(stat -f -c %T "$base") == tmpfs ]]; then rm -rf "$base"/run*; fi
  echo "$base/run$i"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
