//! Offscreen rendering into an RGBA image. The target texture, read-back
//! buffer and last image are kept between frames of the same size, so a
//! frame that changed a few rows redraws and reads back only those rows.

use crate::error::RenderError;
use crate::target::render_target;

/// Row pitch alignment wgpu requires for texture-to-buffer copies.
const ROW_ALIGN: u32 = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;

/// An offscreen colour texture, the buffer it is read back through, and
/// the image it last produced.
pub(crate) struct Offscreen {
    pub(crate) size: (u32, u32),
    texture: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    readback: wgpu::Buffer,
    pub(crate) padded_row: u32,
    /// RGBA pixels of the last frame drawn here.
    pub(crate) pixels: Vec<u8>,
    /// The renderer's `serial` after the last frame drawn here.
    pub(crate) drawn_serial: Option<u64>,
}

impl Offscreen {
    /// Allocates the target, reporting out-of-memory as an error rather
    /// than a device error.
    fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
    ) -> Result<Self, RenderError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let texture = render_target(
            device,
            "koi offscreen target",
            (width, height),
            format,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let padded_row = (width * 4).div_ceil(ROW_ALIGN) * ROW_ALIGN;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("koi offscreen readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::Readback(format!(
                "allocating a {width}x{height} offscreen target: {e}"
            )));
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Self {
            size: (width, height),
            texture,
            view,
            readback,
            padded_row,
            pixels: Vec::new(),
            drawn_serial: None,
        })
    }

    /// `slot`'s target when it has this size, else a new one (the old one
    /// dropped first, so its memory is free for the new one).
    pub(crate) fn sized(
        slot: Option<Self>,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
    ) -> Result<Self, RenderError> {
        match slot {
            Some(target) if target.size == (width, height) => Ok(target),
            other => {
                drop(other);
                Self::new(device, format, width, height)
            }
        }
    }

    /// Copies pixel rows `y0..y1` of the texture into the read-back buffer.
    pub(crate) fn copy_rows(&self, encoder: &mut wgpu::CommandEncoder, y0: u32, y1: u32) {
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x: 0, y: y0, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: u64::from(y0) * u64::from(self.padded_row),
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(y1 - y0),
                },
            },
            wgpu::Extent3d {
                width: self.size.0,
                height: y1 - y0,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Maps rows `y0..y1` of the read-back buffer and hands them to `sink`
    /// as they lie in the buffer: `y1 - y0` rows of `padded_row` bytes in
    /// the target's format.
    pub(crate) fn map_rows<R>(
        &self,
        device: &wgpu::Device,
        y0: u32,
        y1: u32,
        sink: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, RenderError> {
        let pitch = u64::from(self.padded_row);
        let slice = self
            .readback
            .slice(u64::from(y0) * pitch..u64::from(y1) * pitch);
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
        let result = {
            let mapped = slice
                .get_mapped_range()
                .map_err(|e| RenderError::Readback(e.to_string()))?;
            sink(&mapped)
        };
        self.readback.unmap();
        Ok(result)
    }

    /// Maps rows `y0..y1` of the read-back buffer into `pixels` as RGBA.
    pub(crate) fn read_rows(
        &mut self,
        device: &wgpu::Device,
        y0: u32,
        y1: u32,
        bgra: bool,
    ) -> Result<(), RenderError> {
        let row_bytes = self.size.0 as usize * 4;
        let padded = self.padded_row as usize;
        let mut pixels = std::mem::take(&mut self.pixels);
        // The pixels are kept only by targets read back as images.
        pixels.resize(row_bytes * self.size.1 as usize, 0);
        let out = &mut pixels[y0 as usize * row_bytes..y1 as usize * row_bytes];
        let result = self.map_rows(device, y0, y1, |mapped| {
            for (src, dst) in mapped.chunks(padded).zip(out.chunks_exact_mut(row_bytes)) {
                let src = &src[..row_bytes];
                if bgra {
                    for (s, d) in src.chunks_exact(4).zip(dst.chunks_exact_mut(4)) {
                        d.copy_from_slice(&[s[2], s[1], s[0], s[3]]);
                    }
                } else {
                    dst.copy_from_slice(src);
                }
            }
        });
        self.pixels = pixels;
        result
    }
}
