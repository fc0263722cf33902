#include "render/cull_reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace eco::render {

int referenceCull(const gpu::GpuInstance& inst, const gpu::FrameData& f) {
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
  if (f.cull.y & gpu::CULL_FRUSTUM) {
    float fx = f.proj.x, fy = f.proj.y;
    float ix = 1.0f / std::sqrt(fx * fx + 1), iy = 1.0f / std::sqrt(fy * fy + 1);
    keep = vz + radius > f.eye.w && (vz * fx + vx) * ix + radius > 0 && (vz * fx - vx) * ix + radius > 0 &&
           (vz * fy + vy) * iy + radius > 0 && (vz * fy - vy) * iy + radius > 0;
  }
  int lod = 0;
  if (f.cull.y & gpu::CULL_DISTANCE) {
    float dist = std::sqrt(rx * rx + ry * ry + rz * rz);
    keep = keep && dist <= radius * f.lod.y;
    lod = dist > radius * f.lod.x ? 1 : 0;
  }
  if (!keep) return -1;
  int kind = int(std::min<uint32_t>(inst.extra.y, gpu::KIND_COUNT - 1));
  return kind * int(gpu::LOD_COUNT) + lod;
}

}  // namespace eco::render
