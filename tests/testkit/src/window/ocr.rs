//! The window read as a person reads it: text recognised from its pixels by
//! tesseract (Debian's `tesseract-ocr`), not from koi's own dump of what it
//! meant to draw. A test that checks the panel this way fails when the
//! words are not on the screen, whatever koi believes it drew.

use std::io::Write as _;
use std::process::{Command, Stdio};

use super::Image;
use crate::skip;

/// How much the pixels are enlarged before recognition: tesseract reads
/// text best with capitals about 30 px high, and koi's cells are ~19 px.
const SCALE: usize = 3;
/// How many pixels on either side of a pixel give its background: about
/// two cells, so that background outnumbers any one shade of a glyph.
const WINDOW: usize = 20;
/// How a pixel's distance from that background (in luma) becomes ink:
/// koi's dimmest text (hints, key lines) is about 90 from its background.
const GAIN: f32 = 2.5;

/// The text tesseract reads in `img`, or `None` (the skip recorded, in the
/// `programs` family) when tesseract is not installed.
pub fn read(img: &Image, test: &str) -> Option<String> {
    let pgm = grey_pgm(img);
    // What tesseract was given, to look at when a read fails.
    if let Some(dir) = std::env::var_os("KOI_OCR_DUMP") {
        let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{test}.pgm")), &pgm);
    }
    let child = Command::new("tesseract")
        // stdin to stdout, one uniform block of text, English.
        .args(["-", "-", "--psm", "6", "-l", "eng"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            skip::skip(
                skip::PROGRAMS,
                test,
                &format!("tesseract ({e}): apt-get install tesseract-ocr"),
            );
            return None;
        }
    };
    let mut stdin = child.stdin.take().expect("piped stdin");
    // Written on its own thread: tesseract may answer before it has read
    // everything, and neither side may block the other.
    let writer = std::thread::spawn(move || stdin.write_all(&pgm));
    let out = child.wait_with_output().expect("tesseract runs");
    writer
        .join()
        .expect("the writer thread")
        .expect("the image reaches tesseract");
    assert!(
        out.status.success(),
        "tesseract failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `text`'s words for comparing what was read with what was meant: lower
/// case, letters and digits only, single spaces. Punctuation is where
/// recognition errs most and matters least.
pub fn words(text: &str) -> String {
    let kept: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the words of `wanted` appear, in order and together, in what
/// was read (`read`).
pub fn shows(read: &str, wanted: &str) -> bool {
    words(read).contains(&words(wanted))
}

/// `img` as a grey PGM, dark text on white, each pixel enlarged to
/// `SCALE`×`SCALE`. The panel, the dialog and the terminal each have a
/// background of their own, and one global threshold loses the text on the
/// lighter ones; so a pixel's ink is how far it stands from the background
/// beside it ([`background`] of the pixels left and right of it).
fn grey_pgm(img: &Image) -> Vec<u8> {
    let (w, h) = (img.width, img.height);
    let mut lumas = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            lumas.push(luma(img.rgb(x, y)));
        }
    }
    // Grey, not yet black and white: the glyphs' anti-aliased edges help
    // tesseract more than a threshold of ours would.
    let mean = lumas.iter().map(|&l| l as usize).sum::<usize>() / lumas.len().max(1);
    let dark = mean < 128;
    let mut ink = vec![0f32; w * h];
    let mut near = Vec::with_capacity(2 * WINDOW + 1);
    for y in 0..h {
        let row = &lumas[y * w..(y + 1) * w];
        for x in 0..w {
            near.clear();
            near.extend_from_slice(&row[x.saturating_sub(WINDOW)..(x + WINDOW + 1).min(w)]);
            let contrast = row[x].abs_diff(background(&mut near, dark)) as f32;
            ink[y * w + x] = (contrast * GAIN).min(255.0);
        }
    }
    // Enlarged with bilinear interpolation, ink black on white.
    let (big_w, big_h) = (w * SCALE, h * SCALE);
    let mut out = format!("P5\n{big_w} {big_h}\n255\n").into_bytes();
    out.reserve(big_w * big_h);
    let at = |x: usize, y: usize| ink[y.min(h - 1) * w + x.min(w - 1)];
    for by in 0..big_h {
        let fy = (by as f32 + 0.5) / SCALE as f32 - 0.5;
        let (y, ty) = (fy.max(0.0) as usize, fy.max(0.0).fract());
        for bx in 0..big_w {
            let fx = (bx as f32 + 0.5) / SCALE as f32 - 0.5;
            let (x, tx) = (fx.max(0.0) as usize, fx.max(0.0).fract());
            let top = at(x, y) * (1.0 - tx) + at(x + 1, y) * tx;
            let bottom = at(x, y + 1) * (1.0 - tx) + at(x + 1, y + 1) * tx;
            let v = top * (1.0 - ty) + bottom * ty;
            out.push(255 - v.round().clamp(0.0, 255.0) as u8);
        }
    }
    out
}

/// The background among `values` (sorted in place). A background is one
/// flat shade: the most frequent one when it fills half the neighbourhood
/// (plain text, and reverse video whose background is the light shade);
/// otherwise, among dense bold glyphs, the most frequent shade of the
/// darker part on a dark theme (text is lighter than what it is drawn on),
/// of the lighter part on a light one.
fn background(values: &mut [u8], dark: bool) -> u8 {
    values.sort_unstable();
    let (shade, count) = mode(values);
    if count * 2 >= values.len() {
        return shade;
    }
    let keep = (values.len() * 3).div_ceil(5);
    let part = if dark {
        &values[..keep]
    } else {
        &values[values.len() - keep..]
    };
    mode(part).0
}

/// The most frequent value of sorted `values`, and how often it occurs.
fn mode(values: &[u8]) -> (u8, usize) {
    let (mut best, mut best_run, mut run) = (0, 0, 0);
    for (i, &v) in values.iter().enumerate() {
        run = if i > 0 && values[i - 1] == v {
            run + 1
        } else {
            1
        };
        if run > best_run {
            (best, best_run) = (v, run);
        }
    }
    (best, best_run)
}

/// Rec. 601 luma of an sRGB pixel.
fn luma([r, g, b]: [u8; 3]) -> u8 {
    ((r as u32 * 299 + g as u32 * 587 + b as u32 * 114) / 1000) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_ignore_case_and_punctuation() {
        assert_eq!(
            words("The answer is\nforty-two."),
            "the answer is forty two"
        );
        assert!(shows("| The answer is forty—two. |", "answer is forty-two"));
        assert!(!shows("The answer is forty", "answer is forty-two"));
    }
}
