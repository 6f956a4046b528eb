//! What every render target shares: the texture a frame is drawn into,
//! how much of it a pass redraws, and when each step of a frame finished.

use std::time::Instant;

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

/// When each step of the last [`Renderer::render_to_surface`] finished, for
/// latency traces: four clock reads a frame, nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameTimings {
    /// The call began.
    pub started: Instant,
    /// The surface gave a texture to draw into.
    pub acquired: Instant,
    /// The CPU side of the frame (shaping, instance uploads) was done.
    pub prepared: Instant,
    /// The GPU commands were submitted.
    pub submitted: Instant,
    /// The texture was handed back to the window system.
    pub presented: Instant,
}

impl FrameTimings {
    pub(crate) fn starting_now() -> Self {
        let now = Instant::now();
        Self {
            started: now,
            acquired: now,
            prepared: now,
            submitted: now,
            presented: now,
        }
    }
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
