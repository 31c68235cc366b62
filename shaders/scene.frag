#version 450
// Bars moving at constant speed (so uneven pacing shows as stutter) over a gradient, plus an
// optional loop that makes the GPU work harder per pixel (--gpu-load).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

layout(push_constant) uniform Push {
    // x: time in seconds, y: GPU load iterations, z: width, w: height
    vec4 params;
} pc;

void main() {
    float t = pc.params.x;
    float x = uv.x + t * 0.25;
    float bar = step(0.5, fract(x * 4.0));
    vec3 base = mix(vec3(0.08, 0.10, 0.16), vec3(0.20, 0.55, 0.90), uv.y);
    vec3 c = mix(base, vec3(0.95, 0.70, 0.20), bar * 0.8);
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
