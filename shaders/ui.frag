#version 450
// Dear ImGui pixels: vertex colour times the font atlas (white where ImGui draws solid shapes).
// Colours are written as ImGui gives them (sRGB-encoded values into the UNORM target).
layout(set = 0, binding = 0) uniform sampler2D atlas;

layout(location = 0) in vec2 inUv;
layout(location = 1) in vec4 inColor;
layout(location = 0) out vec4 outColor;

void main() { outColor = inColor * texture(atlas, inUv); }
