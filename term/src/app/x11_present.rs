//! Presenting to an X11 window with `PutImage`, for CPU rasterisers.
//!
//! lavapipe presents a Vulkan swapchain on X11 by sending the server the
//! whole window on every frame. When the adapter is a CPU rasteriser the
//! pixels are in memory anyway, so koi sends only the rows that changed
//! (`render::Renderer::render_to_cpu`), over an X connection of its own.
//! A frame is one `PutImage` request (up to the server's request size),
//! which the server applies whole: a frame is never half shown (no
//! tearing). `KOI_PRESENT=surface` keeps the wgpu surface instead.

use render::PixelRows;
use winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};
use winit::window::Window;
use x11rb::connection::{Connection as _, RequestConnection as _};
use x11rb::protocol::xproto::{
    ChangeWindowAttributesAux, ConnectionExt as _, CreateGCAux, EventMask, ImageFormat, ImageOrder,
    VisualClass,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;

/// The environment variable that picks the way frames reach the window:
/// `surface` for the wgpu surface, anything else (or unset) for
/// `PutImage` where it applies.
pub(super) const PRESENT_ENV: &str = "KOI_PRESENT";

/// The request header of `PutImage` with a BIG-REQUESTS length: what a
/// request holds besides its pixels.
const PUT_IMAGE_HEADER: usize = 28;

/// Why a frame did not reach the window.
#[derive(Debug, thiserror::Error)]
pub(super) enum PresentError {
    #[error("X connection: {0}")]
    Connection(#[from] x11rb::errors::ConnectionError),
    #[error("a frame too large for one request ({0} rows)")]
    TooLarge(u32),
}

/// A connection, the window and a graphics context to put pixels with.
pub(super) struct X11Present {
    conn: RustConnection,
    window: u32,
    gc: u32,
    depth: u8,
}

impl X11Present {
    /// `None` unless `window` is an X11 window whose pixels are 32-bit
    /// little-endian BGRX (what every TrueColor X server on x86 and ARM
    /// uses), or `KOI_PRESENT=surface` asks for the wgpu surface.
    pub(super) fn new(window: &Window) -> Option<Self> {
        if std::env::var(PRESENT_ENV).is_ok_and(|v| v == "surface") {
            return None;
        }
        let id = match window.window_handle().ok()?.as_raw() {
            RawWindowHandle::Xlib(h) => u32::try_from(h.window).ok()?,
            RawWindowHandle::Xcb(h) => h.window.get(),
            _ => return None,
        };
        match Self::connect(id) {
            Ok(present) => present,
            Err(e) => {
                log::info!("present: PutImage unavailable ({e}); using the wgpu surface");
                None
            }
        }
    }

    fn connect(window: u32) -> Result<Option<Self>, Box<dyn std::error::Error>> {
        let (conn, _) = RustConnection::connect(None)?;
        let attrs = conn.get_window_attributes(window)?.reply()?;
        let depth = conn.get_geometry(window)?.reply()?.depth;
        let setup = conn.setup();
        let visual = setup
            .roots
            .iter()
            .flat_map(|s| &s.allowed_depths)
            .filter(|d| d.depth == depth)
            .flat_map(|d| &d.visuals)
            .find(|v| v.visual_id == attrs.visual);
        let bgrx = visual.is_some_and(|v| {
            v.class == VisualClass::TRUE_COLOR
                && (v.red_mask, v.green_mask, v.blue_mask) == (0xff_0000, 0xff00, 0xff)
        });
        let pixels_32 = setup
            .pixmap_formats
            .iter()
            .any(|f| f.depth == depth && f.bits_per_pixel == 32 && f.scanline_pad == 32);
        if !bgrx || !pixels_32 || setup.image_byte_order != ImageOrder::LSB_FIRST {
            log::info!("present: the window's visual is not 32-bit BGRX; using the wgpu surface");
            return Ok(None);
        }
        let gc = conn.generate_id()?;
        conn.create_gc(gc, window, &CreateGCAux::new().graphics_exposures(0))?;
        // Exposures, on this connection's own event mask (winit keeps its
        // own): they mean the window lost pixels and needs a whole frame.
        conn.change_window_attributes(
            window,
            &ChangeWindowAttributesAux::new().event_mask(EventMask::EXPOSURE),
        )?;
        conn.prefetch_maximum_request_bytes();
        conn.flush()?;
        Ok(Some(Self {
            conn,
            window,
            gc,
            depth,
        }))
    }

    /// Whether the window was exposed (lost pixels) since the last call.
    pub(super) fn take_exposed(&self) -> bool {
        let mut exposed = false;
        while let Ok(Some(event)) = self.conn.poll_for_event() {
            exposed |= matches!(event, Event::Expose(_));
        }
        exposed
    }

    /// Sends `rows` to the window, as one request when the server takes
    /// one that large (16 MiB on Xorg and Xvfb: a 2048×2048 window), else
    /// in bands, as Mesa does. The rows go with their padding, as an image
    /// `stride / 4` pixels wide: the window's edge clips what lies past
    /// its width, and no copy is needed.
    pub(super) fn put(&self, rows: PixelRows<'_>) -> Result<(), PresentError> {
        let too_large = || PresentError::TooLarge(rows.rows);
        let stride = rows.stride as usize;
        let room = self
            .conn
            .maximum_request_bytes()
            .saturating_sub(PUT_IMAGE_HEADER);
        let band = (room / stride.max(1)).min(usize::from(u16::MAX));
        if band == 0 || stride == 0 {
            return Err(too_large());
        }
        let width = u16::try_from(rows.stride / 4).map_err(|_| too_large())?;
        for (i, data) in rows.data.chunks(band * stride).enumerate() {
            let y = rows.y as usize + i * band;
            let y = i16::try_from(y).map_err(|_| too_large())?;
            let height = u16::try_from(data.len() / stride).map_err(|_| too_large())?;
            self.conn
                .put_image(
                    ImageFormat::Z_PIXMAP,
                    self.window,
                    self.gc,
                    width,
                    height,
                    0,
                    y,
                    0,
                    self.depth,
                    data,
                )?
                .ignore_error();
        }
        self.conn.flush()?;
        Ok(())
    }
}
