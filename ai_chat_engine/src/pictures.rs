//! The pictures an answer names: a markdown image (`![plot](out/plot.png)`)
//! whose target is a picture file. `k` draws them below its answer and the
//! overlay inside it; both find them here, so the two agree on what counts.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::image::{Image, ImageError};

/// One markdown image of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedPicture {
    /// The target as written (`out/plot.png`), shown as the caption.
    pub target: String,
    /// The picture file it names, or why it is not one.
    pub image: Result<Image, NotAPicture>,
}

/// Why a markdown image's target is not drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAPicture {
    /// No regular file there (missing, a directory, a device or a pipe
    /// that could block the reader).
    #[error("{0} is not a file")]
    NoFile(String),
    /// A file, but not a picture koi accepts (or over the size cap).
    #[error("{0}")]
    Refused(String),
}

/// The targets of the markdown images in `text` (`![alt](target)`, an
/// optional `"title"` after the target dropped), in order.
pub fn targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("![") {
        rest = &rest[start + 2..];
        let Some(close) = rest.find("](") else { break };
        if rest[..close].contains('\n') {
            continue;
        }
        let after = &rest[close + 2..];
        let Some(end) = after.find(')') else { break };
        let inside = after[..end].trim();
        // `<a path with spaces>`, or the first word (a title may follow).
        let target = match inside.strip_prefix('<') {
            Some(quoted) => quoted.split('>').next().unwrap_or(""),
            None => inside.split_whitespace().next().unwrap_or(""),
        };
        if !target.is_empty() && !inside.contains('\n') {
            out.push(target.to_owned());
        }
        rest = &after[end..];
    }
    out
}

/// The picture file `target` names, relative paths taken from `dir`: a
/// regular file within the attachment cap in a picture format
/// ([`Image::load`]).
pub fn load(target: &str, dir: &Path) -> Result<Image, NotAPicture> {
    let path = resolve(target, dir);
    if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
        return Err(NotAPicture::NoFile(path.display().to_string()));
    }
    Image::load(&path).map_err(|e: ImageError| NotAPicture::Refused(e.to_string()))
}

/// The file `target` names: a `file://` URL's path or a path, relative
/// ones taken from `dir`.
pub fn resolve(target: &str, dir: &Path) -> PathBuf {
    dir.join(target.strip_prefix("file://").unwrap_or(target))
}

/// Every markdown image of `text`, each with its picture file (or why
/// there is none), in order.
pub fn named(text: &str, dir: &Path) -> Vec<NamedPicture> {
    targets(text)
        .into_iter()
        .map(|target| {
            let image = load(&target, dir);
            NamedPicture { target, image }
        })
        .collect()
}

impl Image {
    /// The image's bytes (its base64 decoded), for drawing it; `None` only
    /// if the stored text is not base64.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        base64::engine::general_purpose::STANDARD
            .decode(&self.data)
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::ImageFormat;

    #[test]
    fn image_targets_are_found_in_order() {
        let answer = "Here:\n\n![plot](out/plot.png)\nand ![b](<with space.png> \"t\") \
                      not [a link](x.png), not ![broken\n](y.png), ![](z.png)";
        assert_eq!(targets(answer), ["out/plot.png", "with space.png", "z.png"]);
        assert!(targets("![unclosed](a.png").is_empty());
        assert!(targets("no pictures").is_empty());
    }

    #[test]
    fn only_picture_files_are_pictures() {
        let dir = tempfile::tempdir().unwrap();
        let png = b"\x89PNG\r\n\x1a\nrest".to_vec();
        std::fs::write(dir.path().join("p.png"), &png).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "secret text").unwrap();
        let abs = dir.path().join("p.png");
        let text = format!(
            "![p](p.png) ![a](file://{}) ![n](notes.txt) ![m](missing.png) ![d](/dev/zero) ![s](.)",
            abs.display()
        );
        let found = named(&text, dir.path());
        let kinds: Vec<_> = found
            .iter()
            .map(|n| match &n.image {
                Ok(image) => format!("{}:{:?}", n.target, image.format),
                Err(NotAPicture::NoFile(_)) => format!("{}:no file", n.target),
                Err(NotAPicture::Refused(_)) => format!("{}:refused", n.target),
            })
            .collect();
        assert_eq!(
            kinds[..],
            [
                "p.png:Png".to_string(),
                format!("file://{}:Png", abs.display()),
                "notes.txt:refused".into(),
                "missing.png:no file".into(),
                "/dev/zero:no file".into(),
                ".:no file".into(),
            ]
        );
        let image = found[0].image.as_ref().unwrap();
        assert_eq!(image.format, ImageFormat::Png);
        assert_eq!(image.bytes().unwrap(), png);
    }
}
