// USD and glTF exports read back by tools this project did not write, compared with the bake
// as python/ecobake decodes it (reference.py), instance by instance:
//   glTF: the Khronos glTF validator (no errors, no warnings) and glTF-Transform's reader with
//         EXT_mesh_gpu_instancing;
//   USD:  TinyUSDZ's USDA parser (its WebAssembly build), which re-prints each layer in its own
//         canonical form, read here, and composes each tile's references to prototypes.usda and
//         their LOD variants (instanceable prototypes, materials, lod0 meshes).
//
//   node tests/interop/export_interop.mjs ECOBAKE SOURCE_DIR SCRATCH_DIR NODE_MODULES PYTHON3
//
// Exit 77 (skip) where the npm packages (tests/interop/package.json, installed by
// scripts/test.sh) or the Python reader's modules are missing; 1 with a list of mismatches.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SKIP = 77;
const [ecobake, source, scratch, modules, python] = process.argv.slice(2);

async function importPackage(name, subpath) {
  const require = createRequire(path.join(modules, 'node_modules', 'x.js'));
  const file = subpath ? path.join(modules, 'node_modules', name, subpath) : require.resolve(name);
  return import(pathToFileURL(file).href);
}

let validator, gltfCore, gltfExtensions, tinyusdz;
try {
  validator = (await importPackage('gltf-validator')).default;
  gltfCore = await importPackage('@gltf-transform/core');
  gltfExtensions = await importPackage('@gltf-transform/extensions');
  tinyusdz = await loadTinyUsdz();
} catch (e) {
  console.log(`skipped: npm packages missing in ${modules} (scripts/test.sh installs them): ${e.message}`);
  process.exit(SKIP);
}

// TinyUSDZ's npm build is made for browsers and refuses to start where `process` exists: it
// is hidden while the module initialises, and the wasm bytes are handed over directly.
async function loadTinyUsdz() {
  const dir = path.join(modules, 'node_modules', 'tinyusdz');
  const wasmBinary = fs.readFileSync(path.join(dir, 'tinyusdz.wasm'));
  const saved = globalThis.process;
  globalThis.window = globalThis;
  delete globalThis.process;
  try {
    const init = (await import(pathToFileURL(path.join(dir, 'tinyusdz.js')).href)).default;
    return await init({ wasmBinary });
  } finally {
    globalThis.process = saved;
    delete globalThis.window;
  }
}

const failures = [];
function check(cond, what) {
  if (!cond && failures.length < 50) failures.push(what);
  return cond;
}

// ---- the bake, its exports and the reference ----
fs.rmSync(scratch, { recursive: true, force: true });
fs.mkdirSync(scratch, { recursive: true });
const bake = path.join(scratch, 'bake');
const run = (args) => execFileSync(ecobake, args, { stdio: ['ignore', 'ignore', 'inherit'] });
// 12 tiles of the temperate config's tree line (spruce, mountain pine, meadow grass, moss):
// all four kinds, tilted instances, thousands per tile. Tiles lower down hold more trees but
// no grass; the natural patterns leave the understory sparse there.
run(['bake', path.join(source, 'configs', 'temperate_mountain.json'), '-o', bake, '--tiles', '19,9,22,11', '-q']);
run(['export', bake, '--format', 'usd', '-o', path.join(scratch, 'usd'), '-q']);
run(['export', bake, '--format', 'gltf', '-o', path.join(scratch, 'gltf'), '-q']);
run(['export', bake, '--format', 'csv', '-o', path.join(scratch, 'all.csv'), '-q']);
const refRun = spawnSync(python, [path.join(source, 'tests', 'interop', 'reference.py'), source, bake,
  path.join(scratch, 'reference.json')], { stdio: 'inherit' });
if (refRun.status === SKIP) process.exit(SKIP);
if (refRun.status !== 0) throw new Error('reference.py failed');
const ref = JSON.parse(fs.readFileSync(path.join(scratch, 'reference.json'), 'utf8'));
const refTile = new Map(ref.tiles.map((t) => [`${t.x}_${t.z}`, t]));
const total = ref.tiles.reduce((n, t) => n + t.position.length, 0);
const csvRows = fs.readFileSync(path.join(scratch, 'all.csv'), 'utf8').trim().split('\n').length - 1;
check(csvRows === total, `CSV has ${csvRows} rows, the reference ${total}`);
check(total > 10000, `only ${total} instances: the fixture lost its point`);
{
  const kinds = new Set();
  for (const t of ref.tiles) for (const id of new Set(t.species)) kinds.add(ref.species[id].kind);
  check(kinds.size === 4, `the fixture holds ${[...kinds].join(', ')}: it should hold all four kinds`);
}

// ---- independent geometry: quaternions and the instance rotation ----
// v rotated by unit quaternion (x, y, z, w): v + 2w (q x v) + 2 q x (q x v).
function rotate(q, v) {
  const [x, y, z, w] = q;
  const c1 = [y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]];
  const c2 = [y * c1[2] - z * c1[1], z * c1[0] - x * c1[2], x * c1[1] - y * c1[0]];
  return [0, 1, 2].map((i) => v[i] + 2 * w * c1[i] + 2 * c2[i]);
}
// The instance rotation from first principles: yaw about +y (+x toward -z), then the
// rotation of smallest angle taking +y to `up`, by Rodrigues' formula about the unit axis
// y x up. A reference for shaders/transform.h written without its formula.
function expectedRotate(up, yaw, v) {
  const yawed = [Math.cos(yaw) * v[0] + Math.sin(yaw) * v[2], v[1], -Math.sin(yaw) * v[0] + Math.cos(yaw) * v[2]];
  const axis = [up[2], 0, -up[0]];
  const s = Math.hypot(axis[0], axis[2]);
  if (s < 1e-9) return yawed;
  const k = axis.map((a) => a / s);
  const angle = Math.atan2(s, up[1]);
  const kv = k[0] * yawed[0] + k[1] * yawed[1] + k[2] * yawed[2];
  const kx = [k[1] * yawed[2] - k[2] * yawed[1], k[2] * yawed[0] - k[0] * yawed[2], k[0] * yawed[1] - k[1] * yawed[0]];
  return [0, 1, 2].map((i) => yawed[i] * Math.cos(angle) + kx[i] * Math.sin(angle) + k[i] * kv * (1 - Math.cos(angle)));
}
const near = (a, b, tol) => a.every((v, i) => Math.abs(v - b[i]) <= tol);
// Ids: tile number (z * tiles_x + x) times 2^26 plus the index in the tile (docs/export.md).
const idOf = (t, i) => (BigInt(t.z * ref.tiles_x + t.x) << 26n) + BigInt(i);

// Compares one exported instance with the reference instance i of tile t. Positions exactly
// (both are the decoded float32); rotation to `rotTol` (USD's quath has 11 significant bits).
function compareInstance(where, t, i, got, rotTol) {
  const p = t.position[i];
  check(near(got.position, p, 0), `${where}: position ${got.position} vs ${p}`);
  const q = got.rotation;
  check(Math.abs(Math.hypot(...q) - 1) < rotTol, `${where}: rotation not unit: ${q}`);
  for (const v of [[0, 1, 0], [1, 0, 0], [0, 0, 1]]) {
    const want = expectedRotate(t.up[i], t.yaw[i], v), have = rotate(q, v);
    if (!check(near(have, want, rotTol), `${where}: rotates ${v} to ${have}, expected ${want}`)) break;
  }
  check(got.scale.every((s) => Math.abs(s - t.scale[i]) <= 1e-6 * t.scale[i]), `${where}: scale ${got.scale} vs ${t.scale[i]}`);
  check(got.species === t.species[i], `${where}: species ${got.species} vs ${t.species[i]}`);
  check(got.id === idOf(t, i), `${where}: id ${got.id} vs ${idOf(t, i)}`);
}

// ---- glTF ----
const gltfIndex = JSON.parse(fs.readFileSync(path.join(scratch, 'gltf', 'export.json'), 'utf8'));
check(gltfIndex.type === 'gltf' && gltfIndex.instances === total, `glTF index: ${gltfIndex.type}, ${gltfIndex.instances}`);
check(gltfIndex.tiles.length === ref.tiles.length, `glTF index lists ${gltfIndex.tiles.length} tiles`);
const io = new gltfCore.NodeIO().registerExtensions([gltfExtensions.EXTMeshGPUInstancing]);
let gltfCount = 0, validatorInfos = 0;
for (const entry of gltfIndex.tiles) {
  const bytes = new Uint8Array(fs.readFileSync(path.join(scratch, 'gltf', entry.file)));
  const report = await validator.validateBytes(bytes, { maxIssues: 100 });
  validatorInfos += report.issues.numInfos;
  const bad = report.issues.messages.filter((m) => m.severity <= 1);
  check(report.issues.numErrors === 0 && report.issues.numWarnings === 0,
    `${entry.file}: validator: ${bad.map((m) => `${m.code} ${m.pointer}: ${m.message}`).join('; ')}`);
  const t = refTile.get(`${entry.x}_${entry.z}`);
  if (!check(t, `${entry.file}: tile not in the bake`)) continue;
  const doc = await io.readBinary(bytes);
  const scene = doc.getRoot().listScenes()[0];
  let seen = 0;
  for (const node of scene.listChildren()[0].listChildren()) {
    const inst = node.getExtension('EXT_mesh_gpu_instancing');
    if (!check(inst && node.getMesh(), `${entry.file}: node ${node.getName()} is not an instanced mesh`)) continue;
    const species = node.getExtras().ecobake_species_id;
    check(node.getName() === ref.species[species].name, `${entry.file}: node ${node.getName()} for species ${species}`);
    // The proxy mesh at the species' size: within the crown radius of the axis, y in [0, height].
    const s = ref.species[species];
    for (const prim of node.getMesh().listPrimitives()) {
      const pos = prim.getAttribute('POSITION');
      for (let v = 0; v < pos.getCount(); ++v) {
        const [x, y, z] = pos.getElement(v, []);
        check(Math.hypot(x, z) <= s.crown_radius * 1.0001 && y >= -1e-6 && y <= s.mesh_height * 1.0001,
          `${entry.file}: ${s.name} mesh vertex ${[x, y, z]} outside its size`);
      }
    }
    const a = (n) => inst.getAttribute(n);
    const n = a('TRANSLATION').getCount();
    // tile-local translations under the tile's root node, which carries the tile origin
    const origin = node.getWorldTranslation();
    check(near(origin, [entry.x * gltfIndex.tiling.tile_size, 0, entry.z * gltfIndex.tiling.tile_size], 0),
      `${entry.file}: ${node.getName()} world translation ${origin}`);
    for (const name of ['ROTATION', 'SCALE', '_COLOR_0', '_TILE_INDEX'])
      check(a(name) && a(name).getCount() === n, `${entry.file}: ${node.getName()}: ${name} count`);
    for (let k = 0; k < n; ++k) {
      const i = a('_TILE_INDEX').getElement(k, [])[0];
      if (!check(i < t.position.length, `${entry.file}: index ${i} past the tile`)) break;
      const got = {
        position: a('TRANSLATION').getElement(k, []).map((v, c) => v + origin[c]), rotation: a('ROTATION').getElement(k, []),
        scale: a('SCALE').getElement(k, []), species, id: idOf(t, i),
      };
      compareInstance(`${entry.file} ${node.getName()}[${k}]`, t, i, got, 1e-5);
      // float VEC3, the linear tint: the RGBA8 colour's bytes over 255
      const color = a('_COLOR_0');
      check(color.getType() === 'VEC3' && color.getComponentType() === 5126 && !color.getNormalized(),
        `${entry.file}: _COLOR_0 is ${color.getType()} of component type ${color.getComponentType()}`);
      const c = color.getElement(k, []).map((v) => Math.round(v * 255));
      check(near(c, t.color[i].slice(0, 3), 0), `${entry.file}: colour ${c} vs ${t.color[i]}`);
      check(i === seen, `${entry.file}: instance ${k} of ${node.getName()} is tile index ${i}, expected ${seen}`);
      ++seen;
    }
  }
  check(seen === t.position.length, `${entry.file}: ${seen} instances, the tile has ${t.position.length}`);
  gltfCount += seen;
}
check(gltfCount === total, `glTF: ${gltfCount} instances, reference ${total}`);

// ---- USD ----
function parseUsd(file) {
  const layer = new tinyusdz.TinyUSDZLoaderNative();
  const ok = layer.loadAsLayerFromBinary(new Uint8Array(fs.readFileSync(file)), path.basename(file));
  check(ok, `${file}: TinyUSDZ: ${layer.error()}`);
  return layer;
}
// An array attribute from TinyUSDZ's canonical print: `<type> <name> = [...]`.
function usdArray(text, decl) {
  const start = text.indexOf(`${decl} = [`);
  if (start < 0) return null;
  const open = start + decl.length + 3;
  let depth = 0, end = open;
  for (; end < text.length; ++end) {
    if (text[end] === '[' || text[end] === '(') ++depth;
    if (text[end] === ']' || text[end] === ')') --depth;
    if (depth === 0) break;
  }
  const body = text.slice(open + 1, end).trim();
  if (body === '') return [];
  // Shortest float text: Math.fround gives back the float32 it was printed from.
  if (body.startsWith('(')) return body.slice(1, -1).split(/\)\s*,\s*\(/).map((t) => t.split(',').map((v) => Math.fround(Number(v))));
  return body.split(',').map((v) => v.trim());
}
const usdDir = path.join(scratch, 'usd');
const usdIndex = JSON.parse(fs.readFileSync(path.join(usdDir, 'export.json'), 'utf8'));
const world = parseUsd(path.join(usdDir, usdIndex.root));
const worldText = world.layerToString();
check(/metersPerUnit = 1\b/.test(worldText) && /upAxis = "Y"/.test(worldText), 'world.usda: metersPerUnit or upAxis');
check(world.hasPayload(), 'world.usda: no payloads');
const payloads = world.extractPayloadAssetPaths();
check(JSON.stringify(payloads) === JSON.stringify(usdIndex.tiles.map((t) => t.file)),
  `world.usda payloads ${payloads} vs export.json`);
const protoText = parseUsd(path.join(usdDir, 'prototypes.usda')).layerToString();
// A prim's block in a print: from `start` to the "}" at the indentation of its line.
function usdBlock(text, start) {
  const at = text.indexOf(start);
  if (at < 0) return '';
  const line = text.lastIndexOf('\n', at) + 1;
  const close = `\n${text.slice(line, at)}}`;
  const end = text.indexOf(close, at);
  return end < 0 ? text.slice(at) : text.slice(at, end + close.length);
}
// Triangles of every Mesh in a block: the entries of its faceVertexCounts (all 3).
const usdTriangles = (text) => [...text.matchAll(/int\[\] faceVertexCounts = \[([^\]]*)\]/g)]
  .reduce((n, m) => n + (m[1].trim() ? m[1].split(',').length : 0), 0);
const occurrences = (text, part) => text.split(part).length - 1;
// A species' prototype as composed (TinyUSDZ's composition of references and variants): its
// UsdPreviewSurface materials under Looks (connections remapped to `root`), every Mesh bound
// to one, and the lod0 meshes (the default selection).
function checkComposedPrototype(where, block, root, lod0Triangles) {
  const looks = usdBlock(block, 'def Scope "Looks"');
  check(looks.includes('def Material "foliage"') && occurrences(looks, 'info:id = "UsdPreviewSurface"') === occurrences(looks, 'def Material'),
    `${where}: no foliage UsdPreviewSurface material`);
  check(looks.includes(`token outputs:surface.connect = <${root}/Looks/foliage/PreviewSurface.outputs:surface>`),
    `${where}: the foliage material's surface is not connected under ${root}`);
  check(!block.includes('variantSet'), `${where}: variants left after composition`);
  check(usdTriangles(block) === lod0Triangles, `${where}: ${usdTriangles(block)} triangles, lod0 has ${lod0Triangles}`);
  // TinyUSDZ 0.9.0-rc10 remaps connections through the reference but not relationship targets
  // authored in a variant (OpenUSD remaps both): bindings are checked by their species path.
  const meshes = occurrences(block, 'def Mesh ');
  check(meshes > 0 && occurrences(block, 'prepend apiSchemas = ["MaterialBindingAPI"]') === meshes &&
    [...block.matchAll(/rel material:binding = <([^>]*)>/g)].filter((m) => /\/Looks\/(bark|foliage)$/.test(m[1])).length === meshes,
    `${where}: ${meshes} meshes, not every one bound to its species' material`);
}
// prototypes.usda holds each species once: materials and the variant set "lod" (lod0 selected,
// lod1 coarser); TinyUSDZ composes its variants into the lod0 meshes.
const lod0Triangles = new Map();
const protoLayer = parseUsd(path.join(usdDir, 'prototypes.usda'));
check(protoLayer.composeVariants(), `prototypes.usda: TinyUSDZ cannot compose its variants: ${protoLayer.error()}`);
const protoComposed = protoLayer.layerToString();
for (const s of usdIndex.species) {
  const block = usdBlock(protoText, `def Xform "${s.prim}"`);
  if (!check(block && occurrences(protoText, `def Xform "${s.prim}"`) === 1, `prototypes.usda: ${s.prim} not there once`)) continue;
  check(block.includes('prepend variantSets = ["lod"]') && block.includes('string lod = "lod0"'),
    `prototypes.usda: ${s.prim} has no variant set "lod" with lod0 selected`);
  const t0 = usdTriangles(usdBlock(block, '"lod0" {')), t1 = usdTriangles(usdBlock(block, '"lod1" {'));
  check(t0 > 0 && t1 > 0 && t1 < t0, `prototypes.usda: ${s.prim}: lod0 ${t0} triangles, lod1 ${t1}`);
  lod0Triangles.set(s.prim, t0);
  checkComposedPrototype(`prototypes.usda ${s.prim}`, usdBlock(protoComposed, `def Xform "${s.prim}"`), `/Prototypes/${s.prim}`, t0);
}
const protoBytes = new Uint8Array(fs.readFileSync(path.join(usdDir, 'prototypes.usda')));
let usdCount = 0;
for (const entry of usdIndex.tiles) {
  const raw = fs.readFileSync(path.join(usdDir, entry.file), 'utf8');
  const text = parseUsd(path.join(usdDir, entry.file)).layerToString();
  const t = refTile.get(`${entry.x}_${entry.z}`);
  if (!check(t, `${entry.file}: tile not in the bake`)) continue;
  check(/def PointInstancer "tile"/.test(text), `${entry.file}: no PointInstancer`);
  // The root's tile prim: a component whose extentsHint holds every instance of the tile.
  const prim = worldText.indexOf(`def "tile_${entry.x}_${entry.z}"`);
  const hint = prim < 0 ? null : usdArray(worldText.slice(prim), 'uniform float3[] extentsHint');
  if (check(hint && hint.length === 2, `world.usda: tile_${entry.x}_${entry.z} has no extentsHint`)) {
    check(/kind = "component"/.test(worldText.slice(prim, prim + 200)), `world.usda: tile_${entry.x}_${entry.z} is not a component`);
    const outside = t.position.filter((p) => p.some((v, c) => v < hint[0][c] || v > hint[1][c]));
    check(outside.length === 0, `world.usda: ${outside.length} instances outside tile_${entry.x}_${entry.z}'s extentsHint`);
  }
  const positions = usdArray(text, 'point3f[] positions');
  const orientations = usdArray(text, 'quath[] orientations');
  const scales = usdArray(text, 'float3[] scales');
  // TinyUSDZ 0.9.0-rc10 parses int64 arrays but now and then re-prints an element as its first
  // digit (32950452228 as 3; where depends on what was parsed before: uninitialised memory in
  // its printer or lexer). Ids are read from the layer's own text; it still has to parse.
  const ids = usdArray(raw, 'int64[] ids');
  const protoIndices = usdArray(text, 'int[] protoIndices');
  const colors = usdArray(text, 'color3f[] primvars:displayColor');
  const protos = (text.match(/rel prototypes = \[([^\]]*)\]/) || [, ''])[1].split(',').map((s) => s.trim()).filter(Boolean);
  const n = t.position.length;
  const arrays = { positions, orientations, scales, ids, protoIndices, colors };
  let complete = true;
  for (const [name, arr] of Object.entries(arrays))
    complete = check(arr && arr.length === n, `${entry.file}: ${name}: ${arr && arr.length} of ${n}`) && complete;
  if (!complete) continue;
  // Prototype paths name the species: </tile/Prototypes/sp<id>_<name>>, each in prototypes.usda.
  const protoSpecies = protos.map((p) => Number((p.match(/^<\/tile\/Prototypes\/sp(\d+)_/) || [])[1]));
  for (const p of protos) {
    const prim = p.slice(p.lastIndexOf('/') + 1, -1);
    check(protoText.includes(`def Xform "${prim}"`), `${entry.file}: prototype ${prim} not in prototypes.usda`);
    check(text.includes(`@../prototypes.usda@</Prototypes/${prim}>`), `${entry.file}: ${prim} does not reference prototypes.usda`);
    // instanceable: every tile's prototype of a species shares one prototype on a composed stage
    check(/instanceable = true/.test(usdBlock(text, `def "${prim}"`)), `${entry.file}: ${prim} is not instanceable`);
  }
  // The tile composed by TinyUSDZ (references to prototypes.usda, then the variants): each
  // prototype brings its species' materials and lod0 meshes.
  const composer = parseUsd(path.join(usdDir, entry.file));
  composer.setAsset('../prototypes.usda', protoBytes);
  check(composer.composeReferences() && composer.composeVariants(), `${entry.file}: TinyUSDZ cannot compose it: ${composer.error()}`);
  const composed = composer.layerToString();
  for (const p of protos) {
    const prim = p.slice(p.lastIndexOf('/') + 1, -1);
    const block = usdBlock(composed, `def Xform "${prim}"`);
    check(/instanceable = true/.test(block), `${entry.file}: composed ${prim} is not instanceable`);
    checkComposedPrototype(`${entry.file} ${prim}`, block, `/tile/Prototypes/${prim}`, lod0Triangles.get(prim));
  }
  for (let i = 0; i < n; ++i) {
    const [w, x, y, z] = orientations[i];
    const got = {
      position: positions[i], rotation: [x, y, z, w], scale: scales[i],
      species: protoSpecies[Number(protoIndices[i])], id: BigInt(ids[i]),
    };
    compareInstance(`${entry.file}[${i}]`, t, i, got, 2e-3);
    const c = t.color[i].slice(0, 3).map((v) => Math.fround(v / 255));
    check(near(colors[i], c, 0), `${entry.file}[${i}]: displayColor ${colors[i]} vs ${c}`);
  }
  usdCount += n;
}
check(usdCount === total, `USD: ${usdCount} instances, reference ${total}`);

if (failures.length) {
  console.log(`${failures.length} mismatches (first 50):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`${total} instances in ${ref.tiles.length} tiles: glTF (validator: 0 errors, 0 warnings, ` +
  `${validatorInfos} infos; glTF-Transform) and USD (TinyUSDZ) equal the Python reader's decode`);
