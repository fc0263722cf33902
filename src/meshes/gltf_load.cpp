// glTF 2.0 loading (tinygltf parses, this file checks): a mesh file is hostile input like any
// other, so every index, offset and count is checked against what it points into before it is
// read, counts against mesh_limits before anything is sized from them, and every failure is
// one line naming the file and the element. Images are never decoded (the viewer tints by
// species), and a .gltf's external buffers must lie in its own folder.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/file_io.h"
#include "meshes/mesh_build.h"
#include "meshes/meshes.h"

// The packaged libtinygltf.so holds the implementation; the header only declares it. No image
// decoder is wanted (a loader that skips images is installed below).
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#include <tiny_gltf.h>

namespace eco {

namespace fs = std::filesystem;

namespace {

constexpr int kModeTriangles = 4;
constexpr int kFloat = 5126, kUByte = 5121, kUShort = 5123, kUInt = 5125;

// Only external files inside `folder` (after resolving links) may be read; "" allows none.
struct FileAccess {
  std::string folder;
};

bool insideFolder(const std::string& path, const FileAccess& access) {
  if (access.folder.empty()) return false;
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::path(access.folder), ec);
  if (ec) return false;
  const fs::path file = fs::weakly_canonical(fs::path(path), ec);
  if (ec) return false;
  const fs::path rel = file.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

bool fileExists(const std::string& path, void* user) {
  std::error_code ec;
  return insideFolder(path, *static_cast<FileAccess*>(user)) && fs::is_regular_file(path, ec);
}
std::string expandPath(const std::string& path, void*) { return path; }
bool readWholeFile(std::vector<unsigned char>* out, std::string* err, const std::string& path, void* user) {
  if (!insideFolder(path, *static_cast<FileAccess*>(user))) {
    *err = "external file " + path + " lies outside the glTF file's folder";
    return false;
  }
  try {
    *out = readFileBytes(path, mesh_limits::kMaxFileBytes, "glTF buffer");
    return true;
  } catch (const std::exception& e) {
    *err = e.what();
    return false;
  }
}
bool refuseWrite(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
  *err = "writing is not allowed";
  return false;
}
// Images are not decoded: vegetation is tinted per species.
bool skipImage(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

std::string firstLine(std::string s) {
  const size_t nl = s.find_first_of("\r\n");
  if (nl != std::string::npos) s.resize(nl);
  while (!s.empty() && (s.back() == ' ' || s.back() == '.')) s.pop_back();
  return s.empty() ? "not a valid glTF file" : s;
}

uint32_t le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

// The GLB container: header and chunk bounds, before tinygltf reads any of it.
std::string glbProblem(const std::vector<uint8_t>& b) {
  if (b.size() < 20) return "truncated GLB (" + std::to_string(b.size()) + " bytes, the header alone is 20)";
  if (le32(&b[4]) != 2) return "GLB version " + std::to_string(le32(&b[4])) + ", expected 2";
  if (le32(&b[8]) != b.size())
    return "GLB header says " + std::to_string(le32(&b[8])) + " bytes, the file has " + std::to_string(b.size()) +
           " (truncated?)";
  const uint64_t jsonLength = le32(&b[12]);
  if (le32(&b[16]) != 0x4E4F534Au) return "the first GLB chunk is not JSON";
  if (20 + jsonLength > b.size()) return "the GLB JSON chunk runs past the end of the file";
  const uint64_t next = 20 + ((jsonLength + 3) & ~uint64_t(3));
  if (next < b.size()) {
    if (next + 8 > b.size()) return "truncated GLB chunk header";
    if (next + 8 + le32(&b[next]) > b.size()) return "the GLB BIN chunk runs past the end of the file";
  }
  return "";
}

using Mat4 = std::array<double, 16>;  // column-major, as glTF stores it
constexpr Mat4 kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

Mat4 multiply(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
      r[size_t(c * 4 + row)] = s;
    }
  return r;
}

Mat4 nodeMatrix(const tinygltf::Node& n, const std::string& where) {
  auto finite = [&](const std::vector<double>& v) {
    for (double x : v)
      if (!std::isfinite(x)) throw InputError(where + ": a transform component is not finite");
  };
  if (!n.matrix.empty()) {
    if (n.matrix.size() != 16) throw InputError(where + ": matrix has " + std::to_string(n.matrix.size()) + " numbers, expected 16");
    finite(n.matrix);
    Mat4 m{};
    std::copy(n.matrix.begin(), n.matrix.end(), m.begin());
    return m;
  }
  Mat4 t = kIdentity, r = kIdentity, s = kIdentity;
  if (!n.translation.empty()) {
    if (n.translation.size() != 3) throw InputError(where + ": translation needs 3 numbers");
    finite(n.translation);
    t[12] = n.translation[0], t[13] = n.translation[1], t[14] = n.translation[2];
  }
  if (!n.rotation.empty()) {
    if (n.rotation.size() != 4) throw InputError(where + ": rotation needs 4 numbers");
    finite(n.rotation);
    double x = n.rotation[0], y = n.rotation[1], z = n.rotation[2], w = n.rotation[3];
    const double len = std::sqrt(x * x + y * y + z * z + w * w);
    if (!(len > 0)) throw InputError(where + ": rotation is a zero quaternion");
    x /= len, y /= len, z /= len, w /= len;
    r = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
         0, 0, 0, 1};
  }
  if (!n.scale.empty()) {
    if (n.scale.size() != 3) throw InputError(where + ": scale needs 3 numbers");
    finite(n.scale);
    s[0] = n.scale[0], s[5] = n.scale[1], s[10] = n.scale[2];
  }
  return multiply(t, multiply(r, s));
}

struct Reader {
  const tinygltf::Model& model;
  std::string name;
  MetricMesh out;
  uint64_t triangles = 0;

  [[noreturn]] void fail(const std::string& where, const std::string& why) const {
    throw InputError(name + ": " + where + ": " + why);
  }

  // An accessor's elements, checked: bounds of the view in the buffer and of every element
  // in the view, before anything is read.
  struct View {
    const uint8_t* data = nullptr;
    size_t stride = 0, count = 0;
    int componentType = 0;
  };
  View accessor(int index, int type, std::initializer_list<int> components, const std::string& where) const {
    if (index < 0 || size_t(index) >= model.accessors.size())
      fail(where, "accessor " + std::to_string(index) + " does not exist (" + std::to_string(model.accessors.size()) +
                      " accessors)");
    const tinygltf::Accessor& a = model.accessors[size_t(index)];
    const std::string at = where + " (accessor " + std::to_string(index) + ")";
    if (a.sparse.isSparse) fail(at, "sparse accessors are not supported");
    if (a.type != type) fail(at, "unexpected element type");
    if (std::find(components.begin(), components.end(), a.componentType) == components.end())
      fail(at, "unsupported component type " + std::to_string(a.componentType));
    if (a.bufferView < 0 || size_t(a.bufferView) >= model.bufferViews.size())
      fail(at, "buffer view " + std::to_string(a.bufferView) + " does not exist");
    const tinygltf::BufferView& v = model.bufferViews[size_t(a.bufferView)];
    if (v.buffer < 0 || size_t(v.buffer) >= model.buffers.size()) fail(at, "buffer " + std::to_string(v.buffer) + " does not exist");
    const tinygltf::Buffer& b = model.buffers[size_t(v.buffer)];
    if (v.byteOffset > b.data.size() || v.byteLength > b.data.size() - v.byteOffset)
      fail(at, "buffer view " + std::to_string(a.bufferView) + " (" + std::to_string(v.byteLength) + " bytes at " +
                   std::to_string(v.byteOffset) + ") runs past the end of buffer " + std::to_string(v.buffer) + " (" +
                   std::to_string(b.data.size()) + " bytes)");
    const size_t component = a.componentType == kUByte ? 1 : a.componentType == kUShort ? 2 : 4;
    const size_t elementSize = component * size_t(type == TINYGLTF_TYPE_VEC3 ? 3 : 1);
    const size_t stride = v.byteStride ? v.byteStride : elementSize;
    if (stride < elementSize || stride > 252)  // glTF: byteStride in [4, 252]
      fail(at, "byte stride " + std::to_string(stride) + " is outside [" + std::to_string(elementSize) + ", 252]");
    if (a.count > mesh_limits::kMaxVertices * 3)
      fail(at, std::to_string(a.count) + " elements, more than the limit of " + std::to_string(mesh_limits::kMaxVertices * 3));
    if (a.count > 0) {
      const uint64_t end = uint64_t(a.byteOffset) + uint64_t(stride) * (uint64_t(a.count) - 1) + elementSize;
      if (a.byteOffset > v.byteLength || end > v.byteLength)
        fail(at, std::to_string(a.count) + " elements at offset " + std::to_string(a.byteOffset) +
                     " run past the end of buffer view " + std::to_string(a.bufferView) + " (" +
                     std::to_string(v.byteLength) + " bytes)");
    }
    return {b.data.data() + v.byteOffset + a.byteOffset, stride, a.count, a.componentType};
  }

  bool bark(int material, const std::string& where) const {
    if (material < 0) return false;
    if (size_t(material) >= model.materials.size())
      fail(where, "material " + std::to_string(material) + " does not exist");
    const tinygltf::Material& m = model.materials[size_t(material)];
    std::string lower = m.name;
    for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("bark") != std::string::npos || lower.find("trunk") != std::string::npos) return true;
    if (m.extras.IsObject() && m.extras.Has("ecobake_tint")) {
      const tinygltf::Value& t = m.extras.Get("ecobake_tint");
      if (!t.IsBool()) fail(where, "material " + std::to_string(material) + " extras.ecobake_tint must be true or false");
      return !t.Get<bool>();
    }
    return false;
  }

  void primitive(const tinygltf::Primitive& p, const Mat4& m, const std::string& where) {
    const int mode = p.mode < 0 ? kModeTriangles : p.mode;
    if (mode != kModeTriangles) return;  // points, lines, strips and fans are not drawn
    const auto pos = p.attributes.find("POSITION");
    if (pos == p.attributes.end()) fail(where, "no POSITION attribute");
    const View positions = accessor(pos->second, TINYGLTF_TYPE_VEC3, {kFloat}, where + ": POSITION");
    View normals;
    if (const auto n = p.attributes.find("NORMAL"); n != p.attributes.end()) {
      normals = accessor(n->second, TINYGLTF_TYPE_VEC3, {kFloat}, where + ": NORMAL");
      if (normals.count != positions.count)
        fail(where, "NORMAL has " + std::to_string(normals.count) + " elements, POSITION " + std::to_string(positions.count));
    }
    View indices;
    const bool indexed = p.indices >= 0;
    if (indexed) indices = accessor(p.indices, TINYGLTF_TYPE_SCALAR, {kUByte, kUShort, kUInt}, where + ": indices");
    const size_t indexCount = indexed ? indices.count : positions.count;
    if (indexCount % 3) fail(where, std::to_string(indexCount) + " indices is not a whole number of triangles");
    // Limits before allocating.
    if (out.vertices.size() + positions.count > mesh_limits::kMaxVertices)
      fail(where, "more than " + std::to_string(mesh_limits::kMaxVertices) + " vertices in the file");
    triangles += indexCount / 3;
    if (triangles > mesh_limits::kMaxTriangles)
      fail(where, "more than " + std::to_string(mesh_limits::kMaxTriangles) + " triangles in the file");
    const float tint = bark(p.material, where) ? 0.f : 1.f;

    const bool identity = m == kIdentity;
    // Normals go through the cofactor matrix C (the inverse transpose times det; c[3 j + i]
    // holds C[i][j]), times the sign of det; a mirroring transform also flips the winding to
    // keep faces outward.
    const double c[9] = {m[5] * m[10] - m[6] * m[9], m[6] * m[8] - m[4] * m[10], m[4] * m[9] - m[5] * m[8],
                         m[9] * m[2] - m[10] * m[1], m[10] * m[0] - m[8] * m[2], m[8] * m[1] - m[9] * m[0],
                         m[1] * m[6] - m[2] * m[5], m[2] * m[4] - m[0] * m[6], m[0] * m[5] - m[1] * m[4]};
    const double det = m[0] * c[0] + m[1] * c[1] + m[2] * c[2];
    if (!identity && !(std::fabs(det) > 0)) fail(where, "its node transform is singular (determinant 0)");
    const double sign = det < 0 ? -1 : 1;

    const uint32_t base = uint32_t(out.vertices.size());
    std::vector<MeshVertex> verts(positions.count);
    for (size_t i = 0; i < positions.count; ++i) {
      float p3[3];
      std::memcpy(p3, positions.data + i * positions.stride, sizeof p3);
      for (float x : p3)
        if (!std::isfinite(x)) fail(where, "POSITION " + std::to_string(i) + " is not finite");
      MeshVertex& v = verts[i];
      if (identity) {
        v.position[0] = p3[0], v.position[1] = p3[1], v.position[2] = p3[2];
      } else {
        for (int r = 0; r < 3; ++r)
          v.position[r] = float(m[size_t(r)] * double(p3[0]) + m[size_t(4 + r)] * double(p3[1]) +
                                m[size_t(8 + r)] * double(p3[2]) + m[size_t(12 + r)]);
      }
      for (int r = 0; r < 3; ++r)
        if (!(std::fabs(v.position[r]) <= 1e4f))
          fail(where, "POSITION " + std::to_string(i) + " lies more than 10 km from the origin");
      v.position[3] = tint;
      v.normal[3] = 0;
    }
    std::vector<uint32_t> local(indexCount);
    for (size_t k = 0; k < indexCount; ++k) {
      uint32_t i = uint32_t(k);
      if (indexed) {
        const uint8_t* e = indices.data + k * indices.stride;
        if (indices.componentType == kUByte) i = e[0];
        else if (indices.componentType == kUShort) i = uint32_t(e[0] | e[1] << 8);
        else i = le32(e);
        if (i >= positions.count)
          fail(where, "index " + std::to_string(i) + " (element " + std::to_string(k) + ") is beyond the " +
                          std::to_string(positions.count) + " vertices");
      }
      local[k] = i;
    }
    if (sign < 0)
      for (size_t t = 0; t < local.size(); t += 3) std::swap(local[t + 1], local[t + 2]);

    bool given = normals.data != nullptr;
    if (given) {
      for (size_t i = 0; i < normals.count && given; ++i) {
        float n[3];
        std::memcpy(n, normals.data + i * normals.stride, sizeof n);
        for (float x : n)
          if (!std::isfinite(x)) fail(where, "NORMAL " + std::to_string(i) + " is not finite");
        double t[3] = {double(n[0]), double(n[1]), double(n[2])};
        if (!identity)
          for (int r = 0; r < 3; ++r)
            t[r] = sign * (c[r] * double(n[0]) + c[3 + r] * double(n[1]) + c[6 + r] * double(n[2]));
        const double len = std::sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        if (!(len > 1e-12)) {
          given = false;  // a zero normal: compute them all instead
          break;
        }
        float* o = verts[i].normal;
        // Unit normals are kept as written, so a file this stage wrote reads back bit for bit.
        if (identity && std::fabs(len - 1) <= 1e-5) {
          o[0] = n[0], o[1] = n[1], o[2] = n[2];
        } else {
          o[0] = float(t[0] / len), o[1] = float(t[1] / len), o[2] = float(t[2] / len);
        }
      }
    }
    if (!given) computeNormals(verts, local);
    out.vertices.insert(out.vertices.end(), verts.begin(), verts.end());
    for (uint32_t i : local) out.indices.push_back(base + i);
  }

  void node(int index, const Mat4& parent, int depth, std::vector<bool>& seen) {
    const std::string where = "node " + std::to_string(index);
    if (index < 0 || size_t(index) >= model.nodes.size()) fail(where, "does not exist");
    if (depth > mesh_limits::kMaxNodeDepth) fail(where, "nodes nested deeper than " + std::to_string(mesh_limits::kMaxNodeDepth));
    if (seen[size_t(index)]) fail(where, "is reached twice (the node hierarchy must be a tree)");
    seen[size_t(index)] = true;
    const tinygltf::Node& n = model.nodes[size_t(index)];
    const Mat4 local = nodeMatrix(n, name + ": " + where);
    const Mat4 world = local == kIdentity ? parent : parent == kIdentity ? local : multiply(parent, local);
    if (n.mesh >= 0) {
      if (size_t(n.mesh) >= model.meshes.size()) fail(where, "mesh " + std::to_string(n.mesh) + " does not exist");
      const tinygltf::Mesh& mesh = model.meshes[size_t(n.mesh)];
      for (size_t p = 0; p < mesh.primitives.size(); ++p)
        primitive(mesh.primitives[p], world, "mesh " + std::to_string(n.mesh) + " primitive " + std::to_string(p));
    }
    for (int child : n.children) node(child, world, depth + 1, seen);
  }
};

}  // namespace

MetricMesh parseMetricMesh(const std::vector<uint8_t>& bytes, const std::string& name, const std::string& folder) {
  if (bytes.size() > mesh_limits::kMaxFileBytes)
    throw InputError(name + ": " + std::to_string(bytes.size()) + " bytes, more than the mesh file limit of " +
                     std::to_string(mesh_limits::kMaxFileBytes));
  tinygltf::TinyGLTF loader;
  FileAccess access{folder};
  loader.SetFsCallbacks({&fileExists, &expandPath, &readWholeFile, &refuseWrite, &access});
  loader.SetImageLoader(&skipImage, nullptr);
  tinygltf::Model model;
  std::string err, warn;
  bool ok = false;
  const bool binary = bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
  try {
    if (binary) {
      if (std::string why = glbProblem(bytes); !why.empty()) throw InputError(name + ": " + why);
      ok = loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), unsigned(bytes.size()), folder);
    } else {
      const bool json = std::find_if(bytes.begin(), bytes.end(), [](uint8_t c) { return !std::isspace(c); }) !=
                            bytes.end() &&
                        *std::find_if(bytes.begin(), bytes.end(), [](uint8_t c) { return !std::isspace(c); }) == '{';
      if (!json) throw InputError(name + ": neither a GLB (no \"glTF\" magic) nor glTF JSON");
      ok = loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(bytes.data()),
                                      unsigned(bytes.size()), folder);
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {  // tinygltf's JSON parser throws on some malformed text
    throw InputError(name + ": " + firstLine(e.what()));
  }
  if (!ok) throw InputError(name + ": " + firstLine(err));
  // glTF 2.0 section 3.12: a loader must refuse a file that requires an extension it does not
  // support. This reader supports none (Draco, meshopt or BasisU data would be read as garbage
  // or not at all).
  if (!model.extensionsRequired.empty())
    throw InputError(name + ": requires the glTF extension " + model.extensionsRequired.front() +
                     ", which this reader does not support; save the mesh without it");

  Reader r{model, name, {}, 0};
  if (model.scenes.empty()) throw InputError(name + ": no scene");
  const int scene = model.defaultScene >= 0 ? model.defaultScene : 0;
  if (size_t(scene) >= model.scenes.size()) throw InputError(name + ": default scene " + std::to_string(scene) + " does not exist");
  std::vector<bool> seen(model.nodes.size(), false);
  for (int n : model.scenes[size_t(scene)].nodes) r.node(n, kIdentity, 0, seen);
  if (r.out.indices.empty()) throw InputError(name + ": no triangles in scene " + std::to_string(scene));
  return std::move(r.out);
}

MetricMesh loadMetricMesh(const std::string& path) {
  const std::vector<uint8_t> bytes = readFileBytes(path, mesh_limits::kMaxFileBytes, "mesh file");
  std::string folder = fs::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  return parseMetricMesh(bytes, path, folder);
}

LoadedMesh toUnitSpace(const MetricMesh& mesh, float meshHeight, float crownRadius) {
  if (!(meshHeight > 0) || !(crownRadius > 0))
    throw InputError("mesh height and crown radius must be positive to scale a mesh file");
  LoadedMesh out;
  out.indices = mesh.indices;
  out.vertices = mesh.vertices;
  const float s[3] = {crownRadius, meshHeight, crownRadius};
  for (MeshVertex& v : out.vertices) {
    // Positions shrink by the bounds; normals grow by them (the inverse transpose), so that
    // the instance transform's n / size gives back the file's normal.
    double n[3], len = 0;
    for (int c = 0; c < 3; ++c) {
      v.position[c] /= s[c];
      n[c] = double(v.normal[c]) * double(s[c]);
      len += n[c] * n[c];
    }
    len = std::sqrt(len);
    for (int c = 0; c < 3; ++c) v.normal[c] = len > 0 ? float(n[c] / len) : (c == 1 ? 1.f : 0.f);
  }
  return out;
}

LoadedMesh loadMeshFile(const std::string& path, float meshHeight, float crownRadius) {
  return toUnitSpace(loadMetricMesh(path), meshHeight, crownRadius);
}

}  // namespace eco
