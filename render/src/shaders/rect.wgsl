// Solid rectangles (cell backgrounds, selection, cursor, overlay boxes):
// one instance per rectangle, four vertices as a triangle strip.

struct Viewport {
    // Target size in physical pixels.
    size: vec2<f32>,
    _pad: vec2<f32>,
};

@group(0) @binding(0)
var<uniform> viewport: Viewport;

struct Instance {
    // Top-left corner and size in physical pixels.
    @location(0) origin: vec2<f32>,
    @location(1) extent: vec2<f32>,
    // Colour already in the target's encoding (linear for sRGB targets).
    @location(2) color: vec4<f32>,
};

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) index: u32, rect: Instance) -> VertexOut {
    let corner = vec2<f32>(f32(index & 1u), f32((index >> 1u) & 1u));
    let pixel = rect.origin + corner * rect.extent;
    let ndc = pixel / viewport.size * 2.0 - vec2<f32>(1.0, 1.0);
    var out: VertexOut;
    out.position = vec4<f32>(ndc.x, -ndc.y, 0.0, 1.0);
    out.color = rect.color;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return in.color;
}
