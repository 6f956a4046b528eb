//! The kitty graphics protocol (`ESC _ G … ESC \`): transmission (direct
//! in base64 chunks, file, temporary file, shared memory), RGB/RGBA/PNG
//! with optional zlib, placement, deletion, queries, and kitty's replies
//! byte for byte.

pub(crate) mod command;
mod delete;
mod medium;

use alacritty_terminal::event::EventListener;
use alacritty_terminal::term::Term;
use render_types::PicturePixels;

use super::anchor::{self, CursorMove};
use super::decode::{self, DecodeError, MAX_SIDE};
use super::store::{Geometry, Placement, PxRect, Store};
use command::Command;

/// kitty's `MAX_DATA_SZ`: the most bytes a PNG may take in transit.
const MAX_DATA_SIZE: usize = 400_000_000;

/// Slack kitty allows past the expected size of raw data in transit
/// (room for a zlib header when compressed).
const RAW_SLACK: usize = 10;
const COMPRESSED_SLACK: usize = 1024;

/// A direct transmission waiting for more chunks.
#[derive(Debug)]
struct Loading {
    /// The command that started it (its keys rule every chunk).
    start: Command,
    data: Vec<u8>,
    /// Bytes the transfer may grow to.
    limit: usize,
}

/// The kitty protocol state of one terminal.
#[derive(Debug, Default)]
pub(crate) struct Kitty {
    loading: Option<Loading>,
}

/// The cell size placements are measured in.
pub(crate) type CellPx = (u16, u16);

impl Kitty {
    /// Runs one command (the APC body after `G`) and returns the reply to
    /// send, if kitty would send one.
    pub(crate) fn handle<T: EventListener>(
        &mut self,
        store: &mut Store,
        term: &mut Term<T>,
        cell: CellPx,
        body: &[u8],
    ) -> Option<String> {
        let (cmd, payload) = match command::parse(body) {
            Ok(parsed) => parsed,
            Err(e) => {
                log::warn!("kitty graphics: {e}");
                return None;
            }
        };
        if cmd.id != 0 && cmd.number != 0 {
            let e = DecodeError::new("EINVAL", "Must not specify both image id and image number");
            return reply(&cmd, Err(e), false);
        }
        match cmd.action {
            0 | b't' | b'T' | b'q' => self.transmit(store, term, cell, cmd, &payload),
            b'p' => {
                if cmd.id == 0 && cmd.number == 0 {
                    log::warn!("kitty graphics: Put graphics command without image id or number");
                    return None;
                }
                let (id, result) = put(store, term, cell, &cmd, None);
                reply(&Command { id, ..cmd }, result, true)
            }
            b'd' => {
                delete::run(store, term, &cmd);
                None
            }
            other => {
                // Animation (a=f, a=a, a=c) is not supported: say so.
                let e = DecodeError::new(
                    "EINVAL",
                    format!("Unsupported graphics command action: {}", other as char),
                );
                reply(&cmd, Err(e), false)
            }
        }
    }

    fn transmit<T: EventListener>(
        &mut self,
        store: &mut Store,
        term: &mut Term<T>,
        cell: CellPx,
        cmd: Command,
        payload: &[u8],
    ) -> Option<String> {
        let is_query = cmd.action == b'q';
        if is_query && cmd.id == 0 {
            log::warn!("kitty graphics: Query graphics command without image id");
            return None;
        }
        let continues = cmd.medium == 0 && self.loading.is_some();
        let (start, data) = if continues {
            let mut loading = self.loading.take()?;
            if loading.data.len() + payload.len() > loading.limit {
                let e = DecodeError::new("EFBIG", "Too much data");
                return reply(&quiet_of(&loading.start, &cmd), Err(e), false);
            }
            loading.data.extend_from_slice(payload);
            if cmd.more {
                self.loading = Some(loading);
                return None;
            }
            (quiet_of(&loading.start, &cmd), loading.data)
        } else {
            self.loading = None;
            if let Err(e) = check_start(&cmd, store.budget()) {
                return finish(&cmd, is_query, Err(e));
            }
            if medium_of(&cmd) != b'd' {
                let data = match medium::read(&cmd, payload) {
                    Ok(data) => data,
                    Err(e) => return finish(&cmd, is_query, Err(e)),
                };
                (cmd, data)
            } else {
                if payload.len() > transit_limit(&cmd) {
                    let e = DecodeError::new("EFBIG", "Too much data");
                    return finish(&cmd, is_query, Err(e));
                }
                if cmd.more {
                    self.loading = Some(Loading {
                        limit: transit_limit(&cmd),
                        start: cmd,
                        data: payload.to_vec(),
                    });
                    return None;
                }
                (cmd, payload.to_vec())
            }
        };
        let pixels = match decode_data(&start, &data) {
            Ok(pixels) => pixels,
            Err(e) => return finish(&start, is_query, Err(e)),
        };
        if is_query {
            return finish(&start, true, Ok(()));
        }
        let mut start = start;
        if start.id == 0 && start.number != 0 {
            start.id = store.free_client_id();
        }
        let key = store.add_image(start.id, start.number, pixels);
        let answer = reply(&start, Ok(()), true);
        if start.action == b'T' {
            // A failed put after a good transmission is not reported:
            // kitty answers for the transmission only.
            let _ = put(store, term, cell, &start, Some(key));
        }
        store.enforce_budget(key);
        answer
    }
}

/// The reply to a transmission or query: a query answers with its own id
/// and quiet level only.
fn finish(cmd: &Command, is_query: bool, result: Result<(), DecodeError>) -> Option<String> {
    if is_query {
        let q = Command {
            id: cmd.id,
            quiet: cmd.quiet,
            ..Command::default()
        };
        return reply(&q, result, true);
    }
    reply(cmd, result, true)
}

/// The start command with a later chunk's quiet level, when it has one.
fn quiet_of(start: &Command, chunk: &Command) -> Command {
    let mut cmd = start.clone();
    if chunk.quiet != 0 {
        cmd.quiet = chunk.quiet;
    }
    cmd
}

fn medium_of(cmd: &Command) -> u8 {
    if cmd.medium == 0 {
        b'd'
    } else {
        cmd.medium
    }
}

fn format_of(cmd: &Command) -> u32 {
    if cmd.format == 0 {
        32
    } else {
        cmd.format
    }
}

/// Raw pixel bytes the command declares (0 for PNG).
fn raw_size(cmd: &Command) -> usize {
    let bytes_per_pixel = match format_of(cmd) {
        24 => 3,
        32 => 4,
        _ => return 0,
    };
    cmd.data_width as usize * cmd.data_height as usize * bytes_per_pixel
}

/// How many bytes a direct transmission may carry in all.
fn transit_limit(cmd: &Command) -> usize {
    match format_of(cmd) {
        100 => MAX_DATA_SIZE,
        _ if cmd.compression != 0 => raw_size(cmd) + COMPRESSED_SLACK,
        _ => raw_size(cmd) + RAW_SLACK,
    }
}

/// What kitty checks before reading any data.
fn check_start(cmd: &Command, budget: usize) -> Result<(), DecodeError> {
    if cmd.data_width > MAX_SIDE || cmd.data_height > MAX_SIDE {
        return Err(DecodeError::new(
            "EINVAL",
            format!("Image too large, width or height greater than {MAX_SIDE}"),
        ));
    }
    match format_of(cmd) {
        100 => {
            if cmd.data_size as usize > MAX_DATA_SIZE {
                return Err(DecodeError::new("EINVAL", "PNG data size too large"));
            }
        }
        24 | 32 => {
            if raw_size(cmd) == 0 {
                return Err(DecodeError::new("EINVAL", "Zero width/height not allowed"));
            }
            // koi's own bound: pixels that could never fit the budget
            // are refused before any arrive.
            if cmd.data_width as usize * cmd.data_height as usize * 4 > budget {
                return Err(DecodeError::new("EFBIG", "Too much data"));
            }
        }
        other => {
            return Err(DecodeError::new(
                "EINVAL",
                format!("Unknown image format: {other}"),
            ))
        }
    }
    Ok(())
}

/// Inflates (o=z) and decodes transmitted bytes into pixels.
fn decode_data(cmd: &Command, data: &[u8]) -> Result<PicturePixels, DecodeError> {
    let format = format_of(cmd);
    let expected = raw_size(cmd);
    let inflated;
    let data = if cmd.compression == b'z' {
        let limit = if format == 100 {
            MAX_DATA_SIZE
        } else {
            expected
        };
        inflated = decode::inflate(data, limit)?;
        if format != 100 && inflated.len() != expected {
            return Err(DecodeError::new(
                "EINVAL",
                "Image data size post inflation does not match expected size",
            ));
        }
        &inflated[..]
    } else {
        data
    };
    if format == 100 {
        return decode::png(data);
    }
    if data.len() < expected {
        return Err(DecodeError::new(
            "ENODATA",
            format!("Insufficient image data: {} < {}", data.len(), expected),
        ));
    }
    let raw = &data[..expected];
    let rgba = if format == 24 {
        decode::rgb_to_rgba(raw)
    } else {
        raw.to_vec()
    };
    PicturePixels::new(cmd.data_width, cmd.data_height, rgba)
        .ok_or_else(|| DecodeError::new("EINVAL", "Zero width/height not allowed"))
}

/// Places an image (`key`, or the one `cmd` names) at the cursor. Returns
/// the client id to answer with and whether it worked.
fn put<T: EventListener>(
    store: &mut Store,
    term: &mut Term<T>,
    cell: CellPx,
    cmd: &Command,
    key: Option<u64>,
) -> (u32, Result<(), DecodeError>) {
    let found = key.or_else(|| {
        if cmd.id != 0 {
            store.by_client_id(cmd.id)
        } else {
            store.by_number(cmd.number)
        }
    });
    let Some((key, image)) = found.and_then(|k| store.image(k).map(|i| (k, i))) else {
        let e = DecodeError::new(
            "ENOENT",
            format!(
                "Put command refers to non-existent image with id: {} and number: {}",
                cmd.id, cmd.number
            ),
        );
        return (cmd.id, Err(e));
    };
    let client_id = image.client_id;
    let size = (image.pixels.width(), image.pixels.height());
    let geometry = geometry(cmd, size, cell);
    let placement = Placement {
        image: key,
        client_id: cmd.placement_id,
        geometry,
        z: cmd.z,
        virtual_box: cmd.unicode,
    };
    if cmd.unicode {
        // Drawn where placeholders name it; the cursor does not move.
        store.place(placement);
        return (client_id, Ok(()));
    }
    let (cols, rows) = (geometry.cols, geometry.rows);
    let placed = store.place(placement);
    let motion = if cmd.cursor_stays {
        CursorMove::Stay
    } else {
        CursorMove::AfterLastColumn
    };
    anchor::put(term, placed, cols, rows, motion);
    (client_id, Ok(()))
}

/// Where a placement draws, as kitty computes it (`update_dest_rect` and
/// the layer geometry): cells covered, source and destination rectangles.
fn geometry(cmd: &Command, (img_w, img_h): (u32, u32), cell: CellPx) -> Geometry {
    let cw = f64::from(cell.0.max(1));
    let ch = f64::from(cell.1.max(1));
    let src_x = cmd.x.min(img_w);
    let src_y = cmd.y.min(img_h);
    let src_w = if cmd.width != 0 { cmd.width } else { img_w }.min(img_w - src_x);
    let src_h = if cmd.height != 0 { cmd.height } else { img_h }.min(img_h - src_y);
    let off_x = f64::from(cmd.cell_x_offset.min(u32::from(cell.0.max(1)) - 1));
    let off_y = f64::from(cmd.cell_y_offset.min(u32::from(cell.1.max(1)) - 1));
    let (sw, sh) = (f64::from(src_w), f64::from(src_h));
    let aspect_w = if sh > 0.0 { sw / sh } else { 0.0 };
    let aspect_h = if sw > 0.0 { sh / sw } else { 0.0 };
    let cols = match (cmd.cols, cmd.rows) {
        (0, 0) => ((sw + off_x) / cw).ceil(),
        (0, r) => ((ch * f64::from(r) + off_y) * aspect_w / cw).ceil(),
        (c, _) => f64::from(c),
    };
    let rows = match (cmd.cols, cmd.rows) {
        (0, 0) => ((sh + off_y) / ch).ceil(),
        (c, 0) => ((cw * f64::from(c) + off_x) * aspect_h / ch).ceil(),
        (_, r) => f64::from(r),
    };
    let (width, height) = if cmd.rows != 0 {
        let height = ch * f64::from(cmd.rows) - off_y;
        let width = if cmd.cols != 0 {
            cw * f64::from(cmd.cols) - off_x
        } else {
            height * aspect_w
        };
        (width, height)
    } else {
        let width = if cmd.cols != 0 {
            cw * f64::from(cmd.cols) - off_x
        } else {
            sw
        };
        (width, width * aspect_h)
    };
    let clamp = |v: f64| v.clamp(0.0, f64::from(MAX_SIDE)) as u32;
    Geometry {
        source: PxRect {
            x: src_x as f32,
            y: src_y as f32,
            w: src_w as f32,
            h: src_h as f32,
        },
        dest: PxRect {
            x: off_x as f32,
            y: off_y as f32,
            w: width as f32,
            h: height as f32,
        },
        cell: (cw as f32, ch as f32),
        cols: clamp(cols),
        rows: clamp(rows),
    }
}

/// kitty's `finish_command_response`: nothing without an id or number,
/// nothing for a success still waiting for data, nothing when `q` hides
/// it; otherwise `ESC _ G i=…[,I=…][,p=…];OK|CODE:message ESC \`.
pub(crate) fn reply(
    cmd: &Command,
    result: Result<(), DecodeError>,
    data_loaded: bool,
) -> Option<String> {
    let ok = result.is_ok();
    if cmd.quiet != 0 && (ok || cmd.quiet > 1) {
        return None;
    }
    if cmd.id == 0 && cmd.number == 0 {
        return None;
    }
    if ok && !data_loaded {
        return None;
    }
    let mut out = String::from("\x1b_G");
    if cmd.id != 0 {
        out.push_str(&format!("i={}", cmd.id));
    }
    if cmd.number != 0 {
        out.push_str(&format!(",I={}", cmd.number));
    }
    if cmd.placement_id != 0 {
        out.push_str(&format!(",p={}", cmd.placement_id));
    }
    match result {
        Ok(()) => out.push_str(";OK"),
        Err(e) => out.push_str(&format!(";{e}")),
    }
    out.push_str("\x1b\\");
    Some(out)
}
