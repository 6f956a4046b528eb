//! Frames for window systems that take pixels from the CPU (X11's
//! `PutImage`), for adapters that are CPU rasterisers anyway.
//!
//! A software Vulkan driver presenting to X11 hands the server the whole
//! window on every frame, however little changed. Here the frame is drawn
//! into a texture kept between frames, only the damaged pixel rows are
//! redrawn and read back, and the caller hands just those rows to the
//! window system: a key's echo moves one row of pixels instead of the
//! whole window.

use std::time::Instant;

use crate::error::RenderError;
use crate::frame::Frame;
use crate::offscreen::Offscreen;
use crate::renderer::{PrepareStats, Renderer};
use crate::target::{FrameTimings, Redraw};

/// The pixels a window must update to show a frame: `rows` rows starting
/// at pixel row `y`, each `stride` bytes long (at least `width × 4`; the
/// bytes past `width × 4` are padding), in the renderer's format.
#[derive(Debug, Clone, Copy)]
pub struct PixelRows<'a> {
    /// The first pixel row.
    pub y: u32,
    /// How many rows.
    pub rows: u32,
    /// The target's width in pixels.
    pub width: u32,
    /// Bytes from one row to the next (a multiple of 256).
    pub stride: u32,
    /// `rows × stride` bytes.
    pub data: &'a [u8],
}

/// A window's pixels as the renderer last drew them, for
/// [`Renderer::render_to_cpu`]: it knows which rows the window still has
/// to be sent.
#[derive(Default)]
pub struct CpuTarget {
    target: Option<Offscreen>,
}

impl std::fmt::Debug for CpuTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuTarget")
            .field("size", &self.target.as_ref().map(|t| t.size))
            .finish()
    }
}

impl CpuTarget {
    /// A target that has shown nothing yet: its first frame is sent whole.
    pub fn new() -> Self {
        Self::default()
    }

    /// The window lost its pixels (it was exposed, say): the next frame
    /// is drawn and sent whole.
    pub fn invalidate(&mut self) {
        if let Some(target) = &mut self.target {
            target.drawn_serial = None;
        }
    }
}

impl Renderer {
    /// Prepares `frame` for a `width × height` window, draws the pixel rows
    /// that differ from what `target` last showed and passes them to
    /// `present` (not called when no pixel changed). The first frame, a
    /// new size or an [`CpuTarget::invalidate`] send every row.
    pub fn render_to_cpu(
        &mut self,
        target: &mut CpuTarget,
        frame: &Frame,
        width: u32,
        height: u32,
        present: impl FnOnce(PixelRows<'_>),
    ) -> Result<PrepareStats, RenderError> {
        self.timings = FrameTimings::starting_now();
        let stats = self.prepare(frame, width, height)?;
        self.timings.prepared = Instant::now();
        let slot = target.target.take();
        let mut shown = Offscreen::sized(slot, &self.device, self.format, width, height)?;
        let redraw = self.redraw_for(&shown);
        let (y0, y1) = match redraw {
            Redraw::Full => (0, height),
            Redraw::Rows(y0, y1) => (y0, y1),
        };
        let result = if y0 < y1 {
            let mut encoder = self.encode(&shown.view, redraw);
            shown.copy_rows(&mut encoder, y0, y1);
            self.queue.submit([encoder.finish()]);
            self.timings.submitted = Instant::now();
            let stride = shown.padded_row;
            shown.map_rows(&self.device, y0, y1, |data| {
                present(PixelRows {
                    y: y0,
                    rows: y1 - y0,
                    width,
                    stride,
                    data,
                });
            })
        } else {
            Ok(())
        };
        self.timings.presented = Instant::now();
        shown.drawn_serial = result.is_ok().then_some(self.serial);
        target.target = Some(shown);
        result.map(|()| stats)
    }
}
