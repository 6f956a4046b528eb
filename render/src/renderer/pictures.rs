//! Picture tiles as textured quads: each picture is uploaded once (keyed
//! by its pixels' id) and kept while frames keep showing it; a frame's
//! tiles are one instance buffer drawn in three layers around the text.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Weak};

use bytemuck::{Pod, Zeroable};

use crate::frame::Frame;
use crate::overlay_draw::PlacedPicture;
use crate::picture::{PictureLayer, PicturePixels};
use crate::quads::{self, QuadPipeline};

/// The WGSL source of the picture shader.
pub(crate) const PICTURE_SHADER: &str = include_str!("../shaders/picture.wgsl");

/// Frames a texture survives without being shown, so a picture scrolled
/// off and back (or a tab switch) does not upload it again. A texture
/// whose pixels nobody holds any more (the terminal's store evicted or
/// freed the picture) goes at the next frame: it cannot be shown again,
/// and so the store's budget bounds the textures too.
const KEEP_UNUSED_FRAMES: u64 = 600;

/// One tile as the GPU reads it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
struct TileInstance {
    origin: [f32; 2],
    extent: [f32; 2],
    uv_origin: [f32; 2],
    uv_extent: [f32; 2],
}

/// An uploaded picture.
struct Uploaded {
    bind_group: wgpu::BindGroup,
    /// The pixels it was made from; dead once every holder dropped them.
    pixels: Weak<PicturePixels>,
    last_used: u64,
    bytes: usize,
}

/// A run of instances that share a picture and a layer.
struct Batch {
    layer: PictureLayer,
    picture: u64,
    range: Range<u32>,
}

/// The pictures of a frame: the grid's tiles and each overlay layer's
/// placed pictures.
pub(crate) struct Placed<'a> {
    pub frame: &'a Frame,
    pub overlays: &'a [&'a [PlacedPicture]],
}

/// Pipeline, texture cache and the frame's tile instances.
pub(crate) struct PicturePipeline {
    pipeline: wgpu::RenderPipeline,
    viewport_group: wgpu::BindGroup,
    uniform: wgpu::Buffer,
    texture_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    texture_format: wgpu::TextureFormat,
    textures: HashMap<u64, Uploaded>,
    instances: Option<wgpu::Buffer>,
    capacity: usize,
    batches: Vec<Batch>,
    frame_serial: u64,
    /// Textures uploaded since the renderer was made (for tests).
    pub(crate) uploads: u64,
}

impl PicturePipeline {
    pub(crate) fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("koi picture shader"),
            source: wgpu::ShaderSource::Wgsl(PICTURE_SHADER.into()),
        });
        let viewport_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("koi picture viewport layout"),
            entries: &[quads::viewport_entry()],
        });
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("koi picture texture layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("koi picture layout"),
            bind_group_layouts: &[Some(&viewport_layout), Some(&texture_layout)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![
            0 => Float32x2, 1 => Float32x2, 2 => Float32x2, 3 => Float32x2
        ];
        let pipeline = QuadPipeline {
            label: "koi picture pipeline",
            layout: &layout,
            module: &module,
            stride: std::mem::size_of::<TileInstance>() as u64,
            attributes: &attributes,
            format,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
        }
        .build(device);
        let uniform = quads::viewport_buffer(device, "koi picture viewport");
        let viewport_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("koi picture viewport group"),
            layout: &viewport_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("koi picture sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        // The target's encoding: an sRGB target decodes the picture to
        // linear and encodes it back, a plain one passes bytes through.
        let texture_format = if format.is_srgb() {
            wgpu::TextureFormat::Rgba8UnormSrgb
        } else {
            wgpu::TextureFormat::Rgba8Unorm
        };
        Self {
            pipeline,
            viewport_group,
            uniform,
            texture_layout,
            sampler,
            texture_format,
            textures: HashMap::new(),
            instances: None,
            capacity: 0,
            batches: Vec::new(),
            frame_serial: 0,
            uploads: 0,
        }
    }

    /// Bytes of picture textures held on the GPU.
    pub(crate) fn texture_bytes(&self) -> usize {
        self.textures.values().map(|t| t.bytes).sum()
    }

    fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, pixels: &Arc<PicturePixels>) {
        if let Some(uploaded) = self.textures.get_mut(&pixels.id()) {
            uploaded.last_used = self.frame_serial;
            return;
        }
        let max = device.limits().max_texture_dimension_2d;
        if pixels.width() > max || pixels.height() > max {
            log::warn!(
                "render: a {}×{} picture exceeds the GPU's {max}-pixel textures; not drawn",
                pixels.width(),
                pixels.height()
            );
            return;
        }
        let size = wgpu::Extent3d {
            width: pixels.width(),
            height: pixels.height(),
            depth_or_array_layers: 1,
        };
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("koi picture"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: self.texture_format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            pixels.rgba(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(pixels.width() * 4),
                rows_per_image: Some(pixels.height()),
            },
            size,
        );
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("koi picture group"),
            layout: &self.texture_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        });
        self.uploads += 1;
        self.textures.insert(
            pixels.id(),
            Uploaded {
                bind_group,
                pixels: Arc::downgrade(pixels),
                last_used: self.frame_serial,
                bytes: pixels.byte_size(),
            },
        );
    }

    /// Adds one instance, extending the last batch when it shares its
    /// picture and layer.
    fn push(
        &mut self,
        instances: &mut Vec<TileInstance>,
        instance: TileInstance,
        layer: PictureLayer,
        picture: u64,
    ) {
        let index = instances.len() as u32;
        instances.push(instance);
        match self.batches.last_mut() {
            Some(b) if b.layer == layer && b.picture == picture => b.range.end = index + 1,
            _ => self.batches.push(Batch {
                layer,
                picture,
                range: index..index + 1,
            }),
        }
    }

    /// Uploads the frame's new pictures and its tiles, placed on a grid of
    /// `cell` pixels inside `padding`, for a `size` target, and the
    /// overlays' pictures.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        placed: Placed<'_>,
        size: (u32, u32),
        padding: u32,
        cell: (u32, u32),
    ) {
        let Placed { frame, overlays } = placed;
        self.frame_serial += 1;
        self.batches.clear();
        let serial = self.frame_serial;
        self.textures.retain(|_, t| {
            t.pixels.strong_count() > 0 && serial.saturating_sub(t.last_used) <= KEEP_UNUSED_FRAMES
        });
        if frame.pictures.is_empty() && overlays.iter().all(|o| o.is_empty()) {
            return;
        }
        queue.write_buffer(
            &self.uniform,
            0,
            bytemuck::cast_slice(&[size.0.max(1) as f32, size.1.max(1) as f32, 0.0, 0.0]),
        );
        let mut order: Vec<&crate::picture::PictureTile> = frame.pictures.iter().collect();
        order.sort_by_key(|t| (t.layer(), t.z, t.pixels.id()));
        let (cw, ch) = (cell.0 as f32, cell.1 as f32);
        let pad = padding as f32;
        let mut instances = Vec::with_capacity(order.len());
        for tile in order {
            self.upload(device, queue, &tile.pixels);
            if !self.textures.contains_key(&tile.pixels.id()) {
                continue;
            }
            let x = pad + tile.col as f32 * cw;
            let y = pad + tile.row as f32 * ch;
            let [dx0, dy0, dx1, dy1] = tile.dest;
            let [sx0, sy0, sx1, sy1] = tile.source;
            let instance = TileInstance {
                origin: [x + dx0 * cw, y + dy0 * ch],
                extent: [(dx1 - dx0) * cw, (dy1 - dy0) * ch],
                uv_origin: [sx0, sy0],
                uv_extent: [sx1 - sx0, sy1 - sy0],
            };
            self.push(&mut instances, instance, tile.layer(), tile.pixels.id());
        }
        for (i, pictures) in overlays.iter().enumerate() {
            for p in pictures.iter() {
                self.upload(device, queue, &p.pixels);
                if !self.textures.contains_key(&p.pixels.id()) {
                    continue;
                }
                let instance = TileInstance {
                    origin: [p.quad[0], p.quad[1]],
                    extent: [p.quad[2], p.quad[3]],
                    uv_origin: [p.uv[0], p.uv[1]],
                    uv_extent: [p.uv[2], p.uv[3]],
                };
                self.push(
                    &mut instances,
                    instance,
                    PictureLayer::Overlay(i),
                    p.pixels.id(),
                );
            }
        }
        if instances.len() > self.capacity || self.instances.is_none() {
            self.capacity = instances.len().next_power_of_two().max(64);
            self.instances = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("koi picture tiles"),
                size: (self.capacity * std::mem::size_of::<TileInstance>()) as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(buffer) = &self.instances {
            queue.write_buffer(buffer, 0, bytemuck::cast_slice(&instances));
        }
    }

    /// Records the tiles of `layer`.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, layer: PictureLayer) {
        let Some(buffer) = &self.instances else {
            return;
        };
        let mut bound = false;
        for batch in self.batches.iter().filter(|b| b.layer == layer) {
            let Some(uploaded) = self.textures.get(&batch.picture) else {
                continue;
            };
            if !bound {
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.viewport_group, &[]);
                pass.set_vertex_buffer(0, buffer.slice(..));
                bound = true;
            }
            pass.set_bind_group(1, &uploaded.bind_group, &[]);
            pass.draw(0..4, batch.range.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shader must parse and validate on the CPU.
    #[test]
    fn picture_shader_validates_with_naga() {
        let module = naga::front::wgsl::parse_str(PICTURE_SHADER)
            .unwrap_or_else(|e| panic!("WGSL parse error:\n{}", e.emit_to_string(PICTURE_SHADER)));
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        );
        assert!(validator.validate(&module).is_ok());
        assert_eq!(std::mem::size_of::<TileInstance>(), 32);
    }
}
