#version 450
// The demo scene. Bars moving at constant speed, placed by the frame's expected display time,
// so uneven pacing shows as stutter; a live graph of the last frames along the bottom; an
// optional loop that makes the GPU work harder per pixel (--gpu-load); the HUD's text on top.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

layout(push_constant) uniform Push {
    // x: expected display time in seconds, y: GPU load iterations, z: width, w: height
    vec4 params;
} pc;

// Written by the CPU each frame into the frame slot's own buffer (gpu-allocator).
// header.x: valid samples (newest last), header.y: milliseconds at the top of the graph,
// header.z: the reference interval drawn as a line (ms).
// samples[i]: x frame interval, y CPU wait for the pacing fence, z latency (all ms).
// text_info: x columns, y rows (0: no text), z pixels per cell side. font: 128 glyphs of
// 8x8 bits, two words each (rows 0-3, rows 4-7; bit 0 the leftmost pixel). text: one word per
// cell, row by row: ASCII code in bits 0-7, palette index in bits 8-15, 0 for an empty cell.
layout(std430, set = 0, binding = 0) readonly buffer Graph {
    vec4 header;
    vec4 samples[240];
    uvec4 text_info;
    uint font[256];
    uint text[15360];
} graph;

const float GRAPH_TOP = 0.72;

// 1 inside a line of about 1.5 pixels around `value_px`, else 0.
float line(float y_px, float value_px) {
    return 1.0 - smoothstep(0.75, 1.5, abs(y_px - value_px));
}

vec3 graph_color(vec3 c) {
    float height_px = (1.0 - GRAPH_TOP) * pc.params.w;
    float y_px = (1.0 - uv.y) * pc.params.w; // 0 at the bottom edge
    int count = int(graph.header.x);
    int i = clamp(int(uv.x * 240.0), 0, 239);
    vec3 bg = vec3(0.04, 0.04, 0.06);
    if (i < 240 - count) {
        return bg;
    }
    vec4 s = graph.samples[i];
    float px_per_ms = height_px / max(graph.header.y, 1.0);
    vec3 g = bg;
    // The frame interval as a filled column.
    if (y_px < s.x * px_per_ms) {
        g = vec3(0.18, 0.45, 0.25);
    }
    g = mix(g, vec3(0.45, 0.45, 0.45), line(y_px, graph.header.z * px_per_ms) * 0.7);
    g = mix(g, vec3(0.30, 0.85, 1.00), line(y_px, s.z * px_per_ms));
    g = mix(g, vec3(1.00, 0.85, 0.20), line(y_px, s.y * px_per_ms));
    return g;
}

vec3 palette(uint index) {
    if (index == 2u) { return vec3(0.35, 0.90, 0.45); }
    if (index == 3u) { return vec3(1.00, 0.85, 0.20); }
    if (index == 4u) { return vec3(0.30, 0.85, 1.00); }
    if (index == 5u) { return vec3(0.70, 0.70, 0.70); }
    return vec3(1.0, 1.0, 1.0);
}

// The HUD's text over `c`: a dark backdrop behind every written cell, the glyph's pixels in
// the cell's color.
vec3 text_color(vec3 c) {
    uint columns = graph.text_info.x;
    uint cell_px = max(graph.text_info.z, 1u);
    uvec2 px = uvec2(gl_FragCoord.xy);
    uvec2 cell = px / cell_px;
    if (cell.x >= columns || cell.y >= graph.text_info.y) {
        return c;
    }
    uint value = graph.text[cell.y * columns + cell.x];
    if (value == 0u) {
        return c;
    }
    uvec2 bit = (px - cell * cell_px) * 8u / cell_px;
    uint glyph = value & 127u;
    uint word = graph.font[glyph * 2u + bit.y / 4u];
    uint row = (word >> ((bit.y % 4u) * 8u)) & 255u;
    c = mix(c, vec3(0.0, 0.0, 0.02), 0.7);
    if (((row >> bit.x) & 1u) != 0u) {
        c = palette((value >> 8u) & 255u);
    }
    return c;
}

void main() {
    float t = pc.params.x;
    float x = uv.x + t * 0.25;
    float bar = step(0.5, fract(x * 4.0));
    vec3 base = mix(vec3(0.08, 0.10, 0.16), vec3(0.20, 0.55, 0.90), uv.y);
    vec3 c = mix(base, vec3(0.95, 0.70, 0.20), bar * 0.8);
    if (uv.y > GRAPH_TOP) {
        c = graph_color(c);
    }
    // A top-left marker to check orientation in read-back tests.
    if (uv.x < 0.05 && uv.y < 0.05) {
        c = vec3(1.0, 0.0, 0.0);
    }
    float acc = 0.0;
    int iterations = int(pc.params.y);
    for (int i = 0; i < iterations; i++) {
        acc += sin(acc + float(i) * 0.001 + uv.x);
    }
    c += vec3(acc * 1e-6);
    c = text_color(c);
    color = vec4(c, 1.0);
}
