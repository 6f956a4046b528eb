// Picture tiles (kitty graphics, sixel, iTerm2 images): one instance per
// tile, four vertices as a triangle strip, sampled from the picture's
// texture and blended over what is below.

struct Viewport {
    // Target size in physical pixels.
    size: vec2<f32>,
    _pad: vec2<f32>,
};

@group(0) @binding(0)
var<uniform> viewport: Viewport;

@group(1) @binding(0)
var picture: texture_2d<f32>;

@group(1) @binding(1)
var picture_sampler: sampler;

struct Tile {
    // Top-left corner and size in physical pixels.
    @location(0) origin: vec2<f32>,
    @location(1) extent: vec2<f32>,
    // The part of the picture shown, in texture coordinates.
    @location(2) uv_origin: vec2<f32>,
    @location(3) uv_extent: vec2<f32>,
};

struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) index: u32, tile: Tile) -> VertexOut {
    let corner = vec2<f32>(f32(index & 1u), f32((index >> 1u) & 1u));
    let pixel = tile.origin + corner * tile.extent;
    let ndc = pixel / viewport.size * 2.0 - vec2<f32>(1.0, 1.0);
    var out: VertexOut;
    out.position = vec4<f32>(ndc.x, -ndc.y, 0.0, 1.0);
    out.uv = tile.uv_origin + corner * tile.uv_extent;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return textureSample(picture, picture_sampler, in.uv);
}
