// USD and glTF exports read back by tools this project did not write, compared with the bake
// as python/ecobake decodes it (reference.py), instance by instance:
//   glTF: the Khronos glTF validator (no errors, no warnings), glTF-Transform's reader with
//         EXT_mesh_gpu_instancing, three.js's GLTFLoader (InstancedMesh matrices, colours) and
//         Babylon.js's (thin instances);
//   3D Tiles: loaders.gl's Tiles3DLoader (tileset and contents);
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

let validator, gltfCore, gltfExtensions, tinyusdz, loadersCore, loaders3dTiles, THREE, GLTFLoader, BABYLON;
try {
  validator = (await importPackage('gltf-validator')).default;
  // ES modules (require.resolve would give their CommonJS builds)
  loadersCore = await importPackage('@loaders.gl/core', 'dist/index.js');
  THREE = await importPackage('three', 'build/three.module.js');
  ({ GLTFLoader } = await importPackage('three', 'examples/jsm/loaders/GLTFLoader.js'));
  BABYLON = await importPackage('@babylonjs/core', 'index.js');
  await importPackage('@babylonjs/loaders', 'glTF/index.js');
  loaders3dTiles = await importPackage('@loaders.gl/3d-tiles', 'dist/index.js');
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
// (errors only: it would warn about MSFT_lod, which it does not implement, on every file)
const io = new gltfCore.NodeIO().registerExtensions([gltfExtensions.EXTMeshGPUInstancing])
  .setLogger(new gltfCore.Logger(gltfCore.Logger.Verbosity.ERROR));
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
  // LOD 1 through MSFT_lod, from the GLB's own JSON (glTF-Transform drops extensions it does
  // not know): each species node names one node outside the scene, with the same instancing
  // accessors and a coarser mesh, and a screen coverage per level
  {
    const json = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 20, new DataView(bytes.buffer, bytes.byteOffset + 12, 4).getUint32(0, true)).toString('utf8'));
    check(json.extensionsUsed.includes('MSFT_lod') && !json.extensionsRequired.includes('MSFT_lod'), `${entry.file}: MSFT_lod not used (or required)`);
    const triangles = (m) => json.meshes[m].primitives.reduce((n, p) => n + json.accessors[p.indices].count / 3, 0);
    for (const i of json.nodes[0].children) {
      const node = json.nodes[i], lod = node.extensions.MSFT_lod;
      if (!check(lod && lod.ids.length === 1, `${entry.file}: ${node.name} has no MSFT_lod`)) continue;
      const coarse = json.nodes[lod.ids[0]];
      check(!json.nodes[0].children.includes(lod.ids[0]) && coarse.name === `${node.name}_lod1`, `${entry.file}: ${node.name}'s LOD node ${coarse.name}`);
      check(JSON.stringify(coarse.extensions.EXT_mesh_gpu_instancing) === JSON.stringify(node.extensions.EXT_mesh_gpu_instancing),
        `${entry.file}: ${node.name}'s LOD 1 instances differ`);
      check(triangles(coarse.mesh) < triangles(node.mesh), `${entry.file}: ${node.name}: LOD 1 has ${triangles(coarse.mesh)} triangles, LOD 0 ${triangles(node.mesh)}`);
      const c = node.extras.MSFT_screencoverage;
      check(c.length === 2 && c[0] > 0 && c[0] <= 1 && c[1] === 0, `${entry.file}: ${node.name} screen coverage ${c}`);
    }
  }
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

// three.js's GLTFLoader (what the web draws with): each species node becomes InstancedMeshes,
// one per primitive, with the instance matrices, colours (_COLOR_0 as instanceColor) and the
// other instancing attributes (_TILE_INDEX) as instanced geometry attributes.
let threeCount = 0;
for (const entry of gltfIndex.tiles) {
  const bytes = fs.readFileSync(path.join(scratch, 'gltf', entry.file));
  const gltf = await new GLTFLoader().parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '');
  gltf.scene.updateMatrixWorld(true);
  const t = refTile.get(`${entry.x}_${entry.z}`);
  const bySpecies = new Map();  // species id -> instances of its first primitive's mesh
  gltf.scene.traverse((o) => {
    if (!o.isInstancedMesh) return;
    const species = o.parent.userData.ecobake_species_id ?? o.userData.ecobake_species_id;
    if (!bySpecies.has(species)) bySpecies.set(species, o);
  });
  const matrix = new THREE.Matrix4(), world = new THREE.Matrix4(), color = new THREE.Color();
  const position = new THREE.Vector3(), rotation = new THREE.Quaternion(), scale = new THREE.Vector3();
  for (const [species, mesh] of bySpecies) {
    const index = mesh.geometry.getAttribute('_TILE_INDEX');
    if (!check(index && index.count === mesh.count, `${entry.file}: three.js: ${mesh.name} has no _TILE_INDEX`)) continue;
    for (let k = 0; k < mesh.count; ++k) {
      const i = index.getX(k);
      mesh.getMatrixAt(k, matrix);
      world.multiplyMatrices(mesh.matrixWorld, matrix).decompose(position, rotation, scale);
      const got = { position: position.toArray(), rotation: rotation.toArray(), scale: scale.toArray(), species, id: idOf(t, i) };
      compareInstance(`${entry.file} three.js ${mesh.name}[${k}]`, t, i, got, 1e-5);
      mesh.getColorAt(k, color);
      const c = color.toArray().map((v) => Math.round(v * 255));
      check(near(c, t.color[i].slice(0, 3), 0), `${entry.file}: three.js colour ${c} vs ${t.color[i]}`);
      ++threeCount;
    }
  }
}
check(threeCount === total, `three.js: ${threeCount} instances, reference ${total}`);

// Babylon.js's glTF loader (NullEngine, right-handed so no mirroring root is added): thin
// instances per primitive mesh, their matrices under the mesh's world matrix. Instances of a
// species node are its run of the tile in order, the nodes in species order.
{
  const engine = new BABYLON.NullEngine();
  BABYLON.Logger.LogLevels = BABYLON.Logger.ErrorLogLevel;
  let babylonCount = 0;
  for (const entry of gltfIndex.tiles) {
    const scene = new BABYLON.Scene(engine);
    scene.useRightHandedSystem = true;
    const bytes = fs.readFileSync(path.join(scratch, 'gltf', entry.file));
    const result = await BABYLON.LoadAssetContainerAsync(new Uint8Array(bytes), scene, { pluginExtension: '.glb' });
    const t = refTile.get(`${entry.x}_${entry.z}`);
    // the first primitive's mesh of each species node (LOD 0: the species' own name)
    const bySpecies = new Map();
    for (const m of result.meshes) {
      // a node of several primitives is a transform node over <node>_primitive<i> meshes
      const node = /_primitive\d+$/.test(m.name) ? (m.parent ? m.parent.name : '') : m.name;
      const species = ref.species.findIndex((sp) => sp.name === node);
      if (m.thinInstanceCount > 0 && species >= 0 && !bySpecies.has(species)) bySpecies.set(species, m);
    }
    let first = 0;
    for (const species of [...bySpecies.keys()].sort((a, b) => a - b)) {
      const mesh = bySpecies.get(species);
      const world = mesh.computeWorldMatrix(true), matrices = mesh.thinInstanceGetWorldMatrices();
      const position = new BABYLON.Vector3(), scale = new BABYLON.Vector3(), rotation = new BABYLON.Quaternion();
      for (let k = 0; k < matrices.length; ++k) {
        const i = first + k;
        if (!check(i < t.position.length, `${entry.file}: Babylon.js: ${mesh.name}[${k}] past the tile`)) break;
        matrices[k].multiply(world).decompose(scale, rotation, position);
        const got = { position: position.asArray(), rotation: [rotation.x, rotation.y, rotation.z, rotation.w], scale: scale.asArray(),
          species: t.species[i], id: idOf(t, i) };
        check(t.species[i] === species, `${entry.file}: Babylon.js: ${mesh.name}[${k}] is tile index ${i} of species ${t.species[i]}`);
        compareInstance(`${entry.file} Babylon.js ${mesh.name}[${k}]`, t, i, got, 1e-5);
        ++babylonCount;
      }
      first += matrices.length;
    }
    scene.dispose();
  }
  engine.dispose();
  check(babylonCount === total, `Babylon.js: ${babylonCount} instances, reference ${total}`);
}

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

// ---- 3D Tiles ----
// loaders.gl's Tiles3DLoader reads tileset.json (1.1) and each tile's GLB content; the tree's
// transforms are composed here, each content's y-up glTF turned z-up as 3D Tiles says
// ((x, y, z) -> (x, -z, y)), and every instance compared with the reference in the local
// east-north-up frame (east = x, north = -z, up = y of the bake) or, with --georef, in ECEF
// (WGS84 from first principles below).
const mat4 = (m) => (p) => [0, 1, 2].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
const mul4 = (a, b) => {  // column-major a * b
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; ++c) for (let r = 0; r < 4; ++r) for (let k = 0; k < 4; ++k) out[4 * c + r] += a[4 * k + r] * b[4 * c + k];
  return out;
};
const identity4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
const enuOf = (p) => [p[0], -p[2], p[1]];
// ECEF of a point at (east, north, up) from the geodetic origin (lon, lat, h) on WGS84.
function ecefOf(enu, [lonDeg, latDeg, h]) {
  const a = 6378137, f = 1 / 298.257223563, e2 = f * (2 - f);
  const lon = lonDeg * Math.PI / 180, lat = latDeg * Math.PI / 180;
  const n = a / Math.sqrt(1 - e2 * Math.sin(lat) ** 2);
  const o = [(n + h) * Math.cos(lat) * Math.cos(lon), (n + h) * Math.cos(lat) * Math.sin(lon), (n * (1 - e2) + h) * Math.sin(lat)];
  const east = [-Math.sin(lon), Math.cos(lon), 0];
  const north = [-Math.sin(lat) * Math.cos(lon), -Math.sin(lat) * Math.sin(lon), Math.cos(lat)];
  const up = [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
  return [0, 1, 2].map((i) => o[i] + enu[0] * east[i] + enu[1] * north[i] + enu[2] * up[i]);
}
async function arrayBufferOf(file) {
  const b = fs.readFileSync(file);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}
let tilesCount = 0;
for (const georef of [null, [-122.3321, 47.6062, 35]]) {
  const dir = path.join(scratch, georef ? '3dtiles-georef' : '3dtiles');
  run(['export', bake, '--format', '3dtiles', '-o', dir, '-q', ...(georef ? ['--georef', georef.join(',')] : [])]);
  const tileset = await loadersCore.parse(await arrayBufferOf(path.join(dir, 'tileset.json')), loaders3dTiles.Tiles3DLoader,
    {}, { url: pathToFileURL(path.join(dir, 'tileset.json')).href });
  check(tileset.asset.version === '1.1', `${dir}: asset.version ${tileset.asset.version}`);
  const raw = JSON.parse(fs.readFileSync(path.join(dir, 'tileset.json'), 'utf8'));
  check(raw.root.refine === 'ADD' && raw.asset.version === '1.1', `${dir}: root refine ${raw.root.refine}`);
  check(!georef || raw.root.transform.length === 16, `${dir}: no root transform for the georef`);
  // the tallest plant of each tile, from the reference (mesh height x scale)
  const tallest = new Map(ref.tiles.map((t) => [`${t.x}_${t.z}`,
    Math.max(...t.scale.map((s, i) => s * ref.species[t.species[i]].mesh_height))]));
  const leaves = [];
  // walks the tree: composes transforms, checks errors and that children's boxes sit in their parent's
  const boxCorners = (b, m) => {
    const out = [];
    for (const sx of [-1, 1]) for (const sy of [-1, 1]) for (const sz of [-1, 1])
      out.push(mat4(m)([0, 1, 2].map((i) => b[i] + sx * b[3 + i] + sy * b[6 + i] + sz * b[9 + i])));
    return out;
  };
  const inBox = (p, b, m, tol) => {  // p (root frame) inside box b of a tile with transform m (axis-aligned)
    const c = mat4(m)(b.slice(0, 3));
    return [0, 1, 2].every((i) => Math.abs(p[i] - c[i]) <= Math.abs(b[3 + 3 * i + i]) + tol);
  };
  function walk(tile, parentMatrix, parent) {
    const m = tile.transform ? mul4(parentMatrix, tile.transform) : parentMatrix;
    const box = tile.boundingVolume.box;
    check(box && box.length === 12, `${dir}: tile without a box`);
    if (parent && !georef) {  // (boxes are axis-aligned in the local frame; the georef turns it)
      for (const corner of boxCorners(box, m))
        check(inBox(corner, parent.box, parent.m, 1e-6), `${dir}: a child box leaves its parent's (${tile.contentUrl || ''})`);
      check(tile.geometricError <= parent.geometricError, `${dir}: geometric error ${tile.geometricError} above its parent's`);
    }
    if (tile.contentUrl) {
      check(tile.geometricError === 0 && !(tile.children || []).length, `${dir}: leaf ${tile.contentUrl} error or children`);
      leaves.push({ tile, m });
    } else {
      const below = [];
      const collect = (t) => { if (t.contentUrl) below.push(path.basename(t.contentUrl, '.glb')); (t.children || []).forEach(collect); };
      collect(tile);
      const want = Math.max(...below.map((k) => tallest.get(k)));
      check(Math.abs(tile.geometricError - want) <= 1e-4 * want, `${dir}: parent error ${tile.geometricError}, tallest plant under it ${want}`);
    }
    for (const child of tile.children || []) walk(child, m, { box, m, geometricError: tile.geometricError });
  }
  walk(tileset.root, identity4, null);
  check(leaves.length === ref.tiles.length, `${dir}: ${leaves.length} contents, ${ref.tiles.length} tiles`);
  let count = 0;
  for (const { tile, m } of leaves) {
    const key = path.basename(tile.contentUrl, '.glb');
    const t = refTile.get(key);
    if (!check(t, `${dir}: content ${key} is not a tile of the bake`)) continue;
    const content = await loadersCore.parse(await arrayBufferOf(path.join(dir, 'tiles', `${key}.glb`)),
      loaders3dTiles.Tiles3DLoader, { '3d-tiles': { loadGLTF: true } });
    check(content.type === 'glTF' && content.gltfUpAxis === 'Y' && content.rotateYtoZ, `${dir}/${key}: content ${content.type}, up ${content.gltfUpAxis}`);
    const g = content.gltf;
    check(!g.nodes[0].translation && !g.nodes[0].matrix, `${dir}/${key}: the root node moves the content (the tile's transform does)`);
    // ground truth in the root frame: ENU of the reference position (and ECEF through the georef)
    const rootOf = (p) => (georef ? ecefOf(enuOf(p), georef) : enuOf(p));
    let seen = 0;
    // the root's children (the LOD 1 nodes are outside the scene)
    for (const child of g.nodes[0].children || []) {
      const node = typeof child === 'number' ? g.nodes[child] : child;
      const inst = node.extensions && node.extensions.EXT_mesh_gpu_instancing;
      if (!check(inst, `${dir}/${key}: node ${node.name} not instanced`)) continue;
      const value = (name) => g.accessors[inst.attributes[name]].value;
      const tr = value('TRANSLATION'), rot = value('ROTATION'), sc = value('SCALE'), index = value('_TILE_INDEX');
      const species = node.extras.ecobake_species_id;
      for (let k = 0; k < index.length; ++k) {
        const i = index[k];
        if (!check(i < t.position.length, `${dir}/${key}: index ${i} past the tile`)) break;
        const local = [tr[3 * k], tr[3 * k + 1], tr[3 * k + 2]];
        const got = mat4(m)([local[0], -local[2], local[1]]);  // y up -> z up, then the tree's transforms
        const want = rootOf(t.position[i]);
        check(near(got, want, georef ? 1e-6 : 0), `${dir}/${key}[${k}]: position ${got} vs ${want}`);
        if (!georef) check(inBox(got, tile.boundingVolume.box, m, 1e-6), `${dir}/${key}[${k}]: outside its tile's box`);
        const q = [rot[4 * k], rot[4 * k + 1], rot[4 * k + 2], rot[4 * k + 3]];
        const v = [0.3, 0.8, -0.5];
        check(near(rotate(q, v), expectedRotate(t.up[i], t.yaw[i], v), 1e-5), `${dir}/${key}[${k}]: rotation ${q}`);
        check(Math.abs(sc[3 * k] - t.scale[i]) <= 1e-6 * t.scale[i] && species === t.species[i], `${dir}/${key}[${k}]: scale or species`);
        check(i === seen, `${dir}/${key}: instance ${k} is tile index ${i}, expected ${seen}`);
        ++seen;
      }
    }
    check(seen === t.position.length, `${dir}/${key}: ${seen} instances, the tile has ${t.position.length}`);
    count += seen;
  }
  check(count === total, `${dir}: ${count} instances, reference ${total}`);
  tilesCount += count;
}

if (failures.length) {
  console.log(`${failures.length} mismatches (first 50):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`${total} instances in ${ref.tiles.length} tiles: glTF (validator: 0 errors, 0 warnings, ` +
  `${validatorInfos} infos; glTF-Transform; three.js; Babylon.js), USD (TinyUSDZ) and 3D Tiles (loaders.gl, local and georeferenced: ` +
  `${tilesCount} instances) equal the Python reader's decode`);
