//! The solid-rectangle pipeline: one instanced draw per layer for cell
//! backgrounds, selection, cursor and overlay boxes.
//!
//! Every rectangle is opaque ([`RectInstance::new`] is the only way to make
//! one), so they are written without blending: the same pixels, and a
//! software rasteriser never reads the target under a full screen of cell
//! backgrounds.

use bytemuck::{Pod, Zeroable};

use crate::color::{Rgb, RgbGpu};
use crate::quads::{self, QuadPipeline};

/// The WGSL source of the rectangle shader.
pub(crate) const RECT_SHADER: &str = include_str!("shaders/rect.wgsl");

/// Initial instance capacity: a full 240×67 grid of distinct backgrounds
/// fits without reallocating.
const INITIAL_CAPACITY: u64 = 16 * 1024;

/// One rectangle as the GPU reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct RectInstance {
    pub origin: [f32; 2],
    pub extent: [f32; 2],
    pub color: [f32; 4],
}

impl RectInstance {
    /// An opaque rectangle in pixels, coloured for a target that is (or is
    /// not) sRGB.
    pub fn new(x: f32, y: f32, w: f32, h: f32, color: Rgb, srgb_target: bool) -> Self {
        Self::translucent(x, y, w, h, color, srgb_target, 1.0)
    }

    /// A rectangle whose pixels get `alpha` (premultiplied, as window
    /// systems composite them): rectangles replace what is below, so the
    /// alpha is what the window shows there.
    pub fn translucent(
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        color: Rgb,
        srgb_target: bool,
        alpha: f32,
    ) -> Self {
        Self {
            origin: [x, y],
            extent: [w.max(0.0), h.max(0.0)],
            color: color.to_target_premultiplied(srgb_target, alpha),
        }
    }
}

/// Whether the renderer can draw into `format`.
pub(crate) fn is_supported_format(format: wgpu::TextureFormat) -> bool {
    use wgpu::TextureFormat::*;
    matches!(
        format,
        Rgba8Unorm | Rgba8UnormSrgb | Bgra8Unorm | Bgra8UnormSrgb
    )
}

/// Pipeline, uniform and a growable instance buffer.
pub(crate) struct RectPipeline {
    pipeline: wgpu::RenderPipeline,
    uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    instances: wgpu::Buffer,
    capacity: u64,
    viewport: [f32; 2],
}

impl RectPipeline {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("koi rect shader"),
            source: wgpu::ShaderSource::Wgsl(RECT_SHADER.into()),
        });
        let layout_entry = quads::viewport_entry();
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("koi rect bind layout"),
            entries: &[layout_entry],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("koi rect layout"),
            bind_group_layouts: &[Some(&bind_layout)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x2, 1 => Float32x2, 2 => Float32x4];
        let pipeline = QuadPipeline {
            label: "koi rect pipeline",
            layout: &pipeline_layout,
            module: &module,
            stride: std::mem::size_of::<RectInstance>() as u64,
            attributes: &attributes,
            format,
            blend: None,
        }
        .build(device);
        let uniform = quads::viewport_buffer(device, "koi rect viewport");
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("koi rect bind group"),
            layout: &bind_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        let instances = Self::instance_buffer(device, INITIAL_CAPACITY);
        Self {
            pipeline,
            uniform,
            bind_group,
            instances,
            capacity: INITIAL_CAPACITY,
            viewport: [1.0, 1.0],
        }
    }

    fn instance_buffer(device: &wgpu::Device, capacity: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("koi rect instances"),
            size: capacity * std::mem::size_of::<RectInstance>() as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Uploads the viewport size and every rectangle of the frame.
    pub fn upload(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        size: (u32, u32),
        rects: &[RectInstance],
    ) {
        let viewport = [size.0.max(1) as f32, size.1.max(1) as f32];
        if viewport != self.viewport {
            self.viewport = viewport;
            queue.write_buffer(
                &self.uniform,
                0,
                bytemuck::cast_slice(&[viewport[0], viewport[1], 0.0, 0.0]),
            );
        }
        let needed = rects.len() as u64;
        if needed > self.capacity {
            self.capacity = needed.next_power_of_two();
            self.instances = Self::instance_buffer(device, self.capacity);
        }
        if !rects.is_empty() {
            queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(rects));
        }
    }

    /// Draws uploaded rectangles `range` (instance indices).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, range: std::ops::Range<u32>) {
        if range.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, self.instances.slice(..));
        pass.draw(0..4, range);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shader must parse and validate on the CPU, so a broken WGSL edit
    /// fails here even on a machine with no GPU adapter.
    #[test]
    fn rect_shader_validates_with_naga() {
        let module = naga::front::wgsl::parse_str(RECT_SHADER)
            .unwrap_or_else(|e| panic!("WGSL parse error:\n{}", e.emit_to_string(RECT_SHADER)));
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        );
        let info = validator.validate(&module);
        assert!(info.is_ok(), "WGSL validation error: {info:?}");
        let entry_points: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(entry_points, ["vs_main", "fs_main"]);
        assert_eq!(std::mem::size_of::<RectInstance>(), 32);
    }
}
