#version 460
// Per instance and view: bounding sphere vs the view's planes, draw distance and LOD choice
// (from the camera, so every view draws the mesh the camera sees), and for the camera vs the
// Hi-Z pyramid of this frame's terrain depth (reversed Z, min reduction). Survivors are
// appended to their (view, species, LOD) draw: LOD 0 upward from the region's start, LOD 1
// downward from its end (cull_finish.comp then fixes LOD 1's firstInstance). Views past the
// camera are the sun's shadow cascades; only SPECIES_CASTS species are drawn there.
#include "shared.h"
#include "common.glsl"

layout(local_size_x = CULL_GROUP) in;

layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer VisibleList { uint items[]; };

layout(binding = 0) uniform Frame { FrameData frame; };
layout(binding = 1) readonly buffer Pages { GpuPage pages[]; };
layout(binding = 2) buffer Draws { DrawCommand draws[]; };
layout(binding = 3) readonly buffer PageList { uint pageList[]; };  // the pages culled this frame
layout(binding = 4) buffer Stats { uint stats[]; };
layout(binding = 5) uniform sampler2D pyramid;
layout(binding = 6) readonly buffer Tiles { GpuTile tiles[]; };
layout(binding = 7) readonly buffer Species { GpuSpecies species[]; };
// the visible list can exceed maxStorageBufferRange (4 bytes per instance a view can draw)
// the pages to cull: pageList[listBase + i] for i below listCount (Renderer::listPages's, or
// far_pages.comp's with its count in the indirect dispatch)
layout(push_constant) uniform Push { uvec2 visibleAddress; uint listBase, listCount; };

shared uint groupFrustum;
shared uint groupVisible;

#include "hiz.glsl"

bool occluded(vec3 c, float r) {
  float near = frame.eye.w;
  if (c.z - r <= near) return false;  // touches the near plane: keep
  float sphereDepth = near / (c.z - r);  // reversed Z: the sphere's closest point
  return sphereDepth < farthestDepth(c, r);
}

void append(uint view, uint speciesId, uint lod, uint ref) {
  uint cmd = (view * frame.draws.x + speciesId) * LOD_COUNT + lod;
  uint n = atomicAdd(draws[cmd].instanceCount, 1);
  uint dst = lod == 0 ? draws[cmd].firstInstance + n : draws[cmd].regionEnd - 1 - n;
  // regions hold every instance within reach (render/visible_reach.h); never past the list
  if (dst < frame.cull.w) VisibleList(visibleAddress).items[dst] = ref;
}

void main() {
  // pages beyond the dispatch's y limit continue in z (Renderer: rows of PAGE_ROWS pages)
  uint listed = gl_WorkGroupID.y + gl_WorkGroupID.z * PAGE_ROWS;
  if (listed >= listCount) return;  // the whole workgroup
  uint pageIndex = pageList[listBase + listed];
  GpuPage page = pages[pageIndex];
  uint slot = gl_GlobalInvocationID.x;
  uint flags = frame.cull.y;
  bool farTree = (page.header.w & PAGE_FAR_TREES) != 0;  // render/far_field.h far trees
  if (gl_LocalInvocationIndex == 0) {
    groupFrustum = 0;
    groupVisible = 0;
  }
  barrier();
  uint tested = min(page.header.z - min(page.header.z, gl_WorkGroupID.x * CULL_GROUP), CULL_GROUP);
  if (slot < page.header.z) {
    PackedInstance packed = InstancePage(page.header.xy).items[slot];
    uint speciesId = packed.w >> 24;
    GpuSpecies sp = species[speciesId];
    Instance inst = decodeWith(packed, tiles[page.header.w & ~PAGE_FAR_TREES], sp);
    vec4 sphere = instanceSphere(inst, sp);
    vec3 rel = sphere.xyz - frame.eye.xyz;
    vec3 c = vec3(dot(rel, frame.right.xyz), dot(rel, frame.up.xyz), dot(rel, frame.forward.xyz));
    float r = sphere.w;
    uint ref = (pageIndex << PAGE_SHIFT) | slot;

    // decisions every view shares: hidden, draw distance, LOD
    // ids past the table have no draw records (tiles are checked on load; this keeps the
    // writes inside the buffer whatever a record says)
    bool drawn = speciesId < frame.draws.x && !speciesHidden(frame, speciesId);
    uint kind = inst.kind;
    float dist = length(rel);
    uint lod = 0;
    if ((flags & CULL_DISTANCE) != 0) lod = dist > r * frame.lod.x ? 1 : 0;
    if ((flags & CULL_FADE) != 0) {
      // thinned out between fadeStart and fadeEnd by a per-instance threshold that does not
      // depend on where the instance sits in GPU memory, so the picture is stable as tiles stream
      float start = frame.fadeStart[kind], end = frame.fadeEnd[kind];
      float t = (dist - start) / max(end - start, 1e-3);
      if (!farTree)
        drawn = drawn && dist <= end && (dist <= start || hash01(inst.hash) >= t);
      else  // a far tree: past its tile's fade, and only against the sky (skyBehind below)
        drawn = drawn && (flags & CULL_FAR_TREES) != 0 && dist > end;
    } else {
      drawn = drawn && !farTree;  // every tile's own copy is drawn
    }

    bool keep = drawn;
    if ((flags & CULL_FRUSTUM) != 0) {
      // planes of the same clip matrix the vertex shaders use (camera.cpp frustumPlanes)
      for (uint i = 0; i < FRUSTUM_PLANES; ++i)
        keep = keep && dot(frame.frustum[i].xyz, sphere.xyz) + frame.frustum[i].w >= -r;
    }
    // a far tree (drawn only past its tile's fade) a few pixels wide (sphere radius in pixels
    // r fy / depth * height / 2) is drawn as its card
    bool card = farTree && r * frame.proj.y * frame.proj.w < float(2 * FAR_CARD_PX) * c.z;
    if (keep) atomicAdd(groupFrustum, 1);
    // The far field's layer holds the far trees too and draws them everywhere but against the
    // sky, where its smooth canopy cannot show single trees' tips
    if (keep && farTree) keep = skyBehind(c, r);
    if (keep && (flags & CULL_OCCLUSION) != 0) keep = !occluded(c, r);
    if (keep) {
      atomicAdd(groupVisible, 1);
      if (card) {
        uint cmd = VIEW_COUNT * frame.draws.x * LOD_COUNT;
        uint n = atomicAdd(draws[cmd].indexCount, 1);
        if (n < draws[cmd].firstInstance && draws[cmd].vertexOffset + n < frame.cull.w)
          VisibleList(visibleAddress).items[draws[cmd].vertexOffset + n] = ref;
      } else {
        append(0, speciesId, lod, ref);
      }
    }

    // shadow casters: every cascade whose box the sphere touches and whose shadow can reach
    // what the camera sees of the cascade (frame.shadowReceivers; with frustum culling), not
    // occlusion: the sun sees what the camera does not
    // (never a far tree: the layer's shade on the ground stands for it)
    if (drawn && !farTree && (flags & CULL_SHADOWS) != 0 && (sp.info.y & SPECIES_CASTS) != 0) {
      bool receiversOnly = (flags & CULL_FRUSTUM) != 0;
      for (uint v = 1; v < frame.draws.y; ++v) {
        bool inside = true;
        for (uint i = 0; i < FRUSTUM_PLANES; ++i) {
          vec4 plane = frame.shadowPlanes[(v - 1) * FRUSTUM_PLANES + i];
          inside = inside && dot(plane.xyz, sphere.xyz) + plane.w >= -r;
          vec4 receiver = frame.shadowReceivers[(v - 1) * FRUSTUM_PLANES + i];
          inside = inside && (!receiversOnly || dot(receiver.xyz, sphere.xyz) + receiver.w >= -r);
        }
        // past the first cascade a texel spans metres: the coarse mesh casts the same shadow
        if (inside) append(v, speciesId, v > 1 ? 1 : lod, ref);
      }
    }
  }

  barrier();
  if (gl_LocalInvocationIndex == 0) {
    if (tested > 0) atomicAdd(stats[STAT_TESTED], tested);
    if (groupFrustum > 0) atomicAdd(stats[STAT_FRUSTUM], groupFrustum);
    if (groupVisible > 0) atomicAdd(stats[STAT_VISIBLE], groupVisible);
  }
}
