// USD export as text layers (USDA 1.0; no OpenUSD library is packaged for Debian). Layout and
// the choices behind it: docs/export.md.
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

std::string usdPrototypesLayer(const Manifest& manifest, const std::vector<bool>& keep, const SpeciesParts& meshes) {
  std::string out = layerHeader("Prototypes", "ecobake export: the species prototypes of " + manifest.name);
  out += "def Scope \"Prototypes\"\n{\n";
  for (const SpeciesRecord& s : manifest.species) {
    if (!keep[s.id]) continue;
    out += "    def Xform \"" + usdPrimName(s) + "\" (\n        customData = {\n            string ecobake_species = " +
           quoted(s.name) + "\n            int ecobake_species_id = " + std::to_string(s.id) + "\n        }\n";
    if (!s.meshAsset.empty()) {
      // The species' own mesh, at its size at scale 1 (the instancer scales it uniformly). The
      // path is written as the config gives it (checked free of '@'): USD resolves it against
      // this layer or through the studio's asset resolver.
      out += "        prepend references = @" + s.meshAsset + "@\n    )\n    {\n    }\n";
      continue;
    }
    out += "    )\n    {\n";
    for (const ProxyPart& part : meshes[s.id]) {
      out += part.bark ? "        def Mesh \"bark\"\n        {\n" : "        def Mesh \"foliage\"\n        {\n";
      // Foliage includes single-sided grass blades; a proxy should not vanish from behind.
      if (!part.bark) out += "            uniform bool doubleSided = true\n";
      out += "            float3[] extent = [";
      appendTuple(out, part.min.data(), 3);
      out += ", ";
      appendTuple(out, part.max.data(), 3);
      out += "]\n            int[] faceVertexCounts = [";
      for (size_t i = 0; i < part.indices.size() / 3; ++i) out += i ? ", 3" : "3";
      out += "]\n            int[] faceVertexIndices = ";
      appendArray(out, part.indices, [&](uint32_t i) { appendInt(out, i); });
      out += "\n            normal3f[] normals = ";
      appendArray(out, part.normals, [&](const std::array<float, 3>& n) { appendTuple(out, n.data(), 3); });
      out += " (\n                interpolation = \"vertex\"\n            )\n            point3f[] points = ";
      appendArray(out, part.points, [&](const std::array<float, 3>& p) { appendTuple(out, p.data(), 3); });
      out += "\n";
      // Bark keeps its colour; foliage takes the instancer's per-instance displayColor.
      if (part.bark) {
        const float bark[3] = {BARK_COLOR};
        out += "            color3f[] primvars:displayColor = [";
        appendTuple(out, bark, 3);
        out += "] (\n                interpolation = \"constant\"\n            )\n";
      }
      out += "            uniform token subdivisionScheme = \"none\"\n        }\n";
    }
    out += "    }\n";
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
  out += "\n\n    def Scope \"Prototypes\"\n    {\n";
  for (const SpeciesRecord* s : protos) {
    const std::string name = usdPrimName(*s);
    out += "        def \"" + name + "\" (\n            references = @../prototypes.usda@</Prototypes/" + name +
           ">\n        )\n        {\n        }\n";
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
