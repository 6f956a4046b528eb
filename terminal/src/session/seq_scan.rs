//! A shadow of `vte::Parser`'s state machine over the raw PTY bytes.
//!
//! alacritty_terminal drops DCS strings and the CSIs it does not know before
//! koi could see them, and never shows koi the OSCs it ignores. This scanner
//! walks the same bytes beside the parser, byte for byte through the same
//! states (Paul Williams' DEC parser as vte implements it: 7-bit introducers
//! only, OSC ended by BEL, CAN/SUB aborting, any ESC ending a string), and
//! reports every CSI, DCS and OSC with the offset just past its last byte.
//! The reader then parses up to that offset before acting, so what koi does
//! lands exactly where the parser would have done it. A property test in
//! `seq_scan_tests.rs` holds it to vte's boundaries.

/// vte keeps this many numeric parameters (subparameters included); a CSI
/// with more is marked ignored and alacritty drops it.
pub(crate) const MAX_PARAMS: usize = 32;

/// vte keeps two intermediates; a third marks the sequence ignored.
const MAX_INTERMEDIATES: usize = 2;

/// Longest OSC or DCS payload kept. Nothing koi acts on comes near it; a
/// longer string is reported as overflowed so no one acts on a cut one.
pub(crate) const MAX_STRING: usize = 4096;

/// Longest sixel (DCS `q`) or iTerm2 inline image (OSC `1337;File=`)
/// kept: a picture arrives as one string, and past this it is dropped.
pub(crate) const MAX_PICTURE_STRING: usize = 64 * 1024 * 1024;

/// Longest kitty graphics APC kept. The protocol sends data in chunks of
/// 4096 bytes, but some clients send a whole picture in one command.
pub(crate) const MAX_APC_STRING: usize = 16 * 1024 * 1024;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;
const DEL: u8 = 0x7f;
/// The 8-bit ST, which vte honours only inside a DCS string.
const ST8: u8 = 0x9c;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Ground,
    Escape,
    EscapeIntermediate,
    CsiEntry,
    CsiParam,
    CsiIntermediate,
    CsiIgnore,
    DcsEntry,
    DcsParam,
    DcsIntermediate,
    DcsIgnore,
    DcsPassthrough,
    OscString,
    SosPmString,
    ApcString,
}

/// A control sequence's numeric parameters, grouped as vte groups them:
/// `;` starts a parameter, `:` adds a subparameter to the current one.
#[derive(Clone, Debug, Default)]
pub(crate) struct Params {
    values: [u16; MAX_PARAMS],
    /// Bit `i` set: value `i + 1` is a subparameter of the same group.
    joined: u32,
    len: usize,
}

impl Params {
    fn clear(&mut self) {
        self.joined = 0;
        self.len = 0;
    }

    fn is_full(&self) -> bool {
        self.len == MAX_PARAMS
    }

    fn push(&mut self, value: u16, joins_next: bool) {
        self.values[self.len] = value;
        if joins_next {
            self.joined |= 1 << self.len;
        }
        self.len += 1;
    }

    /// The parameter groups, each a slice of its value and subparameters.
    pub(crate) fn groups(&self) -> impl Iterator<Item = &[u16]> + '_ {
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= self.len {
                return None;
            }
            let mut end = start;
            while end + 1 < self.len && self.joined & (1 << end) != 0 {
                end += 1;
            }
            let group = &self.values[start..=end];
            start = end + 1;
            Some(group)
        })
    }

    /// The first value of group `index`, `None` when absent.
    pub(crate) fn get(&self, index: usize) -> Option<u16> {
        self.groups().nth(index).map(|g| g[0])
    }

    /// Group `index`'s value, with 0 and absence meaning `default`
    /// (the DEC convention for numeric parameters).
    pub(crate) fn or(&self, index: usize, default: u16) -> u16 {
        match self.get(index) {
            Some(0) | None => default,
            Some(v) => v,
        }
    }
}

/// The shape of a CSI or a DCS's opening: parameters, intermediates (vte
/// counts the private markers `<=>?` among them) and the final byte.
#[derive(Clone, Debug, Default)]
pub(crate) struct Header {
    pub(crate) params: Params,
    intermediates: [u8; MAX_INTERMEDIATES],
    intermediates_len: usize,
    /// More intermediates or parameters than vte keeps: alacritty drops it.
    pub(crate) ignored: bool,
    pub(crate) action: u8,
}

impl Header {
    pub(crate) fn intermediates(&self) -> &[u8] {
        &self.intermediates[..self.intermediates_len]
    }
}

/// How a DCS string ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DcsEnd {
    /// ESC (normally the start of ST) or the 8-bit ST.
    Terminated,
    /// CAN or SUB cancelled it.
    Cancelled,
}

/// One complete sequence the scanner saw.
#[derive(Debug)]
pub(crate) enum Seq<'a> {
    Csi(&'a Header),
    /// An ESC sequence (`ESC c` is RIS). `intermediates` as in the parser.
    Esc {
        intermediates: &'a [u8],
        action: u8,
    },
    /// A DCS string; `payload` is `None` when it outgrew [`MAX_STRING`].
    Dcs {
        header: &'a Header,
        payload: Option<&'a [u8]>,
        end: DcsEnd,
    },
    /// An OSC string's raw payload (`;` separators kept); `None` when too long.
    Osc(Option<&'a [u8]>),
    /// An APC string ended by ESC (kitty graphics start with `G`); `None`
    /// when too long. vte ignores APC, so nothing else sees it.
    Apc(Option<&'a [u8]>),
}

pub(crate) struct SeqScanner {
    state: State,
    header: Header,
    param: u16,
    string: Vec<u8>,
    overflow: bool,
    /// Bit `f - 0x40` set: plain CSIs (digits and `;` only, no private
    /// marker, no intermediate) with final byte `f` are reported.
    plain_finals: u64,
}

impl Default for SeqScanner {
    /// A scanner that reports every sequence.
    fn default() -> Self {
        Self::reporting_plain(&[])
    }
}

impl SeqScanner {
    /// A scanner that reports plain CSIs only when their final byte is in
    /// `finals` (every other sequence is reported). Plain CSIs are most of
    /// what a busy screen sends (SGR, cursor moves); one the owner would
    /// not act on is then skipped over without reading its parameters.
    /// An empty `finals` reports every plain CSI too.
    pub(crate) fn reporting_plain(finals: &[u8]) -> Self {
        let plain_finals = if finals.is_empty() {
            u64::MAX
        } else {
            finals
                .iter()
                .filter(|f| (0x40..=0x7e).contains(*f))
                .fold(0, |bits, f| bits | 1 << (f - 0x40))
        };
        Self {
            state: State::Ground,
            header: Header::default(),
            param: 0,
            string: Vec::new(),
            overflow: false,
            plain_finals,
        }
    }

    /// At the start of a CSI's parameters: when the whole sequence is in
    /// `bytes`, plain, and not reported, skip past it and return where it
    /// ended. Anything else (a private marker, an intermediate, a control,
    /// the buffer's end, a reported final) is left to the byte-by-byte path.
    #[inline]
    fn skip_plain_csi(&self, bytes: &[u8], from: usize) -> Option<usize> {
        let len = bytes[from..]
            .iter()
            .position(|b| !matches!(b, b'0'..=b'9' | b';'))?;
        let end = from + len;
        let last = bytes[end];
        let reported = (0x40..=0x7e).contains(&last) && self.plain_finals & 1 << (last - 0x40) != 0;
        ((0x40..=0x7e).contains(&last) && !reported).then_some(end + 1)
    }

    /// Scan `bytes`, calling `found(end, seq)` for every complete sequence,
    /// where `end` is the offset in `bytes` just past its last byte.
    #[inline]
    pub(crate) fn scan(&mut self, bytes: &[u8], mut found: impl FnMut(usize, Seq<'_>)) {
        let mut i = 0;
        while i < bytes.len() {
            if self.state == State::Ground {
                // Plain text, UTF-8 and C0/C1 controls never leave ground
                // in vte; only ESC does.
                match memchr::memchr(ESC, &bytes[i..]) {
                    Some(at) => {
                        i += at + 1;
                        self.enter_escape();
                        // ESC [ is by far the commonest: go straight to CSI.
                        if bytes.get(i) == Some(&b'[') {
                            i += 1;
                            match self.skip_plain_csi(bytes, i) {
                                Some(end) => {
                                    i = end;
                                    self.state = State::Ground;
                                }
                                None => self.state = State::CsiEntry,
                            }
                        }
                    }
                    None => return,
                }
                continue;
            }
            if matches!(self.state, State::CsiEntry | State::CsiParam) {
                // Most CSIs are digits and `;` then a final byte: take those
                // without the general state table.
                let byte = bytes[i];
                match byte {
                    b'0'..=b'9' => self.param_digit(byte),
                    b';' => self.param_end(false),
                    0x40..=0x7e => {
                        i += 1;
                        self.finish_header(byte);
                        self.state = State::Ground;
                        found(i, Seq::Csi(&self.header));
                        continue;
                    }
                    _ => {
                        i += 1;
                        self.step(byte, |seq| found(i, seq));
                        continue;
                    }
                }
                self.state = State::CsiParam;
                i += 1;
                continue;
            }
            if matches!(
                self.state,
                State::DcsPassthrough | State::ApcString | State::OscString
            ) {
                let run = self.string_run(&bytes[i..]);
                if run > 0 {
                    i += run;
                    continue;
                }
            }
            let byte = bytes[i];
            i += 1;
            self.step(byte, |seq| found(i, seq));
        }
    }

    fn enter_escape(&mut self) {
        self.reset_header();
        self.state = State::Escape;
    }

    fn reset_header(&mut self) {
        self.header.params.clear();
        self.header.intermediates_len = 0;
        self.header.ignored = false;
        self.param = 0;
    }

    /// What vte does for a byte in any state: CAN/SUB abort, ESC restarts.
    fn anywhere(&mut self, byte: u8) {
        match byte {
            CAN | SUB => self.state = State::Ground,
            ESC => self.enter_escape(),
            _ => {}
        }
    }

    fn collect(&mut self, byte: u8) {
        let h = &mut self.header;
        if h.intermediates_len == MAX_INTERMEDIATES {
            h.ignored = true;
        } else {
            h.intermediates[h.intermediates_len] = byte;
            h.intermediates_len += 1;
        }
    }

    fn param_digit(&mut self, byte: u8) {
        if self.header.params.is_full() {
            self.header.ignored = true;
        } else {
            self.param = self
                .param
                .saturating_mul(10)
                .saturating_add(u16::from(byte - b'0'));
        }
    }

    /// `;` (`joins_next` false) or `:` (true) ends the value being read.
    fn param_end(&mut self, joins_next: bool) {
        if self.header.params.is_full() {
            self.header.ignored = true;
        } else {
            self.header.params.push(self.param, joins_next);
            self.param = 0;
        }
    }

    /// The final byte of a CSI or DCS header pushes the last value.
    fn finish_header(&mut self, action: u8) {
        if self.header.params.is_full() {
            self.header.ignored = true;
        } else {
            self.header.params.push(self.param, false);
        }
        self.header.action = action;
    }

    fn start_string(&mut self) {
        if self.string.capacity() > 4 * MAX_STRING {
            // A picture was here: give its memory back.
            self.string = Vec::new();
        }
        self.string.clear();
        self.overflow = false;
    }

    fn put(&mut self, byte: u8) {
        if self.string.len() < MAX_STRING || self.string.len() < self.string_cap(&self.string) {
            self.string.push(byte);
        } else {
            self.overflow = true;
        }
    }

    /// Appends a run of bytes that all go into the string.
    fn put_run(&mut self, run: &[u8]) {
        if self.overflow {
            return;
        }
        let cap = if self.string.len() + run.len() <= MAX_STRING {
            MAX_STRING
        } else {
            // Long enough to tell what it is: the start is in the string
            // or in this run.
            let mut head = [0u8; 16];
            let have = self.string.len().min(head.len());
            head[..have].copy_from_slice(&self.string[..have]);
            let more = (head.len() - have).min(run.len());
            head[have..have + more].copy_from_slice(&run[..more]);
            self.string_cap(&head[..have + more])
        };
        if self.string.len() + run.len() <= cap {
            self.string.extend_from_slice(run);
        } else {
            self.overflow = true;
        }
    }

    /// How long the string being read, which starts with `head`, may
    /// grow: pictures may be long.
    fn string_cap(&self, head: &[u8]) -> usize {
        match self.state {
            State::DcsPassthrough
                if self.header.action == b'q' && self.header.intermediates_len == 0 =>
            {
                MAX_PICTURE_STRING
            }
            State::ApcString if head.first() == Some(&b'G') => MAX_APC_STRING,
            State::OscString if head.starts_with(crate::graphics::ITERM_PREFIX) => {
                MAX_PICTURE_STRING
            }
            _ => MAX_STRING,
        }
    }

    /// Inside a DCS, APC or OSC string: takes the run of plain payload
    /// bytes at the start of `bytes` in one step; returns its length.
    #[inline]
    fn string_run(&mut self, bytes: &[u8]) -> usize {
        let len = match self.state {
            State::DcsPassthrough => bytes
                .iter()
                .position(|&b| matches!(b, CAN | SUB | ESC) || b > 0x7e)
                .unwrap_or(bytes.len()),
            State::ApcString => bytes
                .iter()
                .position(|&b| !(0x20..=0x7e).contains(&b))
                .unwrap_or(bytes.len()),
            State::OscString => bytes.iter().position(|&b| b < 0x20).unwrap_or(bytes.len()),
            _ => 0,
        };
        if len > 0 {
            self.put_run(&bytes[..len]);
        }
        len
    }

    fn string(&self) -> Option<&[u8]> {
        (!self.overflow).then_some(self.string.as_slice())
    }

    /// The parameter bytes shared by CSI and DCS headers; returns whether
    /// `byte` was one of them (the state is then updated).
    fn header_byte(&mut self, byte: u8, param: State, ignore: State) -> bool {
        match byte {
            b'0'..=b'9' => self.param_digit(byte),
            b':' => self.param_end(true),
            b';' => self.param_end(false),
            0x3c..=0x3f if self.state == param => {
                self.state = ignore;
                return true;
            }
            0x3c..=0x3f => self.collect(byte),
            _ => return false,
        }
        self.state = param;
        true
    }

    #[inline]
    fn step(&mut self, byte: u8, found: impl FnOnce(Seq<'_>)) {
        let c0 = matches!(byte, 0x00..=0x17 | 0x19 | 0x1c..=0x1f);
        match self.state {
            State::Ground => {}
            State::Escape => match byte {
                _ if c0 => {}
                0x20..=0x2f => {
                    self.collect(byte);
                    self.state = State::EscapeIntermediate;
                }
                b'P' => {
                    self.reset_header();
                    self.state = State::DcsEntry;
                }
                b'[' => {
                    self.reset_header();
                    self.state = State::CsiEntry;
                }
                b']' => {
                    self.start_string();
                    self.state = State::OscString;
                }
                b'X' | b'^' => self.state = State::SosPmString,
                b'_' => {
                    self.start_string();
                    self.state = State::ApcString;
                }
                0x30..=0x7e => {
                    self.state = State::Ground;
                    found(Seq::Esc {
                        intermediates: self.header.intermediates(),
                        action: byte,
                    });
                }
                CAN | SUB => self.state = State::Ground,
                _ => {}
            },
            State::EscapeIntermediate => match byte {
                _ if c0 => {}
                0x20..=0x2f => self.collect(byte),
                0x30..=0x7e => {
                    self.state = State::Ground;
                    found(Seq::Esc {
                        intermediates: self.header.intermediates(),
                        action: byte,
                    });
                }
                DEL => {}
                _ => self.anywhere(byte),
            },
            State::CsiEntry | State::CsiParam | State::CsiIntermediate => match byte {
                _ if c0 => {}
                0x20..=0x2f => {
                    self.collect(byte);
                    self.state = State::CsiIntermediate;
                }
                0x30..=0x3f if self.state == State::CsiIntermediate => {
                    self.state = State::CsiIgnore;
                }
                0x30..=0x3f => {
                    self.header_byte(byte, State::CsiParam, State::CsiIgnore);
                }
                0x40..=0x7e => {
                    self.finish_header(byte);
                    self.state = State::Ground;
                    found(Seq::Csi(&self.header));
                }
                DEL => {}
                _ => self.anywhere(byte),
            },
            State::CsiIgnore => match byte {
                _ if c0 => {}
                0x20..=0x3f | DEL => {}
                0x40..=0x7e => self.state = State::Ground,
                _ => self.anywhere(byte),
            },
            State::DcsEntry | State::DcsParam | State::DcsIntermediate => match byte {
                _ if c0 => {}
                0x20..=0x2f => {
                    self.collect(byte);
                    self.state = State::DcsIntermediate;
                }
                0x30..=0x3f if self.state == State::DcsIntermediate => {
                    self.state = State::DcsIgnore;
                }
                0x30..=0x3f => {
                    self.header_byte(byte, State::DcsParam, State::DcsIgnore);
                }
                0x40..=0x7e => {
                    self.finish_header(byte);
                    self.start_string();
                    self.state = State::DcsPassthrough;
                }
                DEL => {}
                _ => self.anywhere(byte),
            },
            State::DcsIgnore | State::SosPmString => self.anywhere(byte),
            State::ApcString => match byte {
                ESC => {
                    self.state = State::Escape;
                    found(Seq::Apc(self.string()));
                    self.enter_escape();
                }
                CAN | SUB => self.state = State::Ground,
                0x20..=0x7e => self.put(byte),
                _ => {}
            },
            State::DcsPassthrough => match byte {
                CAN | SUB | ESC | ST8 => {
                    let end = if matches!(byte, CAN | SUB) {
                        DcsEnd::Cancelled
                    } else {
                        DcsEnd::Terminated
                    };
                    if byte == ESC {
                        // Reported before the header is reset for the ESC.
                        self.state = State::Escape;
                    } else {
                        self.state = State::Ground;
                    }
                    found(Seq::Dcs {
                        header: &self.header,
                        payload: (!self.overflow).then_some(self.string.as_slice()),
                        end,
                    });
                    if byte == ESC {
                        self.reset_header();
                    }
                }
                0x00..=0x7e => self.put(byte),
                _ => {}
            },
            State::OscString => match byte {
                BEL | CAN | SUB | ESC => {
                    self.state = State::Ground;
                    found(Seq::Osc(self.string()));
                    if byte == ESC {
                        self.enter_escape();
                    }
                }
                _ if byte < 0x20 => {}
                _ => self.put(byte),
            },
        }
    }
}

#[cfg(test)]
#[path = "seq_scan_tests.rs"]
mod tests;
