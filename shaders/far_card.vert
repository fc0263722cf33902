#version 460
// Far cards (render/far_field.h far trees a few pixels wide): one point each, one
// non-instanced draw (shared.h FAR_CARD_PX); card i's reference is the visible list's entry
// firstInstance + i. The point covers the crown's outline on the screen (meshes.h
// SpeciesMesh::card: its foliage's height range and reach); far_card.frag cuts the outline
// out of it. The card is lit here, once: the crown's visible side at five normals in the frame
// of the eye's ray (toward the eye, and out to the screen's right, left, up and down), which
// the pixels blend by their own normal (a card is a few pixels). No shadow: the cascades
// seldom reach past the load radius.
#include "shared.h"
#include "common.glsl"

layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer VisibleList { uint items[]; };

layout(binding = 0) uniform Frame { FrameData frame; };
#include "plant_shading.glsl"
layout(binding = 1) readonly buffer Pages { GpuPage pages[]; };
layout(binding = 6) readonly buffer Tiles { GpuTile tiles[]; };
layout(binding = 7) readonly buffer Species { GpuSpecies species[]; };
layout(push_constant) uniform Push { uvec2 visibleAddress; uint view; };

// x, y: the outline's half width and half height over the point's half size; z: 1 a cone;
// w: a cone's half-angle tangent (its radius over its height)
layout(location = 0) flat out vec4 outShape;
// the finished colour toward the eye, to the right, left, up and down (far_card.frag)
layout(location = 1) flat out vec3 outToward;
layout(location = 2) flat out vec3 outRight;
layout(location = 3) flat out vec3 outLeft;
layout(location = 4) flat out vec3 outUp;
layout(location = 5) flat out vec3 outDown;
layout(location = 6) flat out float outSize;  // gl_PointSize

void main() {
  uint ref = VisibleList(visibleAddress).items[gl_InstanceIndex + gl_VertexIndex];
  GpuPage page = pages[ref >> PAGE_SHIFT];
  PackedInstance packed = InstancePage(page.header.xy).items[ref & (PAGE_SIZE - 1)];
  GpuSpecies sp = species[packed.w >> 24];
  Instance inst = decodeWith(packed, tiles[page.header.w & ~PAGE_FAR_TREES], sp);
  vec4 card = sp.card;  // foliage from card.x to card.y (unit height), card.z crown radii wide, card.w cone
  vec3 bottom = inst.position + inst.up * (card.x * inst.size.y), top = inst.position + inst.up * (card.y * inst.size.y);
  vec3 centre = 0.5 * (bottom + top);
  vec4 clip = viewClip(frame, view, centre);
  vec4 clipTop = viewClip(frame, view, top), clipBottom = viewClip(frame, view, bottom);
  float depth = max(clip.w, 1e-3);
  // pixels: the axis's half length on the screen; the crown's radius; seen from above, the
  // crown's disc shows its radius times the sine of the view's elevation up the screen too
  float axis = 0.25 * abs(clipTop.y / clipTop.w - clipBottom.y / clipBottom.w) * frame.proj.w;
  float radius = card.z * inst.size.x * frame.proj.x / depth * 0.5 * frame.proj.z;
  float elevation = abs(dot(normalize(frame.eye.xyz - centre), inst.up));
  float halfHeight = sqrt(axis * axis + radius * radius * elevation * elevation);
  // a pixel of margin: a pixel gets a fragment only where its centre is on the point, and the
  // outline reaches samples of pixels whose centres are half a pixel off it
  float size = min(2.0 * max(radius, halfHeight) + 1.0, 64.0);
  gl_PointSize = size;
  outSize = size;
  gl_Position = clip;
  float height = max((card.y - card.x) * inst.size.y, 1e-3);
  outShape = vec4(2.0 * radius / size, 2.0 * halfHeight / size, card.w, card.z * inst.size.x / height);
  // the eye's frame at the crown: toward the eye, the screen's right and up across it
  vec3 toward = normalize(frame.eye.xyz - centre);
  vec3 side = normalize(frame.right.xyz - toward * dot(frame.right.xyz, toward));
  vec3 up = cross(toward, side);
  if (dot(up, frame.up.xyz) < 0.0) up = -up;
  // a cone's normals lean up by its half-angle
  float lean = card.w > 0.5 ? outShape.w * inversesqrt(1.0 + outShape.w * outShape.w) : 0.0;
  outToward = shadePlant(centre, normalize(toward + lean * up), inst.color, 1.0, 1.0).rgb;
  outRight = shadePlant(centre, normalize(side + lean * up), inst.color, 1.0, 1.0).rgb;
  outLeft = shadePlant(centre, normalize(-side + lean * up), inst.color, 1.0, 1.0).rgb;
  outUp = shadePlant(centre, up, inst.color, 1.0, 1.0).rgb;
  outDown = shadePlant(centre, card.w > 0.5 ? normalize(toward + lean * up) : -up, inst.color, 1.0, 1.0).rgb;
}
