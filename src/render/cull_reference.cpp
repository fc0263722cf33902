#include "render/cull_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace eco::render {

int referenceCull(const gpu::GpuInstance& inst, const gpu::FrameData& f, float* margin) {
  float radius;
  std::memcpy(&radius, &inst.extra.z, 4);
  // sphere centre: origin + 0.5 * column 1
  float cx = inst.row0.w + 0.5f * inst.row0.y;
  float cy = inst.row1.w + 0.5f * inst.row1.y;
  float cz = inst.row2.w + 0.5f * inst.row2.y;
  float rx = cx - f.eye.x, ry = cy - f.eye.y, rz = cz - f.eye.z;
  float vx = rx * f.right.x + ry * f.right.y + rz * f.right.z;
  float vy = rx * f.up.x + ry * f.up.y + rz * f.up.z;
  float vz = rx * f.forward.x + ry * f.forward.y + rz * f.forward.z;
  bool keep = true;
  float m = 1e30f;
  auto test = [&](float d) {  // passes when d > 0
    m = std::min(m, std::abs(d));
    return d > 0;
  };
  if (f.cull.y & gpu::CULL_FRUSTUM) {
    float fx = f.proj.x, fy = f.proj.y;
    float ix = 1.0f / std::sqrt(fx * fx + 1), iy = 1.0f / std::sqrt(fy * fy + 1);
    bool n = test(vz + radius - f.eye.w);
    bool l = test((vz * fx + vx) * ix + radius);
    bool r = test((vz * fx - vx) * ix + radius);
    bool b = test((vz * fy + vy) * iy + radius);
    bool t = test((vz * fy - vy) * iy + radius);
    keep = n && l && r && b && t;
  }
  int lod = 0;
  if (f.cull.y & gpu::CULL_DISTANCE) {
    float dist = std::sqrt(rx * rx + ry * ry + rz * rz);
    keep = test(radius * f.lod.y - dist) && keep;
    lod = test(dist - radius * f.lod.x) ? 1 : 0;
  }
  if (margin) *margin = m;
  if (!keep) return -1;
  int kind = int(std::min<uint32_t>(inst.extra.y, gpu::KIND_COUNT - 1));
  return kind * int(gpu::LOD_COUNT) + lod;
}

}  // namespace eco::render
