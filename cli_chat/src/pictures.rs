//! Pictures an answer names (`![plot](out/plot.png)`), drawn below the
//! answer on a terminal that draws pictures: koi and Kitty through the
//! kitty graphics protocol, WezTerm and iTerm2 through iTerm2's inline
//! images. Elsewhere, and for anything that is not a picture file, the
//! answer's own text (which shows the path) is all there is.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use ai_chat_engine::image::{Image, ImageFormat};
use ai_chat_engine::pictures;

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
        for named in pictures::named(answer, &self.dir) {
            let Ok(image) = named.image else {
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
