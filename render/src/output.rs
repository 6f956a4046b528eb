//! Render targets: any texture view, a window surface, or an offscreen
//! texture read back into an [`RgbaImage`].

use crate::error::RenderError;
use crate::frame::Frame;
use crate::renderer::{PrepareStats, Renderer};
use crate::surface::WindowSurface;

/// How much of the target a pass redraws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Redraw {
    /// Clear and draw everything.
    Full,
    /// Keep the target's contents and redraw pixel rows `y0..y1` only
    /// (the target must hold the previously prepared frame).
    Rows(u32, u32),
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
        let commands = self.encode(view, Redraw::Full).finish();
        self.queue.submit([commands]);
        Ok(stats)
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
            }
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
}
