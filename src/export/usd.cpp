// USD export as text layers (USDA 1.0; no OpenUSD library is packaged for Debian). Layout and
// the choices behind it: docs/export.md.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "export/writers.h"
#include "shaders/shared.h"
#include "shaders/transform.h"

namespace eco {

namespace {

// Shortest text that reads back as the same float (std::to_chars): positions and scales
// round-trip the decoded tile values exactly.
void appendFloat(std::string& out, float v) {
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

template <typename Int>
void appendInt(std::string& out, Int v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void appendTuple(std::string& out, const float* v, int n) {
  out += '(';
  for (int i = 0; i < n; ++i) {
    if (i) out += ", ";
    appendFloat(out, v[i]);
  }
  out += ')';
}

// A USDA string literal: quotes, backslashes and control bytes escaped (TfEscapeString
// reads \n \t \r \" \\ and \xHH); UTF-8 passes through.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string layerHeader(const std::string& defaultPrim, const std::string& doc) {
  return "#usda 1.0\n(\n    defaultPrim = \"" + defaultPrim + "\"\n    doc = " + quoted(doc) +
         "\n    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n\n";
}

template <typename T, typename Fn>
void appendArray(std::string& out, const std::vector<T>& items, Fn&& item) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    item(items[i]);
  }
  out += ']';
}

std::string tileName(int x, int z) { return "tile_" + std::to_string(x) + "_" + std::to_string(z); }

}  // namespace

float roundToHalf(float value) {
  // Half precision: 10 stored mantissa bits, exponents down to -14, subnormals in steps of
  // 2^-24. Scaling by powers of two is exact, so nearbyint (round to nearest, ties to even)
  // does the rounding.
  const float a = std::fabs(value);
  if (!(a < 65520.f)) return std::copysign(a != a ? a : INFINITY, value);  // NaN, or beyond the largest half
  float quantum = std::ldexp(1.f, -24);
  if (a >= std::ldexp(1.f, -14)) {
    int e = 0;
    std::frexp(a, &e);  // a in [2^(e-1), 2^e)
    quantum = std::ldexp(1.f, e - 11);
  }
  return std::copysign(std::nearbyint(a / quantum) * quantum, value);
}

std::string usdPrimName(const SpeciesRecord& species) {
  std::string name = "sp" + std::to_string(species.id) + "_";
  for (char c : species.name)
    name += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
  return name;
}

namespace {

// The image format of a texture's bytes, by their signature: glTF 2.0 allows PNG and JPEG.
const char* imageExtension(const std::vector<uint8_t>& bytes) {
  static constexpr uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() >= 8 && std::equal(kPng, kPng + 8, bytes.begin())) return "png";
  if (bytes.size() >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) return "jpg";
  return nullptr;
}

const char* partName(const ProxyPart& part) { return part.bark ? "bark" : "foliage"; }

// Whether a species' parts have this part (bark or foliage) at all, in either LOD.
const ProxyPart* findPart(const std::vector<ProxyPart>& parts, bool bark) {
  for (const ProxyPart& p : parts)
    if (p.bark == bark) return &p;
  return nullptr;
}

// A UsdPreviewSurface material for one part of a species, under `looks` (its absolute path).
// Bark: BARK_COLOR. Foliage: the instancer's per-instance primvars:displayColor through a
// primvar reader whose fallback is the species' base colour (what a renderer without instance
// primvars draws). A part with a texture: its texture through its st, instead of a colour.
void appendMaterial(std::string& out, const std::string& looks, const SpeciesRecord& s, const ProxyPart& part,
                    const std::string& texture) {
  const std::string path = looks + "/" + partName(part);
  out += "            def Material \"" + std::string(partName(part)) + "\"\n            {\n";
  out += "                token outputs:surface.connect = <" + path + "/PreviewSurface.outputs:surface>\n\n";
  out += "                def Shader \"PreviewSurface\"\n                {\n";
  out += "                    uniform token info:id = \"UsdPreviewSurface\"\n";
  if (!texture.empty()) {
    out += "                    color3f inputs:diffuseColor.connect = <" + path + "/Texture.outputs:rgb>\n";
  } else if (part.bark) {
    const float bark[3] = {BARK_COLOR};
    out += "                    color3f inputs:diffuseColor = ";
    appendTuple(out, bark, 3);
    out += "\n";
  } else {
    out += "                    color3f inputs:diffuseColor.connect = <" + path + "/Tint.outputs:result>\n";
  }
  out += "                    float inputs:metallic = 0\n                    float inputs:roughness = 1\n";
  out += "                    token outputs:surface\n                }\n";
  if (!texture.empty()) {
    out += "\n                def Shader \"Texture\"\n                {\n";
    out += "                    uniform token info:id = \"UsdUVTexture\"\n";
    out += "                    asset inputs:file = @" + texture + "@\n";
    out += "                    token inputs:sourceColorSpace = \"sRGB\"\n";
    out += "                    float2 inputs:st.connect = <" + path + "/St.outputs:result>\n";
    out += "                    token inputs:wrapS = \"repeat\"\n                    token inputs:wrapT = \"repeat\"\n";
    out += "                    float outputs:a\n                    float3 outputs:rgb\n                }\n";
    out += "\n                def Shader \"St\"\n                {\n";
    out += "                    uniform token info:id = \"UsdPrimvarReader_float2\"\n";
    out += "                    string inputs:varname = \"st\"\n";
    out += "                    float2 outputs:result\n                }\n";
  } else if (!part.bark) {
    out += "\n                def Shader \"Tint\"\n                {\n";
    out += "                    uniform token info:id = \"UsdPrimvarReader_float3\"\n";
    out += "                    float3 inputs:fallback = ";
    appendTuple(out, linearRgb(s.baseColor).data(), 3);
    out += "\n                    string inputs:varname = \"displayColor\"\n";
    out += "                    float3 outputs:result\n                }\n";
  }
  out += "            }\n";
}

// One part as a Mesh bound to its material, indented by `pad`.
void appendMesh(std::string& out, const std::string& pad, const ProxyPart& part, const std::string& material,
                bool withSt) {
  out += pad + "def Mesh \"" + partName(part) + "\" (\n" + pad + "    prepend apiSchemas = [\"MaterialBindingAPI\"]\n" +
         pad + ")\n" + pad + "{\n";
  const std::string in = pad + "    ";
  // Foliage includes single-sided grass blades; a proxy should not vanish from behind.
  if (!part.bark) out += in + "uniform bool doubleSided = true\n";
  out += in + "float3[] extent = [";
  appendTuple(out, part.min.data(), 3);
  out += ", ";
  appendTuple(out, part.max.data(), 3);
  out += "]\n" + in + "int[] faceVertexCounts = [";
  for (size_t i = 0; i < part.indices.size() / 3; ++i) out += i ? ", 3" : "3";
  out += "]\n" + in + "int[] faceVertexIndices = ";
  appendArray(out, part.indices, [&](uint32_t i) { appendInt(out, i); });
  out += "\n" + in + "rel material:binding = <" + material + ">\n" + in + "normal3f[] normals = ";
  appendArray(out, part.normals, [&](const std::array<float, 3>& n) { appendTuple(out, n.data(), 3); });
  out += " (\n" + in + "    interpolation = \"vertex\"\n" + in + ")\n" + in + "point3f[] points = ";
  appendArray(out, part.points, [&](const std::array<float, 3>& p) { appendTuple(out, p.data(), 3); });
  out += "\n";
  // Bark keeps its colour for viewers without materials; foliage takes the instancer's
  // per-instance displayColor.
  if (part.bark) {
    const float bark[3] = {BARK_COLOR};
    out += in + "color3f[] primvars:displayColor = [";
    appendTuple(out, bark, 3);
    out += "] (\n" + in + "    interpolation = \"constant\"\n" + in + ")\n";
  }
  if (withSt) {
    // USD's st has t up from the image's bottom row, glTF's v down from its top.
    out += in + "texCoord2f[] primvars:st = ";
    appendArray(out, part.uvs, [&](const std::array<float, 2>& uv) {
      const float st[2] = {uv[0], 1.f - uv[1]};
      appendTuple(out, st, 2);
    });
    out += " (\n" + in + "    interpolation = \"vertex\"\n" + in + ")\n";
  }
  out += in + "uniform token subdivisionScheme = \"none\"\n" + pad + "}\n";
}

}  // namespace

std::string usdTexturePath(const SpeciesRecord& species, const ProxyPart& part) {
  const char* ext = imageExtension(part.texture);
  if (!ext || part.uvs.size() != part.points.size()) return "";
  return "textures/" + usdPrimName(species) + "_" + partName(part) + "." + ext;
}

std::vector<UsdTextureFile> usdTextureFiles(const Manifest& manifest, const std::vector<bool>& keep,
                                            const SpeciesParts& lod0) {
  std::vector<UsdTextureFile> out;
  for (const SpeciesRecord& s : manifest.species) {
    if (!keep[s.id] || !s.meshAsset.empty()) continue;
    for (const ProxyPart& part : lod0[s.id])
      if (std::string path = usdTexturePath(s, part); !path.empty()) out.push_back({std::move(path), &part.texture});
  }
  return out;
}

std::string usdPrototypesLayer(const Manifest& manifest, const std::vector<bool>& keep, const SpeciesParts& lod0,
                               const SpeciesParts& lod1) {
  std::string out = layerHeader("Prototypes", "ecobake export: the species prototypes of " + manifest.name);
  out += "def Scope \"Prototypes\"\n{\n";
  for (const SpeciesRecord& s : manifest.species) {
    if (!keep[s.id]) continue;
    const std::string name = usdPrimName(s), root = "/Prototypes/" + name;
    out += "    def Xform \"" + name + "\" (\n        customData = {\n            string ecobake_species = " +
           quoted(s.name) + "\n            int ecobake_species_id = " + std::to_string(s.id) + "\n        }\n";
    if (!s.meshAsset.empty()) {
      // The species' own mesh, at its size at scale 1 (the instancer scales it uniformly). The
      // path is written as the config gives it (checked free of '@'): USD resolves it against
      // this layer or through the studio's asset resolver. It brings its own materials and LODs.
      out += "        prepend references = @" + s.meshAsset + "@\n    )\n    {\n    }\n";
      continue;
    }
    out += "        prepend variantSets = \"lod\"\n        variants = {\n            string lod = \"lod0\"\n"
           "        }\n    )\n    {\n";
    // One material per part the species has (LOD 1 simplifies LOD 0's triangles: the same
    // parts), outside the variants so both LODs bind the same ones. The texture is LOD 0's
    // part's (LOD 1 shares its vertices, so its UVs).
    out += "        def Scope \"Looks\"\n        {\n";
    std::string texture[2];  // bark, foliage
    for (bool bark : {true, false}) {
      const ProxyPart* part = findPart(lod0[s.id], bark);
      if (!part) part = findPart(lod1[s.id], bark);
      if (!part) continue;
      texture[bark ? 0 : 1] = usdTexturePath(s, *part);
      appendMaterial(out, root + "/Looks", s, *part, texture[bark ? 0 : 1]);
    }
    out += "        }\n        variantSet \"lod\" = {\n";
    for (int lod = 0; lod < 2; ++lod) {
      out += "            \"lod" + std::to_string(lod) + "\" {\n";
      for (const ProxyPart& part : (lod ? lod1 : lod0)[s.id]) {
        const bool st = !texture[part.bark ? 0 : 1].empty() && part.uvs.size() == part.points.size();
        appendMesh(out, "                ", part, root + "/Looks/" + partName(part), st);
      }
      out += "            }\n";
    }
    out += "        }\n    }\n";
  }
  out += "}\n";
  return out;
}

Box usdExtent(const Manifest& manifest, const SelectedTile& tile) {
  Box box;
  box.lo = {INFINITY, INFINITY, INFINITY};
  box.hi = {-INFINITY, -INFINITY, -INFINITY};
  for (const Instance& in : tile.instances) {
    const SpeciesRecord& s = manifest.species[in.species];
    const float r = (s.boundingRadius + std::fabs(s.boundingCenterY)) * in.scale;
    const float p[3] = {in.position.x, in.position.y, in.position.z};
    for (size_t c = 0; c < 3; ++c) {
      box.lo[c] = std::fmin(box.lo[c], p[c] - r);
      box.hi[c] = std::fmax(box.hi[c], p[c] + r);
    }
  }
  return box;
}

std::string usdTileLayer(const Manifest& manifest, const std::vector<bool>& keep, const SelectedTile& tile,
                         const Box& extent) {
  std::vector<int> protoIndex(manifest.species.size(), -1);
  std::vector<const SpeciesRecord*> protos;
  for (const SpeciesRecord& s : manifest.species)
    if (keep[s.id]) {
      protoIndex[s.id] = int(protos.size());
      protos.push_back(&s);
    }

  std::string out = layerHeader("tile", "ecobake export: tile " + std::to_string(tile.x) + ", " +
                                            std::to_string(tile.z) + " of " + manifest.name);
  out.reserve(out.size() + tile.instances.size() * 160);
  out += "def PointInstancer \"tile\"\n{\n";

  if (!tile.instances.empty()) {
    out += "    float3[] extent = [";
    appendTuple(out, extent.lo.data(), 3);
    out += ", ";
    appendTuple(out, extent.hi.data(), 3);
    out += "]\n";
  }

  out += "    int64[] ids = ";
  appendArray(out, tile.ids, [&](uint64_t id) { appendInt(out, id); });
  // quath, real part first: the instance transform's rotation (shaders/transform.h).
  out += "\n    quath[] orientations = ";
  appendArray(out, tile.instances, [&](const Instance& in) {
    const gpu::quat q = gpu::instanceOrientation({in.up.x, in.up.y, in.up.z}, in.yaw);
    const float halves[4] = {roundToHalf(q.w), roundToHalf(q.x), roundToHalf(q.y), roundToHalf(q.z)};
    appendTuple(out, halves, 4);
  });
  out += "\n    point3f[] positions = ";
  appendArray(out, tile.instances, [&](const Instance& in) {
    const float p[3] = {in.position.x, in.position.y, in.position.z};
    appendTuple(out, p, 3);
  });
  out += "\n    color3f[] primvars:displayColor = ";
  appendArray(out, tile.instances, [&](const Instance& in) { appendTuple(out, linearRgb(in.color).data(), 3); });
  out += " (\n        interpolation = \"vertex\"\n    )\n    int[] protoIndices = ";
  appendArray(out, tile.instances, [&](const Instance& in) { appendInt(out, protoIndex[in.species]); });
  out += "\n    rel prototypes = [";
  for (size_t i = 0; i < protos.size(); ++i)
    out += std::string(i ? ", " : "") + "</tile/Prototypes/" + usdPrimName(*protos[i]) + ">";
  out += "]\n    float3[] scales = ";
  appendArray(out, tile.instances, [&](const Instance& in) {
    const float s[3] = {in.scale, in.scale, in.scale};
    appendTuple(out, s, 3);
  });
  // Each prototype references its species in prototypes.usda and is instanceable: every tile's
  // prototype of a species has the same composition, so a composed stage holds one shared
  // prototype per species (and LOD variant selected) for all tiles, not a copy per tile.
  out += "\n\n    def Scope \"Prototypes\"\n    {\n";
  for (const SpeciesRecord* s : protos) {
    const std::string name = usdPrimName(*s);
    out += "        def \"" + name + "\" (\n            instanceable = true\n            references = @../prototypes.usda@</Prototypes/" +
           name + ">\n        )\n        {\n        }\n";
  }
  out += "    }\n}\n";
  return out;
}

std::string usdRootLayer(const Manifest& manifest, const std::vector<UsdTileRef>& tiles) {
  std::string out = layerHeader("World", "ecobake export of " + manifest.name + " (seed " +
                                             std::to_string(manifest.seed) + ", ecobake " + manifest.toolVersion + ")");
  out += "def Xform \"World\" (\n    kind = \"assembly\"\n)\n{\n";
  // Typeless: the payload's PointInstancer gives the prim its type (a type here would be the
  // stronger opinion and win). Components under the assembly keep the model hierarchy whole;
  // extentsHint gives an unloaded tile its bounds.
  for (const UsdTileRef& t : tiles) {
    out += "    def \"" + tileName(t.x, t.z) + "\" (\n        kind = \"component\"\n        payload = @" + t.file +
           "@\n    )\n    {\n        uniform float3[] extentsHint = [";
    appendTuple(out, t.extent.lo.data(), 3);
    out += ", ";
    appendTuple(out, t.extent.hi.data(), 3);
    out += "]\n    }\n";
  }
  out += "}\n";
  return out;
}

}  // namespace eco
