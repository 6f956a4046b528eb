//! Render targets: any texture view, a window surface, or an offscreen
//! texture read back into an [`RgbaImage`].

use std::time::Instant;

use crate::color::Color;
use crate::error::RenderError;
use crate::frame::{Cell, Frame};
use crate::image::RgbaImage;
use crate::offscreen::Offscreen;
use crate::renderer::{PixelDamage, PrepareStats, Renderer};
use crate::surface::WindowSurface;
use crate::target::{render_target, FrameTimings, Redraw};

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
        self.timings.prepared = Instant::now();
        let commands = self.encode(view, Redraw::Full).finish();
        self.queue.submit([commands]);
        self.timings.submitted = Instant::now();
        Ok(stats)
    }

    /// Draws a two-cell frame (a glyph on a coloured cell) into a small
    /// texture of this renderer's format, without waiting for it. A
    /// software rasteriser compiles a shader variant for each pipeline the
    /// first time it draws with it: on lavapipe a first 160×48 frame took
    /// 52 ms against 21–23 ms for the next ones, and 26 ms after this
    /// warm-up, which took 11 ms. The next real frame is drawn in full.
    pub fn warm_up(&mut self) -> Result<(), RenderError> {
        let (cell_width, cell_height) = self.cell_size();
        let (width, height) = (2 * cell_width, cell_height);
        let texture = render_target(
            &self.device,
            "koi warm-up",
            (width, height),
            self.format,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let mut frame = Frame::blank(2, 1);
        let coloured = Cell {
            bg: Color::Indexed(1),
            ..Cell::new(' ')
        };
        frame.write_str(0, 0, "x", &coloured);
        self.render_to_view(&view, width, height, &frame)?;
        Ok(())
    }

    /// When each step of the last frame drawn into a window surface ended.
    pub fn last_timings(&self) -> FrameTimings {
        self.timings
    }

    /// Records a pass drawing the prepared frame into `view`.
    pub(crate) fn encode(&self, view: &wgpu::TextureView, redraw: Redraw) -> wgpu::CommandEncoder {
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("koi frame"),
            });
        let load = match redraw {
            Redraw::Full => wgpu::LoadOp::Clear(self.clear_color()),
            Redraw::Rows(..) => wgpu::LoadOp::Load,
        };
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("koi grid"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if let Redraw::Rows(y0, y1) = redraw {
                // Everything drawn is clipped to its own row, so redrawing
                // the damaged rows over the old frame gives the new frame.
                let (width, _) = self.target_size();
                pass.set_scissor_rect(0, y0, width, y1.saturating_sub(y0));
                // The scissor keeps the old pixels outside; inside, the
                // background must be repainted before the rows draw.
                self.clear_rows(&mut pass);
                self.draw_band(&mut pass, y0, y1);
            } else {
                self.draw(&mut pass);
            }
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
        self.timings = FrameTimings::starting_now();
        let Some(texture) = surface.acquire(&self.device)? else {
            return Ok(None);
        };
        self.timings.acquired = Instant::now();
        let (width, height) = (texture.texture.width(), texture.texture.height());
        let view = texture
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let stats = self.render_to_view(&view, width, height, frame)?;
        self.queue.present(texture);
        self.timings.presented = Instant::now();
        Ok(Some(stats))
    }

    /// Waits until the GPU has finished the work submitted so far (a
    /// software rasteriser keeps drawing on its own threads after
    /// `present` returns) and returns when that was: what a frame really
    /// cost, for callers that pace frames by it.
    pub fn wait_for_gpu(&self) -> Instant {
        if let Err(e) = self.device.poll(wgpu::PollType::wait_indefinitely()) {
            log::debug!("render: waiting for the GPU: {e}");
        }
        Instant::now()
    }
}

impl Renderer {
    /// Draws `frame` into an offscreen `width × height` texture and reads it
    /// back as RGBA (sRGB-encoded, whatever the renderer's format). When
    /// the previous offscreen frame had the same size, only the pixel rows
    /// that changed are redrawn and read back.
    pub fn render_to_image(
        &mut self,
        frame: &Frame,
        width: u32,
        height: u32,
    ) -> Result<RgbaImage, RenderError> {
        self.prepare(frame, width, height)?;
        let slot = self.offscreen.take();
        let mut target = Offscreen::sized(slot, &self.device, self.format, width, height)?;
        let serial = self.serial;
        let redraw = self.redraw_for(&target);
        let result = self.draw_offscreen(&mut target, redraw);
        target.drawn_serial = result.is_ok().then_some(serial);
        let image = result.map(|()| RgbaImage {
            width,
            height,
            pixels: target.pixels.clone(),
        });
        self.offscreen = Some(target);
        image
    }

    /// What a target must redraw to show the frame just prepared: the
    /// damaged rows when it holds exactly the previous frame, else all.
    pub(crate) fn redraw_for(&self, target: &Offscreen) -> Redraw {
        let height = target.size.1;
        let continues = target.drawn_serial == self.serial.checked_sub(1);
        match self.damage {
            PixelDamage::Rows(y0, y1) if continues => Redraw::Rows(y0.min(height), y1.min(height)),
            _ => Redraw::Full,
        }
    }

    fn draw_offscreen(&self, target: &mut Offscreen, redraw: Redraw) -> Result<(), RenderError> {
        let (y0, y1) = match redraw {
            Redraw::Full => (0, target.size.1),
            Redraw::Rows(y0, y1) if y0 < y1 => (y0, y1),
            // Nothing changed: the last image is the answer.
            Redraw::Rows(..) => return Ok(()),
        };
        let mut encoder = self.encode(&target.view, redraw);
        target.copy_rows(&mut encoder, y0, y1);
        self.queue.submit([encoder.finish()]);
        let bgra = matches!(
            self.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        );
        target.read_rows(&self.device, y0, y1, bgra)
    }
}
