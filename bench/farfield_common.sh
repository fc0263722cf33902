# Shared by the viewer's picture scripts (the far-field and LOD-step benches, scripts/gallery.sh;
# sourced).

# Vulkan for ecoview: Mesa lavapipe unless VK_ICD_FILENAMES is set, and the runtime directory
# the loader and the windowing stack want (a private temporary one where none is set).
use_vulkan() {
  export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
  chmod 700 "$XDG_RUNTIME_DIR"
}

# The gallery's forest cameras: the sample's beech forest around (2000, 3500) seen from the
# south at about KM kilometres, 25 degrees down (high enough to clear the slopes between).
# Prints x,y,z,yaw,pitch for --camera; a KM that is not a positive number is an error.
forest_camera() {
  local km=$1
  [[ $km =~ ^[0-9]+([.][0-9]+)?$ ]] && awk "BEGIN { exit !($km > 0) }" || { echo "not a distance in km: '$km'" >&2; return 2; }
  awk "BEGIN { print \"2000,\" 700 + 420 * $km \",\" 3500 + 900 * $km \",0,-25\" }"
}

# quiet ECOVIEW ARGS...: runs a program with its log hidden; if it fails, its last line that is
# not a log line ("[time] [level] ...") goes to stderr, and the status is returned.
quiet() {
  local log status=0
  log=$(mktemp)
  "$@" >/dev/null 2>"$log" || status=$?
  [[ $status -eq 0 ]] || echo "$(basename "$1") failed ($status): $(grep -v '^\[' "$log" | tail -n 1)" >&2
  rm -f "$log"
  return "$status"
}

# Every species of a bake, comma-separated (for --hide).
bake_species() {
  /usr/bin/python3 -c "import json,sys; print(','.join(s['name'] for s in json.load(open(sys.argv[1]))['species']))" "$1/manifest.json"
}
