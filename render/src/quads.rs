//! What the instanced-quad pipelines (the rectangles, the pictures) share:
//! the viewport uniform their vertex shaders scale by, and a pipeline that
//! draws one four-vertex strip per instance.

use wgpu::util::DeviceExt as _;

/// The layout entry of the viewport uniform, at binding 0 of group 0.
pub(crate) fn viewport_entry() -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The viewport uniform (scale x, y and offset x, y), written each frame.
pub(crate) fn viewport_buffer(device: &wgpu::Device, label: &str) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(&[1.0f32, 1.0, 0.0, 0.0]),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

/// One instanced-quad pipeline.
pub(crate) struct QuadPipeline<'a> {
    pub label: &'a str,
    pub layout: &'a wgpu::PipelineLayout,
    /// Has `vs_main` and `fs_main`.
    pub module: &'a wgpu::ShaderModule,
    /// Bytes per instance.
    pub stride: u64,
    pub attributes: &'a [wgpu::VertexAttribute],
    pub format: wgpu::TextureFormat,
    pub blend: Option<wgpu::BlendState>,
}

impl QuadPipeline<'_> {
    /// The pipeline: a triangle strip of four vertices per instance.
    pub(crate) fn build(&self, device: &wgpu::Device) -> wgpu::RenderPipeline {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(self.label),
            layout: Some(self.layout),
            vertex: wgpu::VertexState {
                module: self.module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: self.stride,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: self.attributes,
                })],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleStrip,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: self.module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: self.format,
                    blend: self.blend,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}
