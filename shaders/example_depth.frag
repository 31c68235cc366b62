#version 450
// The render_pass example's fragment shader: the full-screen triangle's uv, darker the
// farther the fragment (its depth comes from the viewport's depth range).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main() {
    float light = 1.0 - gl_FragCoord.z;
    color = vec4(uv * light, light, 1.0);
}
