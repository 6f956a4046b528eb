//! Render targets: any texture view, a window surface, or an offscreen
//! texture read back into an [`RgbaImage`].

use crate::error::RenderError;
use crate::frame::Frame;
use crate::image::RgbaImage;
use crate::renderer::{PrepareStats, Renderer};
use crate::surface::WindowSurface;

/// Row pitch alignment wgpu requires for texture-to-buffer copies.
const ROW_ALIGN: u32 = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;

/// An offscreen colour texture and the buffer it is read back through,
/// kept between frames of the same size.
pub(crate) struct Offscreen {
    size: (u32, u32),
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    readback: wgpu::Buffer,
    padded_row: u32,
}

impl Offscreen {
    fn new(device: &wgpu::Device, format: wgpu::TextureFormat, width: u32, height: u32) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("koi offscreen target"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let padded_row = (width * 4).div_ceil(ROW_ALIGN) * ROW_ALIGN;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("koi offscreen readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Self {
            size: (width, height),
            texture,
            view,
            readback,
            padded_row,
        }
    }
}

impl Renderer {
    /// Prepares `frame` and draws it into `view` (a `width × height`
    /// texture of this renderer's format), clearing it to the background.
    pub fn render_to_view(
        &mut self,
        view: &wgpu::TextureView,
        width: u32,
        height: u32,
        frame: &Frame,
    ) -> Result<PrepareStats, RenderError> {
        let stats = self.prepare(frame, width, height)?;
        let commands = self.encode(view).finish();
        self.queue.submit([commands]);
        Ok(stats)
    }

    fn encode(&self, view: &wgpu::TextureView) -> wgpu::CommandEncoder {
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("koi frame"),
            });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("koi grid"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(self.clear_color()),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.draw(&mut pass);
        }
        encoder
    }

    /// Draws `frame` into the window surface and presents it. Returns
    /// `Ok(None)` when the surface asked to skip this frame (occluded).
    pub fn render_to_surface(
        &mut self,
        surface: &mut WindowSurface,
        frame: &Frame,
    ) -> Result<Option<PrepareStats>, RenderError> {
        if surface.format() != self.format {
            return Err(RenderError::FormatMismatch {
                renderer: self.format,
                target: surface.format(),
            });
        }
        let Some(texture) = surface.acquire(&self.device)? else {
            return Ok(None);
        };
        let (width, height) = (texture.texture.width(), texture.texture.height());
        let view = texture
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let stats = self.render_to_view(&view, width, height, frame)?;
        self.queue.present(texture);
        Ok(Some(stats))
    }

    /// Draws `frame` into an offscreen `width × height` texture and reads it
    /// back as RGBA (sRGB-encoded, whatever the renderer's format).
    pub fn render_to_image(
        &mut self,
        frame: &Frame,
        width: u32,
        height: u32,
    ) -> Result<RgbaImage, RenderError> {
        self.prepare(frame, width, height)?;
        let reuse = self.offscreen.as_ref().is_some_and(|o| o.size == (width, height));
        if !reuse {
            self.offscreen = Some(Offscreen::new(&self.device, self.format, width, height));
        }
        let Some(target) = self.offscreen.as_ref() else {
            return Err(RenderError::Readback("offscreen target missing".into()));
        };
        let mut encoder = self.encode(&target.view);
        encoder.copy_texture_to_buffer(
            target.texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &target.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(target.padded_row),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([encoder.finish()]);
        read_back(&self.device, target, self.format)
    }
}

fn read_back(
    device: &wgpu::Device,
    target: &Offscreen,
    format: wgpu::TextureFormat,
) -> Result<RgbaImage, RenderError> {
    let (width, height) = target.size;
    let slice = target.readback.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |result| {
        let _ = tx.send(result);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    rx.recv()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    let bgra = matches!(
        format,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let row_bytes = width as usize * 4;
    let mut pixels = Vec::with_capacity(row_bytes * height as usize);
    {
        let mapped = slice
            .get_mapped_range()
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        for row in mapped.chunks(target.padded_row as usize).take(height as usize) {
            let row = &row[..row_bytes];
            if bgra {
                for px in row.chunks_exact(4) {
                    pixels.extend_from_slice(&[px[2], px[1], px[0], px[3]]);
                }
            } else {
                pixels.extend_from_slice(row);
            }
        }
    }
    target.readback.unmap();
    Ok(RgbaImage {
        width,
        height,
        pixels,
    })
}
