//! Images a user attaches to a message: validated by their magic bytes,
//! kept base64-encoded (the form every provider takes and the session log
//! stores), and projected down when a provider rejects them.
//!
//! The bytes live inline in the log's user line rather than in a file
//! beside it: the log stays the one truth (a fork or a copied file keeps
//! its images, a crash cannot leave a line pointing at a missing file),
//! and the size cap keeps a line within a few megabytes.

use std::path::Path;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// Largest image accepted, in bytes before encoding: Anthropic rejects
/// images over 5 MB, the smallest limit of the three dialects, so a
/// larger file would only be sent to fail.
pub const MAX_IMAGE_BYTES: usize = 5_000_000;

/// An image format every supported provider accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// `image/png`.
    Png,
    /// `image/jpeg`.
    Jpeg,
    /// `image/gif`.
    Gif,
    /// `image/webp`.
    Webp,
}

impl ImageFormat {
    /// The format the leading bytes announce, if it is one of ours.
    pub fn sniff(bytes: &[u8]) -> Option<ImageFormat> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageFormat::Png)
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            Some(ImageFormat::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageFormat::Gif)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(ImageFormat::Webp)
        } else {
            None
        }
    }

    /// The MIME type providers expect.
    pub fn media_type(self) -> &'static str {
        match self {
            ImageFormat::Png => "image/png",
            ImageFormat::Jpeg => "image/jpeg",
            ImageFormat::Gif => "image/gif",
            ImageFormat::Webp => "image/webp",
        }
    }
}

/// Why a file cannot be attached.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// It could not be read.
    #[error("cannot read image {name}: {source}")]
    Read {
        /// The file.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// It is over [`MAX_IMAGE_BYTES`].
    #[error("image {name} is {size} bytes; the limit is {limit} bytes (5 MB)")]
    TooLarge {
        /// The file.
        name: String,
        /// Its size.
        size: u64,
        /// The cap.
        limit: usize,
    },
    /// Not PNG, JPEG, GIF or WebP by its content.
    #[error("{name} is not a PNG, JPEG, GIF or WebP image")]
    Unsupported {
        /// The file.
        name: String,
    },
}

/// An attached image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// Where it came from (a file name, `clipboard`), for markers and views.
    pub name: String,
    /// Its format.
    pub format: ImageFormat,
    /// The bytes, standard base64.
    pub data: String,
}

impl Image {
    /// Validates `bytes` as an attachable image named `name`.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Image, ImageError> {
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge {
                name: name.to_string(),
                size: bytes.len() as u64,
                limit: MAX_IMAGE_BYTES,
            });
        }
        let format = ImageFormat::sniff(bytes).ok_or_else(|| ImageError::Unsupported {
            name: name.to_string(),
        })?;
        Ok(Image {
            name: name.to_string(),
            format,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        })
    }

    /// Reads and validates a file; its size is checked before it is read.
    pub fn load(path: &Path) -> Result<Image, ImageError> {
        let name = path.display().to_string();
        let read = |source| ImageError::Read {
            name: name.clone(),
            source,
        };
        let size = std::fs::metadata(path).map_err(read)?.len();
        if size > MAX_IMAGE_BYTES as u64 {
            return Err(ImageError::TooLarge {
                name,
                size,
                limit: MAX_IMAGE_BYTES,
            });
        }
        let bytes = std::fs::read(path).map_err(read)?;
        let label = path
            .file_name()
            .map_or(name.clone(), |n| n.to_string_lossy().into_owned());
        Image::from_bytes(&label, &bytes)
    }

    /// A `data:` URL, as the OpenAI dialects take images.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.format.media_type(), self.data)
    }

    /// Roughly how many bytes the image holds (from its base64 length).
    pub fn approx_bytes(&self) -> usize {
        self.data.len() / 4 * 3
    }

    /// One line for the user: what was attached.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}, {} KB)",
            self.name,
            self.format.media_type(),
            self.approx_bytes().div_ceil(1024)
        )
    }

    /// The text that stands in for this image once it is left out.
    pub fn marker(&self) -> String {
        format!(
            "[image {} ({}, about {} KB) left out: the provider rejected the request with it]",
            self.name,
            self.format.media_type(),
            self.approx_bytes().div_ceil(1024)
        )
    }
}

/// How much of the history's media the provider is sent. Only moves
/// forward within a conversation: a provider that rejected images once
/// would reject the same history again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaLevel {
    /// Every image as attached.
    #[default]
    Full,
    /// Only the newest image; older ones are text markers.
    Degraded,
    /// No images; every one is a text marker.
    Stripped,
}

impl MediaLevel {
    /// The next, more conservative step, if any.
    pub fn next(self) -> Option<MediaLevel> {
        match self {
            MediaLevel::Full => Some(MediaLevel::Degraded),
            MediaLevel::Degraded => Some(MediaLevel::Stripped),
            MediaLevel::Stripped => None,
        }
    }

    /// What the user is told when this level is taken.
    pub fn notice(self) -> &'static str {
        match self {
            MediaLevel::Full => "images are sent in full again",
            MediaLevel::Degraded => {
                "the provider rejected the request's images; retrying with only the newest \
                 image (older ones are replaced by a note)"
            }
            MediaLevel::Stripped => {
                "the provider rejected the request's images again; retrying without any \
                 images (each is replaced by a note)"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_known_by_their_bytes_not_their_names() {
        let png = b"\x89PNG\r\n\x1a\nrest";
        assert_eq!(ImageFormat::sniff(png), Some(ImageFormat::Png));
        assert_eq!(
            ImageFormat::sniff(&[0xff, 0xd8, 0xff, 0xe0]),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(ImageFormat::sniff(b"GIF89a..."), Some(ImageFormat::Gif));
        assert_eq!(
            ImageFormat::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageFormat::Webp)
        );
        assert_eq!(ImageFormat::sniff(b"RIFF\0\0\0\0WAVE"), None);
        assert_eq!(ImageFormat::sniff(b"%PDF-1.7"), None);
        assert_eq!(ImageFormat::sniff(b""), None);
        let img = Image::from_bytes("a.png", png).unwrap();
        assert_eq!(img.data_url(), "data:image/png;base64,iVBORw0KGgpyZXN0");
    }

    #[test]
    fn files_over_the_cap_or_of_other_kinds_are_refused() {
        let dir = std::env::temp_dir().join(format!("koi-image-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.png");
        let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
        bytes.resize(MAX_IMAGE_BYTES + 1, 0);
        std::fs::write(&big, &bytes).unwrap();
        let err = Image::load(&big).unwrap_err();
        assert!(matches!(err, ImageError::TooLarge { size, .. } if size == bytes.len() as u64));
        assert!(err.to_string().contains("limit is 5000000 bytes"), "{err}");
        let text = dir.join("notes.png");
        std::fs::write(&text, "not an image").unwrap();
        let err = Image::load(&text).unwrap_err();
        assert!(matches!(err, ImageError::Unsupported { .. }), "{err}");
        let missing = Image::load(&dir.join("missing.png")).unwrap_err();
        assert!(matches!(missing, ImageError::Read { .. }));
        bytes.truncate(MAX_IMAGE_BYTES);
        std::fs::write(&big, &bytes).unwrap();
        let ok = Image::load(&big).unwrap();
        assert_eq!(ok.name, "big.png");
        assert_eq!(ok.format, ImageFormat::Png);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
