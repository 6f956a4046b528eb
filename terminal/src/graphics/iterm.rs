//! iTerm2's inline images (`OSC 1337 ; File=key=value;…:BASE64 BEL`), as
//! `imgcat` sends them. PNG files are shown; other formats are refused.

use base64::Engine as _;
use render_types::PicturePixels;

use super::decode;
use super::store::{Geometry, PxRect};

/// The OSC payload prefix of an inline file.
pub(crate) const PREFIX: &[u8] = b"1337;File=";

/// A size argument (`width=`, `height=`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Size {
    Auto,
    Cells(u32),
    Pixels(u32),
    Percent(u32),
}

fn size(value: &str) -> Size {
    let number = |s: &str| s.parse::<u32>().ok();
    if let Some(n) = value.strip_suffix("px").and_then(number) {
        Size::Pixels(n)
    } else if let Some(n) = value.strip_suffix('%').and_then(number) {
        Size::Percent(n.min(100))
    } else if let Some(n) = number(value) {
        Size::Cells(n)
    } else {
        Size::Auto
    }
}

/// A decoded inline image and where it goes.
pub(crate) struct Inline {
    pub(crate) pixels: PicturePixels,
    pub(crate) geometry: Geometry,
}

/// Why an inline image is not shown.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// `inline=0`: a download, which koi does not save.
    NotInline,
    Malformed(String),
}

/// Parses and decodes an OSC 1337 `File=` payload (after [`PREFIX`]) for
/// a screen of `screen` cells of `cell` pixels.
pub(crate) fn parse(body: &[u8], cell: (u16, u16), screen: (u16, u16)) -> Result<Inline, Refused> {
    let colon = body
        .iter()
        .position(|&b| b == b':')
        .ok_or_else(|| Refused::Malformed("no ':' before the file's data".into()))?;
    let args = String::from_utf8_lossy(&body[..colon]);
    let (mut width, mut height, mut keep_aspect, mut inline) =
        (Size::Auto, Size::Auto, true, false);
    for pair in args.split(';') {
        let Some((key, value)) = pair.split_once('=') else {
            continue;
        };
        match key {
            "width" => width = size(value),
            "height" => height = size(value),
            "preserveAspectRatio" => keep_aspect = value != "0",
            "inline" => inline = value == "1",
            _ => {}
        }
    }
    if !inline {
        return Err(Refused::NotInline);
    }
    let data = base64::engine::general_purpose::STANDARD
        .decode(body[colon + 1..].trim_ascii())
        .map_err(|e| Refused::Malformed(format!("bad base64: {e}")))?;
    let pixels = decode::png(&data).map_err(|e| Refused::Malformed(e.to_string()))?;
    let geometry = place(&pixels, width, height, keep_aspect, cell, screen);
    Ok(Inline { pixels, geometry })
}

fn place(
    pixels: &PicturePixels,
    width: Size,
    height: Size,
    keep_aspect: bool,
    cell: (u16, u16),
    screen: (u16, u16),
) -> Geometry {
    let (cw, ch) = (f32::from(cell.0.max(1)), f32::from(cell.1.max(1)));
    let (iw, ih) = (pixels.width() as f32, pixels.height() as f32);
    let px = |s: Size, cell: f32, screen: f32| match s {
        Size::Auto => None,
        Size::Cells(n) => Some(n as f32 * cell),
        Size::Pixels(n) => Some(n as f32),
        Size::Percent(p) => Some(screen * cell * p as f32 / 100.0),
    };
    let box_w = px(width, cw, f32::from(screen.0));
    let box_h = px(height, ch, f32::from(screen.1));
    let (box_w, box_h) = match (box_w, box_h) {
        (None, None) => (iw, ih),
        (Some(w), None) => (w, w * ih / iw),
        (None, Some(h)) => (h * iw / ih, h),
        (Some(w), Some(h)) => (w, h),
    };
    let (dw, dh) = if keep_aspect {
        let scale = (box_w / iw).min(box_h / ih);
        (iw * scale, ih * scale)
    } else {
        (box_w, box_h)
    };
    let limit = f32::from(u16::MAX);
    Geometry {
        source: PxRect {
            x: 0.0,
            y: 0.0,
            w: iw,
            h: ih,
        },
        dest: PxRect {
            x: 0.0,
            y: 0.0,
            w: dw,
            h: dh,
        },
        cell: (cw, ch),
        cols: (box_w / cw).ceil().clamp(1.0, limit) as u32,
        rows: (box_h / ch).ceil().clamp(1.0, limit) as u32,
    }
}
