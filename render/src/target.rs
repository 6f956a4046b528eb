//! What every render target shares: the texture a frame is drawn into,
//! how much of it a pass redraws, and when each step of a frame finished.

pub use render_types::FrameTimings;

/// A 2D colour texture of `format` to draw into, with `usage` (render
/// attachment at least).
pub(crate) fn render_target(
    device: &wgpu::Device,
    label: &str,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// How much of the target a pass redraws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Redraw {
    /// Clear and draw everything.
    Full,
    /// Keep the target's contents and redraw pixel rows `y0..y1` only
    /// (the target must hold the previously prepared frame).
    Rows(u32, u32),
}
