#version 450
// The demo scene. Bars moving at constant speed, placed by the frame's expected display time,
// so uneven pacing shows as stutter; a live graph of the last frames along the bottom; an
// optional loop that makes the GPU work harder per pixel (--gpu-load).
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
layout(std430, set = 0, binding = 0) readonly buffer Graph {
    vec4 header;
    vec4 samples[240];
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
    color = vec4(c, 1.0);
}
