//! A kitty graphics command's control data (`key=value,…`) and payload.

use base64::Engine as _;

/// One parsed `ESC _ G … ESC \` command. Absent keys hold kitty's defaults
/// (zero, or the letter kitty assumes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Command {
    /// `a`: t, T, q, p, d (f, a, c are animation, not supported). 0 = absent.
    pub(crate) action: u8,
    /// `q`: 1 hides OK replies, 2 hides errors too.
    pub(crate) quiet: u32,
    /// `f`: 24, 32 or 100 (PNG); 0 = absent (32).
    pub(crate) format: u32,
    /// `t`: d, f, t, s; 0 = absent (d).
    pub(crate) medium: u8,
    /// `s`, `v`: the pixel size of raw data.
    pub(crate) data_width: u32,
    pub(crate) data_height: u32,
    /// `S`, `O`: bytes to read from a file and where to start.
    pub(crate) data_size: u32,
    pub(crate) data_offset: u32,
    /// `i`, `I`, `p`.
    pub(crate) id: u32,
    pub(crate) number: u32,
    pub(crate) placement_id: u32,
    /// `o`: z for zlib; 0 = none.
    pub(crate) compression: u8,
    /// `m=1`: more chunks follow.
    pub(crate) more: bool,
    /// `x`, `y`, `w`, `h`: the source rectangle in pixels.
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) width: u32,
    pub(crate) height: u32,
    /// `X`, `Y`: offset inside the first cell, in pixels.
    pub(crate) cell_x_offset: u32,
    pub(crate) cell_y_offset: u32,
    /// `c`, `r`: cells to scale into.
    pub(crate) cols: u32,
    pub(crate) rows: u32,
    /// `C=1`: leave the cursor where it is.
    pub(crate) cursor_stays: bool,
    /// `U=1`: a virtual placement for Unicode placeholders.
    pub(crate) unicode: bool,
    /// `z`.
    pub(crate) z: i32,
    /// `d`: what a delete removes; 0 = absent (a).
    pub(crate) delete: u8,
    /// `P`, `Q`: a parent placement (relative placements).
    pub(crate) parent_id: u32,
    pub(crate) parent_placement: u32,
}

/// Why control data could not be read. kitty logs these and answers
/// nothing; koi does the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError(pub(crate) String);

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn malformed(what: String) -> ParseError {
    ParseError(format!("Malformed GraphicsCommand control block, {what}"))
}

/// Splits an APC payload (after the `G`) into its command and decoded
/// payload bytes.
pub(crate) fn parse(body: &[u8]) -> Result<(Command, Vec<u8>), ParseError> {
    let (control, payload) = match body.iter().position(|&b| b == b';') {
        Some(at) => (&body[..at], &body[at + 1..]),
        None => (body, &[][..]),
    };
    let mut cmd = Command::default();
    for pair in control.split(|&b| b == b',').filter(|p| !p.is_empty()) {
        let [key, rest @ ..] = pair else { continue };
        let Some(value) = rest.strip_prefix(b"=") else {
            return Err(malformed(format!(
                "no = after key, found: 0x{key:x} instead"
            )));
        };
        set(&mut cmd, *key, value)?;
    }
    let payload = if payload.is_empty() {
        Vec::new()
    } else {
        LENIENT_BASE64
            .decode(payload)
            .map_err(|_| {
                ParseError(format!(
                    "Failed to parse GraphicsCommand command payload with error: invalid base64 data in chunk of size: {}",
                    payload.len()
                ))
            })?
    };
    Ok((cmd, payload))
}

/// Base64 as kitty reads it: padding optional, and the unused low bits of
/// the last symbol ignored (chafa, for one, leaves them set).
const LENIENT_BASE64: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
);

fn flag(key: u8, value: &[u8], allowed: &[u8], name: &str) -> Result<u8, ParseError> {
    match value {
        [v] if allowed.contains(v) => Ok(*v),
        _ => Err(malformed(format!(
            "unknown flag value for {name}: 0x{:x}",
            value.first().copied().unwrap_or(key)
        ))),
    }
}

fn unsigned(key: u8, value: &[u8]) -> Result<u32, ParseError> {
    let text = std::str::from_utf8(value).unwrap_or("");
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed(format!(
            "expecting an integer value for key: {}",
            key as char
        )));
    }
    text.parse::<u32>()
        .map_err(|_| malformed("number is too large".into()))
}

fn signed(key: u8, value: &[u8]) -> Result<i32, ParseError> {
    let (negative, digits) = match value {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, value),
    };
    let magnitude = i64::from(unsigned(key, digits)?);
    let v = if negative { -magnitude } else { magnitude };
    i32::try_from(v).map_err(|_| malformed("number is too large".into()))
}

fn set(cmd: &mut Command, key: u8, value: &[u8]) -> Result<(), ParseError> {
    match key {
        b'a' => cmd.action = flag(key, value, b"tTqpdfac", "action")?,
        b'd' => cmd.delete = flag(key, value, b"aAiIcCfFnNpPqQrRxXyYzZ", "delete_action")?,
        b't' => cmd.medium = flag(key, value, b"dfts", "transmission_type")?,
        b'o' => cmd.compression = flag(key, value, b"z", "compressed")?,
        b'f' => cmd.format = unsigned(key, value)?,
        b'q' => cmd.quiet = unsigned(key, value)?,
        b's' => cmd.data_width = unsigned(key, value)?,
        b'v' => cmd.data_height = unsigned(key, value)?,
        b'S' => cmd.data_size = unsigned(key, value)?,
        b'O' => cmd.data_offset = unsigned(key, value)?,
        b'i' => cmd.id = unsigned(key, value)?,
        b'I' => cmd.number = unsigned(key, value)?,
        b'p' => cmd.placement_id = unsigned(key, value)?,
        b'm' => cmd.more = unsigned(key, value)? == 1,
        b'x' => cmd.x = unsigned(key, value)?,
        b'y' => cmd.y = unsigned(key, value)?,
        b'w' => cmd.width = unsigned(key, value)?,
        b'h' => cmd.height = unsigned(key, value)?,
        b'X' => cmd.cell_x_offset = unsigned(key, value)?,
        b'Y' => cmd.cell_y_offset = unsigned(key, value)?,
        b'c' => cmd.cols = unsigned(key, value)?,
        b'r' => cmd.rows = unsigned(key, value)?,
        b'C' => cmd.cursor_stays = unsigned(key, value)? == 1,
        b'U' => cmd.unicode = unsigned(key, value)? == 1,
        b'z' => cmd.z = signed(key, value)?,
        b'P' => cmd.parent_id = unsigned(key, value)?,
        b'Q' => cmd.parent_placement = unsigned(key, value)?,
        // Animation and relative-placement keys koi reads but does not use.
        b'H' | b'V' => {
            signed(key, value)?;
        }
        b'Z' => {}
        _ => return Err(malformed(format!("invalid key character: 0x{key:x}"))),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_and_payload() {
        let (cmd, payload) = parse(b"a=T,f=24,s=2,v=1,i=7,z=-5,m=1;AAECAwQF").unwrap();
        assert_eq!(cmd.action, b'T');
        assert_eq!(cmd.format, 24);
        assert_eq!((cmd.data_width, cmd.data_height, cmd.id), (2, 1, 7));
        assert_eq!(cmd.z, -5);
        assert!(cmd.more);
        assert_eq!(payload, [0, 1, 2, 3, 4, 5]);
        let (_, padded) = parse(b"a=t;AAE=").unwrap();
        assert_eq!(padded, [0, 1]);
        // chafa's chunks: padded, with the last symbol's spare bits set.
        let (_, chafa) = parse(b"m=1;APP=").unwrap();
        assert_eq!(chafa, [0, 243]);
    }

    #[test]
    fn refuses_malformed_control_data_and_base64() {
        assert!(parse(b"a=x").is_err());
        assert!(parse(b"i=abc").is_err());
        assert!(parse(b"i=99999999999").is_err());
        assert!(parse(b"a").is_err());
        assert!(parse(b"a=t;@@@@").is_err());
    }
}
