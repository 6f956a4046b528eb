//! Turning transmitted bytes into RGBA pixels: PNG, zlib, 24-bit RGB.

use render_types::PicturePixels;

/// The largest picture side accepted, as kitty's `MAX_IMAGE_DIMENSION`.
pub(crate) const MAX_SIDE: u32 = 10_000;

/// Why bytes are not a picture; the text is what kitty puts after the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DecodeError {
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

impl DecodeError {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.code, self.message)
    }
}

/// Inflates zlib data, refusing output past `limit` bytes.
pub(crate) fn inflate(data: &[u8], limit: usize) -> Result<Vec<u8>, DecodeError> {
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(data, limit).map_err(|e| {
        let why = match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => "output too large".to_owned(),
            status => format!("{status:?}"),
        };
        DecodeError::new(
            "EINVAL",
            format!("Failed to inflate image data with error: {why}"),
        )
    })
}

/// Decodes a PNG into RGBA, refusing sides over [`MAX_SIDE`] before
/// allocating anything.
pub(crate) fn png(data: &[u8]) -> Result<PicturePixels, DecodeError> {
    let bad = |e: &dyn std::fmt::Display| DecodeError::new("EBADPNG", e.to_string());
    let mut decoder = png::Decoder::new(std::io::Cursor::new(data));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| bad(&e))?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(DecodeError::new(
            "EINVAL",
            format!("Image too large, width or height greater than {MAX_SIDE}"),
        ));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| DecodeError::new("EBADPNG", "image too large"))?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| bad(&e))?;
    buf.truncate(frame.buffer_size());
    let rgba = match frame.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => rgb_to_rgba(&buf),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Indexed => {
            return Err(DecodeError::new("EBADPNG", "unexpanded palette"));
        }
    };
    PicturePixels::new(width, height, rgba)
        .ok_or_else(|| DecodeError::new("EBADPNG", "PNG data does not match its size"))
}

/// 24-bit RGB to RGBA, opaque.
pub(crate) fn rgb_to_rgba(rgb: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rgb.len() / 3 * 4);
    for p in rgb.chunks_exact(3) {
        out.extend_from_slice(&[p[0], p[1], p[2], 255]);
    }
    out
}
