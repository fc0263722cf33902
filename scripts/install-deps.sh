#!/usr/bin/env bash
# Installs exactly the Debian packages ecobake/ecoview need that are missing.
# Idempotent; works as root or through sudo. Usage: scripts/install-deps.sh [--tests]
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libcli11-dev libstb-dev libtinyexr-dev nlohmann-json3-dev libxxhash-dev libtiff-dev
  libtinygltf-dev libmeshoptimizer-dev
  libflatbuffers-dev flatbuffers-compiler
  libvulkan-dev libvulkan-volk-dev libglfw3-dev glslc libimgui-dev
  libspdlog-dev libgtest-dev libbenchmark-dev
  mesa-vulkan-drivers vulkan-tools xvfb xauth
)
if [[ "${1:-}" == "--tests" ]]; then
  packages+=(vulkan-validationlayers python3 python3-jsonschema)
  # python/ecobake (the Python reader) and its test
  packages+=(python3-numpy python3-flatbuffers python3-xxhash)
  # tests/python/reader_test.py reads the CSV export with pandas too, as its users do
  packages+=(python3-pandas)
  # tests/python/report_test.py checks ecobake report's statistics with scipy
  packages+=(python3-scipy)
  # tests/ci/report_browser_test.sh opens ecobake report's page in headless Chromium
  packages+=(chromium)
  # tests/blender: the Blender importer run headless (Debian's blender 3.4 runs on the system
  # python3.11, so it sees the reader's modules above)
  packages+=(blender)
  # tests/interop (USD and glTF exports read by npm's glTF validator, glTF-Transform and
  # TinyUSDZ): Node.js and npm, unless a Node.js with npm is already there (NodeSource's
  # nodejs ships npm and conflicts with Debian's npm package).
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    packages+=(nodejs npm)
  fi
  # render_frames_test resizes the viewer's window under Xvfb
  packages+=(xdotool)
  # cli_shard_test runs the shards of a bake through GNU parallel (skipped without it)
  packages+=(parallel)
  # tests/slurm: the same as a Slurm job array on a private single-node cluster
  packages+=(slurmctld slurmd slurm-client munge)
  # scripts/fuzz.sh: clang with libFuzzer and the sanitizer runtimes (a Recommends of clang,
  # so named here for --no-install-recommends), zlib for the fuzz build's own tinyexr.
  packages+=(clang libclang-rt-14-dev zlib1g-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
