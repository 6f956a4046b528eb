//! Pictures an answer names (`![plot](out/plot.png)`), drawn below the
//! answer on a terminal that draws pictures: koi and Kitty through the
//! kitty graphics protocol, WezTerm and iTerm2 through iTerm2's inline
//! images. Elsewhere, and for anything that is not a picture file, the
//! answer's own text (which shows the path) is all there is.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use ai_chat_engine::image::{Image, ImageFormat};

/// Base64 bytes per kitty graphics chunk (the protocol's limit is 4096).
const KITTY_CHUNK: usize = 4096;

/// How a terminal is told to draw a picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// APC `G` (koi, Kitty): PNG only.
    Kitty,
    /// OSC 1337 `File=` (iTerm2, WezTerm).
    Iterm2,
}

/// The protocol the terminal described by `env` draws pictures with, if
/// any. Inside tmux none: tmux does not pass them on.
pub fn protocol(env: &dyn Fn(&str) -> Option<String>) -> Option<Protocol> {
    if env("TMUX").is_some() {
        return None;
    }
    let program = env("TERM_PROGRAM").unwrap_or_default();
    let term = env("TERM").unwrap_or_default();
    if program == "koi" || term == "xterm-kitty" || env("KITTY_WINDOW_ID").is_some() {
        return Some(Protocol::Kitty);
    }
    matches!(program.as_str(), "iTerm.app" | "WezTerm").then_some(Protocol::Iterm2)
}

/// Pictures for answers on stdout: when it is a terminal that draws them
/// and raw text was not asked for.
pub fn for_stdout(raw: bool) -> Option<Pictures> {
    if raw || !io::stdout().is_terminal() {
        return None;
    }
    let env = |k: &str| std::env::var(k).ok();
    Some(Pictures {
        protocol: protocol(&env)?,
        dir: std::env::current_dir().ok()?,
    })
}

/// Draws the pictures an answer names.
#[derive(Debug)]
pub struct Pictures {
    protocol: Protocol,
    /// What relative paths are relative to: where `k` works.
    dir: PathBuf,
}

impl Pictures {
    /// Pictures drawn with `protocol`, relative paths taken from `dir`.
    pub fn new(protocol: Protocol, dir: PathBuf) -> Self {
        Pictures { protocol, dir }
    }

    /// Draws each picture file `answer` names, one below the other; what
    /// cannot be drawn is skipped.
    pub fn show(&self, answer: &str, out: &mut dyn Write) -> io::Result<()> {
        for target in named(answer) {
            let Some(image) = self.load(&target) else {
                continue;
            };
            match self.protocol {
                Protocol::Kitty if image.format == ImageFormat::Png => kitty(&image, out)?,
                Protocol::Kitty => continue,
                Protocol::Iterm2 => iterm2(&image, out)?,
            }
            writeln!(out)?;
        }
        out.flush()
    }

    /// The picture file `target` names, if it is one: a regular file (not
    /// a device or a pipe that could block), within the attachment cap, in
    /// a picture format.
    fn load(&self, target: &str) -> Option<Image> {
        let target = target.strip_prefix("file://").unwrap_or(target);
        let path = Path::new(target);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.dir.join(path)
        };
        if !std::fs::metadata(&path).ok()?.is_file() {
            return None;
        }
        Image::load(&path).ok()
    }
}

/// The targets of the markdown images in `text` (`![alt](target)`, an
/// optional `"title"` after the target dropped), in order.
pub fn named(text: &str) -> Vec<String> {
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

/// APC `G` transmit-and-show of a PNG, in chunks, with replies off
/// (`q=2`: nothing comes back to read).
fn kitty(image: &Image, out: &mut dyn Write) -> io::Result<()> {
    let data = image.data.as_bytes();
    let chunks: Vec<&[u8]> = data.chunks(KITTY_CHUNK).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let more = u8::from(i + 1 < chunks.len());
        if i == 0 {
            write!(out, "\x1b_Ga=T,f=100,q=2,m={more};")?;
        } else {
            write!(out, "\x1b_Gm={more};")?;
        }
        out.write_all(chunk)?;
        out.write_all(b"\x1b\\")?;
    }
    Ok(())
}

/// OSC 1337 inline image, as iTerm2 and WezTerm take it.
fn iterm2(image: &Image, out: &mut dyn Write) -> io::Result<()> {
    let padding = image.data.bytes().rev().take_while(|&b| b == b'=').count();
    let bytes = image.data.len() / 4 * 3 - padding;
    write!(
        out,
        "\x1b]1337;File=inline=1;size={bytes};preserveAspectRatio=1:{}\x07",
        image.data
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_protocol_follows_the_terminal() {
        assert_eq!(
            protocol(&env(&[("TERM_PROGRAM", "koi")])),
            Some(Protocol::Kitty)
        );
        assert_eq!(
            protocol(&env(&[("TERM", "xterm-kitty")])),
            Some(Protocol::Kitty)
        );
        assert_eq!(
            protocol(&env(&[("KITTY_WINDOW_ID", "1")])),
            Some(Protocol::Kitty)
        );
        assert_eq!(
            protocol(&env(&[("TERM_PROGRAM", "WezTerm")])),
            Some(Protocol::Iterm2)
        );
        assert_eq!(
            protocol(&env(&[("TERM_PROGRAM", "iTerm.app")])),
            Some(Protocol::Iterm2)
        );
        assert_eq!(protocol(&env(&[("TERM", "xterm-256color")])), None);
        assert_eq!(
            protocol(&env(&[("TERM_PROGRAM", "koi"), ("TMUX", "/tmp/t,1,0")])),
            None
        );
    }

    #[test]
    fn image_targets_are_found_in_order() {
        let answer = "Here:\n\n![plot](out/plot.png)\nand ![b](<with space.png> \"t\") \
                      not [a link](x.png), not ![broken\n](y.png), ![](z.png)";
        assert_eq!(named(answer), ["out/plot.png", "with space.png", "z.png"]);
        assert!(named("![unclosed](a.png").is_empty());
        assert!(named("no pictures").is_empty());
    }

    #[test]
    fn a_png_is_sent_in_chunks_and_other_files_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        // A PNG signature and enough bytes for three kitty chunks.
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.resize(7000, 7);
        std::fs::write(dir.path().join("p.png"), &png).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "secret text").unwrap();
        let pictures = Pictures::new(Protocol::Kitty, dir.path().to_path_buf());
        let mut out = Vec::new();
        pictures
            .show(
                "![p](p.png) ![n](notes.txt) ![m](missing.png) ![d](/dev/zero)",
                &mut out,
            )
            .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches("\x1b_G").count(), 3, "{out:?}");
        assert!(out.starts_with("\x1b_Ga=T,f=100,q=2,m=1;"));
        assert!(out.contains("\x1b_Gm=0;"));
        assert!(!out.contains("secret"));
        let mut iterm = Vec::new();
        Pictures::new(Protocol::Iterm2, dir.path().to_path_buf())
            .show("![p](p.png)", &mut iterm)
            .unwrap();
        let iterm = String::from_utf8(iterm).unwrap();
        assert!(
            iterm.starts_with("\x1b]1337;File=inline=1;size=7000;"),
            "{iterm:.60}"
        );
    }
}
