# Shared by the far-field bench scripts and scripts/gallery.sh (sourced).

# The gallery's forest cameras: the sample's beech forest around (2000, 3500) seen from the
# south at about KM kilometres, 25 degrees down (high enough to clear the slopes between).
# Prints x,y,z,yaw,pitch for --camera; a KM that is not a positive number is an error.
forest_camera() {
  local km=$1
  [[ $km =~ ^[0-9]+([.][0-9]+)?$ ]] && awk "BEGIN { exit !($km > 0) }" || { echo "not a distance in km: '$km'" >&2; return 2; }
  awk "BEGIN { print \"2000,\" 700 + 420 * $km \",\" 3500 + 900 * $km \",0,-25\" }"
}

# Every species of a bake, comma-separated (for --hide).
bake_species() {
  /usr/bin/python3 -c "import json,sys; print(','.join(s['name'] for s in json.load(open(sys.argv[1]))['species']))" "$1/manifest.json"
}
