//! Pictures in the terminal: the kitty graphics protocol, sixel and
//! iTerm2 inline images, kept per terminal in a byte-bounded store and
//! anchored to the grid cells they cover so they scroll, clear and reflow
//! with the text.
//!
//! ```text
//! reader thread: APC G / DCS q / OSC 1337 ──► Graphics ──► Store + marks in Term cells
//! UI thread:     Term + Graphics ──► PictureTile per marked cell ──► render::Frame
//! ```
//!
//! GUI-free: nothing here draws; the renderer gets [`render_types::PictureTile`]s.

mod anchor;
mod decode;
mod iterm;
mod kitty;
mod placeholder;
mod sixel;
mod store;
mod view;

use alacritty_terminal::event::EventListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::term::{Term, TermMode};
use render_types::PictureTile;

pub use anchor::is_picture_mark;
pub use placeholder::PLACEHOLDER;
pub use store::DEFAULT_BUDGET_BYTES;

pub(crate) use iterm::PREFIX as ITERM_PREFIX;
pub(crate) use sixel::{MAX_SIDE as SIXEL_MAX_SIDE, REGISTERS as SIXEL_REGISTERS};

use anchor::CursorMove;
use store::{Placement, Store};

/// Decodes a PNG file's bytes (a picture an assistant's answer names) as a
/// kitty `f=100` transmission is decoded, with the same size limits; the
/// error says why not.
pub fn decode_png(bytes: &[u8]) -> Result<render_types::PicturePixels, String> {
    decode::png(bytes).map_err(|e| e.to_string())
}

/// A cell's size in pixels, which placements are measured in.
pub type CellPx = (u16, u16);

/// One terminal's pictures and protocol state.
#[derive(Debug)]
pub struct Graphics {
    store: Store,
    kitty: kitty::Kitty,
    /// When cells were last scanned for placements that scrolled out of
    /// the scrollback.
    swept_at: Option<std::time::Instant>,
    /// Output came since the last sweep, which was too recent to repeat.
    sweep_pending: bool,
}

/// How often [`Graphics::sweep`] scans the grid while pictures are held:
/// a scan of a full scrollback costs about a millisecond.
const SWEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// What a terminal's pictures cost, for diagnostics and measurements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphicsStats {
    pub images: usize,
    pub placements: usize,
    /// Bytes of decoded pixels held.
    pub bytes: usize,
}

impl Default for Graphics {
    fn default() -> Self {
        Self::new(DEFAULT_BUDGET_BYTES)
    }
}

impl Graphics {
    /// Pictures within `budget` bytes of decoded pixels; the oldest are
    /// evicted past it.
    pub fn new(budget: usize) -> Self {
        Self {
            store: Store::new(budget),
            kitty: kitty::Kitty::default(),
            swept_at: None,
            sweep_pending: false,
        }
    }

    /// Frees pictures whose cells all left the grid (scrolled out of the
    /// scrollback, cleared), at most once per [`SWEEP_INTERVAL`]; the
    /// reader calls it after each batch of output.
    pub fn sweep<T>(&mut self, term: &Term<T>) {
        if self.store.placement_count() == 0 {
            return;
        }
        let now = std::time::Instant::now();
        if self
            .swept_at
            .is_some_and(|at| now.duration_since(at) < SWEEP_INTERVAL)
        {
            self.sweep_pending = true;
            return;
        }
        self.swept_at = Some(now);
        self.sweep_pending = false;
        self.collect(term);
    }

    /// When a sweep put off by [`Graphics::sweep`] falls due, so an idle
    /// reader still frees what the last output scrolled away.
    pub fn sweep_due(&self) -> Option<std::time::Instant> {
        self.sweep_pending
            .then(|| self.swept_at.map(|at| at + SWEEP_INTERVAL))
            .flatten()
    }

    /// Runs a kitty graphics command (the APC body after `G`); returns the
    /// reply for the application, if any.
    pub fn kitty<T: EventListener>(
        &mut self,
        term: &mut Term<T>,
        cell: CellPx,
        body: &[u8],
    ) -> Option<String> {
        let reply = self.kitty.handle(&mut self.store, term, cell, body);
        self.maintain(term);
        reply
    }

    /// Draws a sixel picture (`params`: the DCS parameters, `data`: after
    /// the `q`) at the cursor.
    pub fn sixel<T: EventListener>(
        &mut self,
        term: &mut Term<T>,
        cell: CellPx,
        params: &[u16],
        data: &[u8],
    ) {
        let Some(pixels) = sixel::decode(params, data) else {
            return;
        };
        let geometry = full_size(&pixels, cell);
        self.show(term, pixels, geometry, CursorMove::LineBelow);
    }

    /// Shows an iTerm2 inline image (the OSC payload after `1337;File=`).
    pub fn iterm<T: EventListener>(&mut self, term: &mut Term<T>, cell: CellPx, body: &[u8]) {
        let screen = (
            u16::try_from(term.grid().columns()).unwrap_or(u16::MAX),
            u16::try_from(term.grid().screen_lines()).unwrap_or(u16::MAX),
        );
        match iterm::parse(body, cell, screen) {
            Ok(inline) => self.show(
                term,
                inline.pixels,
                inline.geometry,
                CursorMove::AfterLastColumn,
            ),
            Err(e) => log::warn!("iTerm2 inline image refused: {e:?}"),
        }
    }

    fn show<T: EventListener>(
        &mut self,
        term: &mut Term<T>,
        pixels: render_types::PicturePixels,
        geometry: store::Geometry,
        motion: CursorMove,
    ) {
        let image = self.store.add_image(0, 0, pixels);
        let key = self.store.place(Placement {
            image,
            client_id: 0,
            geometry,
            z: 0,
            virtual_box: false,
        });
        anchor::put(term, key, geometry.cols, geometry.rows, motion);
        self.store.enforce_budget(image);
        self.maintain(term);
    }

    /// Drops placements whose cells are gone once enough piled up. Not on
    /// the alternate screen: the main screen's cells cannot be seen then.
    fn maintain<T>(&mut self, term: &Term<T>) {
        if self.store.wants_collection() && !term.mode().contains(TermMode::ALT_SCREEN) {
            self.store.collect(&anchor::live_keys(term));
        }
    }

    /// Drops every placement no cell shows any more, and anonymous
    /// pictures left without one (on the main screen only).
    pub fn collect<T>(&mut self, term: &Term<T>) {
        if !term.mode().contains(TermMode::ALT_SCREEN) {
            self.store.collect(&anchor::live_keys(term));
        }
    }

    /// The tiles of pictures in the cells on display.
    pub fn tiles<T>(&self, term: &Term<T>) -> Vec<PictureTile> {
        if self.store.placement_count() == 0 {
            return Vec::new();
        }
        let mut tiles = view::tiles(&self.store, &anchor::visible(term));
        if self.store.has_virtual() {
            tiles.extend(view::placeholder_tiles(
                &self.store,
                &placeholder::visible(term),
            ));
        }
        tiles
    }

    /// Forgets every picture (a full reset).
    pub fn reset(&mut self) {
        self.store.clear();
        self.kitty = kitty::Kitty::default();
    }

    pub fn stats(&self) -> GraphicsStats {
        GraphicsStats {
            images: self.store.image_count(),
            placements: self.store.placement_count(),
            bytes: self.store.used_bytes(),
        }
    }
}

/// A picture drawn at its own size from the cursor's cell.
fn full_size(pixels: &render_types::PicturePixels, cell: CellPx) -> store::Geometry {
    let (cw, ch) = (f32::from(cell.0.max(1)), f32::from(cell.1.max(1)));
    let (w, h) = (pixels.width() as f32, pixels.height() as f32);
    store::Geometry {
        source: store::PxRect {
            x: 0.0,
            y: 0.0,
            w,
            h,
        },
        dest: store::PxRect {
            x: 0.0,
            y: 0.0,
            w,
            h,
        },
        cell: (cw, ch),
        cols: (w / cw).ceil() as u32,
        rows: (h / ch).ceil() as u32,
    }
}

#[cfg(test)]
mod tests;
