#!/usr/bin/env python3
"""Writes a config with every species of CONFIG cloned K times (issue #32's species scaling):
clone i of species s is "s_i" with radius x sqrt(K) (so the K clones together hold about the
species' count), its gap and clump sizes scaled alike (a gap must hold a plant's room), and
every exclusion repeated for each pair of clones. Input paths become absolute.

    bench/clone_species.py CONFIG K OUT
"""
import json, sys, math, os
src, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = json.load(open(src))
base = os.path.dirname(os.path.abspath(src))
# make relative paths absolute
def fix(o):
    if isinstance(o, dict):
        for kk, v in o.items():
            if isinstance(v, str) and (v.endswith('.png') or v.endswith('.tif') or v.endswith('.exr') or v.endswith('.r16') or v.endswith('.geojson') or v.endswith('.glb') or v.endswith('.gltf')):
                p = os.path.join(base, v)
                if os.path.exists(p): o[kk] = p
            else: fix(v)
    elif isinstance(o, list):
        for v in o: fix(v)
fix(c)
sp = []
for s in c['species']:
    for i in range(k):
        t = json.loads(json.dumps(s)); t['name'] = f"{s['name']}_{i}"; t['radius'] = s['radius'] * math.sqrt(k)
        pat = t.get('pattern', {})
        if 'gaps' in pat: pat['gaps']['size'] *= math.sqrt(k)
        if 'clumping' in pat: pat['clumping']['radius'] *= math.sqrt(k)
        sp.append(t)
ex = []
for e in c.get('exclusions', []):
    for i in range(k):
        for j in range(k):
            ex.append({'a': f"{e['a']}_{i}", 'b': f"{e['b']}_{j}", 'distance': e['distance']})
c['species'] = sp; c['exclusions'] = ex; c['name'] = c['name'] + f'_x{k}'
json.dump(c, open(out, 'w'), indent=1)
print(len(sp), 'species', len(ex), 'exclusions')
