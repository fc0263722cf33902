#!/usr/bin/env bash
# ecobake report's page opened in headless Chromium (Debian's chromium, installed by
# scripts/install-deps.sh --tests): every picture loads (the page marks <body> with
# data-images-loaded="loaded/total" once loaded) and a screenshot is not blank.
# Usage: tests/ci/report_browser_test.sh ECOBAKE SOURCE_DIR SCRATCH_DIR   (exit 77 without chromium)
set -uo pipefail
ecobake=$1 source=$2 scratch=$3
browser=$(command -v chromium || command -v chromium-browser || true)
[[ -n $browser ]] || { echo "skipped: no chromium"; exit 77; }
rm -rf "$scratch"
mkdir -p "$scratch"
"$ecobake" bake "$source/configs/temperate_mountain.json" -o "$scratch/bake" --tiles 10,10,15,14 -q || exit 1
"$ecobake" report "$scratch/bake" -o "$scratch/report" -q || exit 1
total=$(grep -o "<img " "$scratch/report/index.html" | wc -l)
((total >= 3)) || { echo "FAIL: only $total pictures in the page"; exit 1; }
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$scratch/profile")
dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$scratch/report/index.html" 2>/dev/null)
grep -q "data-images-loaded=\"$total/$total\"" <<<"$dom" ||
  { echo "FAIL: pictures loaded: $(grep -o 'data-images-loaded="[^"]*"' <<<"$dom" || echo none), expected $total/$total"; exit 1; }
timeout 120 "$browser" "${flags[@]}" --window-size=1100,1600 --screenshot="$scratch/page.png" \
  "file://$scratch/report/index.html" >/dev/null 2>&1
/usr/bin/python3 - "$scratch/page.png" "$source" <<'PY' || exit 1
import sys
sys.path.insert(0, sys.argv[2] + "/bench")
from frame_compare import read_png
img = read_png(sys.argv[1])
if img.shape[0] < 1000 or img.std() < 10:
    sys.exit(f"FAIL: the screenshot is {img.shape} with deviation {img.std():.1f}: blank")
print(f"report page: {img.shape[1]}x{img.shape[0]} screenshot, deviation {img.std():.1f}")
PY
echo "report page: $total/$total pictures loaded in $browser"
