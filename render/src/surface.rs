//! A window surface the caller created (from a winit window, say),
//! configured for the renderer.

use crate::error::RenderError;
use crate::gpu::Gpu;

/// A configured `wgpu::Surface` plus its configuration, so it can be
/// resized and recovered after it is lost.
#[derive(Debug)]
pub struct WindowSurface {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
}

impl WindowSurface {
    /// Configures `surface` at `width × height` physical pixels. Prefers a
    /// non-sRGB 8-bit format so the window looks exactly like offscreen
    /// captures (text blended in sRGB space, as most terminals do). A
    /// `translucent` window's pixels are composited as premultiplied
    /// alpha where the surface can (see
    /// [`crate::Renderer::set_background_opacity`]).
    pub fn new(
        gpu: &Gpu,
        surface: wgpu::Surface<'static>,
        (width, height): (u32, u32),
        translucent: bool,
    ) -> Result<Self, RenderError> {
        let caps = surface.get_capabilities(&gpu.adapter);
        let supported = |f: &&wgpu::TextureFormat| crate::rects::is_supported_format(**f);
        let format = caps
            .formats
            .iter()
            .filter(supported)
            .find(|f| !f.is_srgb())
            .or_else(|| caps.formats.iter().find(supported))
            .copied()
            .ok_or_else(|| {
                RenderError::Surface(format!("no 8-bit RGBA/BGRA format in {:?}", caps.formats))
            })?;
        let present_mode = choose_present_mode(&caps.present_modes);
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: width.max(1),
            height: height.max(1),
            present_mode,
            desired_maximum_frame_latency: 2,
            alpha_mode: choose_alpha_mode(&caps.alpha_modes, translucent),
            view_formats: vec![],
        };
        surface.configure(&gpu.device, &config);
        Ok(Self { surface, config })
    }

    /// The texture format; create the [`crate::Renderer`] with it.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.config.format
    }

    /// Current size in physical pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Resizes the swapchain (zero sizes, as from a minimised window, are
    /// clamped to one pixel).
    pub fn resize(&mut self, gpu: &Gpu, width: u32, height: u32) {
        self.config.width = width.max(1);
        self.config.height = height.max(1);
        self.surface.configure(&gpu.device, &self.config);
    }

    /// The next texture to draw into, reconfiguring once if the surface is
    /// outdated or lost. `Ok(None)` means skip this frame (occluded or
    /// timed out).
    pub(crate) fn acquire(
        &mut self,
        device: &wgpu::Device,
    ) -> Result<Option<wgpu::SurfaceTexture>, RenderError> {
        for attempt in 0..2 {
            match self.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(t)
                | wgpu::CurrentSurfaceTexture::Suboptimal(t) => return Ok(Some(t)),
                wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                    return Ok(None)
                }
                wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost
                    if attempt == 0 =>
                {
                    self.surface.configure(device, &self.config);
                }
                other => return Err(RenderError::Surface(format!("{other:?}"))),
            }
        }
        Err(RenderError::Surface(
            "surface stayed outdated after reconfiguring".into(),
        ))
    }
}

/// Mailbox where the surface offers it: a new frame replaces one still
/// waiting, so presenting never waits for the display's next refresh (the
/// caller paces frames itself) and never tears. Otherwise FIFO, which every
/// surface supports; never Immediate, which tears.
fn choose_present_mode(offered: &[wgpu::PresentMode]) -> wgpu::PresentMode {
    if offered.contains(&wgpu::PresentMode::Mailbox) {
        wgpu::PresentMode::Mailbox
    } else {
        wgpu::PresentMode::Fifo
    }
}

/// How the window system combines the surface's pixels with what is
/// behind the window: premultiplied alpha for a translucent window where
/// offered (then straight alpha), else the surface's first mode (opaque
/// on most).
fn choose_alpha_mode(
    offered: &[wgpu::CompositeAlphaMode],
    translucent: bool,
) -> wgpu::CompositeAlphaMode {
    use wgpu::CompositeAlphaMode::{PostMultiplied, PreMultiplied};
    let blended = [PreMultiplied, PostMultiplied]
        .into_iter()
        .find(|mode| translucent && offered.contains(mode));
    blended
        .or_else(|| offered.first().copied())
        .unwrap_or(wgpu::CompositeAlphaMode::Auto)
}

#[cfg(test)]
mod tests {
    use super::{choose_alpha_mode, choose_present_mode};
    use wgpu::{CompositeAlphaMode, PresentMode};

    #[test]
    fn a_translucent_window_blends_premultiplied_where_offered_and_an_opaque_one_keeps_the_first() {
        use CompositeAlphaMode::{Auto, Inherit, Opaque, PostMultiplied, PreMultiplied};
        let all = [Opaque, PostMultiplied, PreMultiplied];
        assert_eq!(choose_alpha_mode(&all, true), PreMultiplied);
        assert_eq!(choose_alpha_mode(&all, false), Opaque);
        assert_eq!(
            choose_alpha_mode(&[Opaque, PostMultiplied], true),
            PostMultiplied
        );
        assert_eq!(choose_alpha_mode(&[Opaque, Inherit], true), Opaque);
        assert_eq!(choose_alpha_mode(&[], true), Auto);
    }

    #[test]
    fn mailbox_when_offered_else_fifo_and_never_immediate() {
        let all = [
            PresentMode::Immediate,
            PresentMode::Mailbox,
            PresentMode::Fifo,
            PresentMode::FifoRelaxed,
        ];
        assert_eq!(choose_present_mode(&all), PresentMode::Mailbox);
        let tearing = [PresentMode::Immediate, PresentMode::Fifo];
        assert_eq!(choose_present_mode(&tearing), PresentMode::Fifo);
        assert_eq!(choose_present_mode(&[PresentMode::Fifo]), PresentMode::Fifo);
    }
}
