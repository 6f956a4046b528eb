//! The scanner must see every sequence exactly where `vte::Parser` does.
//! vte is fed one byte at a time, so each of its callbacks happens at a
//! known offset; the scanner is fed the same stream cut into random chunks.

use alacritty_terminal::vte::{Params as VteParams, Parser, Perform};

use super::*;

/// Everything both sides report, as comparable text.
#[derive(Default)]
struct VteRecorder {
    offset: usize,
    byte: u8,
    events: Vec<String>,
    dcs: Option<(String, Vec<u8>)>,
}

fn groups_text<'a>(groups: impl Iterator<Item = &'a [u16]>) -> String {
    let groups: Vec<String> = groups.map(|g| format!("{g:?}")).collect();
    groups.join(",")
}

fn header_text(
    groups: String,
    intermediates: &[u8],
    ignored: bool,
    action: impl std::fmt::Display,
) -> String {
    format!("{groups} ints={intermediates:?} ign={ignored} {action}")
}

fn osc_text(payload: &[u8]) -> String {
    // vte keeps the first 16 parameters only; past that the text differs.
    if payload.iter().filter(|&&b| b == b';').count() >= 15 {
        "many".into()
    } else {
        String::from_utf8_lossy(payload).into_owned()
    }
}

impl Perform for VteRecorder {
    fn csi_dispatch(&mut self, params: &VteParams, ints: &[u8], ignore: bool, action: char) {
        let head = header_text(groups_text(params.iter()), ints, ignore, action);
        self.events.push(format!("{} CSI {head}", self.offset));
    }

    fn esc_dispatch(&mut self, ints: &[u8], _ignore: bool, byte: u8) {
        self.events
            .push(format!("{} ESC {ints:?} {}", self.offset, byte as char));
    }

    fn hook(&mut self, params: &VteParams, ints: &[u8], ignore: bool, action: char) {
        let head = header_text(groups_text(params.iter()), ints, ignore, action);
        self.dcs = Some((head, Vec::new()));
    }

    fn put(&mut self, byte: u8) {
        if let Some((_, payload)) = &mut self.dcs {
            payload.push(byte);
        }
    }

    fn unhook(&mut self) {
        let cancelled = matches!(self.byte, 0x18 | 0x1a);
        if let Some((head, payload)) = self.dcs.take() {
            self.events.push(format!(
                "{} DCS {head} {:?} cancelled={cancelled}",
                self.offset,
                String::from_utf8_lossy(&payload)
            ));
        }
    }

    fn osc_dispatch(&mut self, params: &[&[u8]], _bell: bool) {
        let payload = params.join(&b';');
        self.events
            .push(format!("{} OSC {}", self.offset, osc_text(&payload)));
    }
}

fn vte_events(stream: &[u8]) -> Vec<String> {
    let mut parser = Parser::new();
    let mut rec = VteRecorder::default();
    for (i, &b) in stream.iter().enumerate() {
        rec.offset = i + 1;
        rec.byte = b;
        parser.advance(&mut rec, &[b]);
    }
    rec.events
}

fn scanner_events(stream: &[u8], cuts: &[usize]) -> Vec<String> {
    scanner_events_with(SeqScanner::default(), stream, cuts)
}

fn scanner_events_with(mut scanner: SeqScanner, stream: &[u8], cuts: &[usize]) -> Vec<String> {
    let mut events = Vec::new();
    let mut start = 0;
    let mut bounds: Vec<usize> = cuts.iter().copied().filter(|&c| c < stream.len()).collect();
    bounds.sort_unstable();
    bounds.push(stream.len());
    for end in bounds {
        if end < start {
            continue;
        }
        let base = start;
        scanner.scan(&stream[start..end], |at, seq| {
            let at = base + at;
            // vte ignores APC strings: only the scanner reports them.
            if matches!(seq, Seq::Apc(_)) {
                return;
            }
            events.push(match seq {
                Seq::Csi(h) => {
                    let head = header_text(
                        groups_text(h.params.groups()),
                        h.intermediates(),
                        h.ignored,
                        h.action as char,
                    );
                    format!("{at} CSI {head}")
                }
                Seq::Esc {
                    intermediates,
                    action,
                } => format!("{at} ESC {intermediates:?} {}", action as char),
                Seq::Dcs {
                    header: h,
                    payload,
                    end,
                } => {
                    let head = header_text(
                        groups_text(h.params.groups()),
                        h.intermediates(),
                        h.ignored,
                        h.action as char,
                    );
                    format!(
                        "{at} DCS {head} {:?} cancelled={}",
                        String::from_utf8_lossy(payload.unwrap_or(b"<overflow>")),
                        end == DcsEnd::Cancelled
                    )
                }
                Seq::Osc(payload) => {
                    format!("{at} OSC {}", osc_text(payload.unwrap_or(b"<overflow>")))
                }
                Seq::Apc(_) => String::new(),
            });
        });
        start = end;
    }
    events
}

/// xorshift64: deterministic, so a failure names a reproducible seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pieces of sequences, so random streams reach every state often.
const FRAGMENTS: &[&[u8]] = &[
    b"\x1b[",
    b"\x1b[",
    b"\x1b[?",
    b"\x1bP",
    b"\x1bP$q",
    b"\x1b]",
    b"\x1b\\",
    b"\x1bX",
    b"\x1b^",
    b"\x1b_",
    b"\x1b(",
    b"\x1b",
    b"1",
    b"66",
    b"12345",
    b"99999",
    b";",
    b";;",
    b":",
    b"?",
    b">",
    b"=",
    b"<",
    b"$",
    b"!",
    b"\"",
    b" ",
    b"*",
    b"'",
    b"p",
    b"q",
    b"y",
    b"t",
    b"m",
    b"r",
    b"s",
    b"c",
    b"@",
    b"~",
    b"\x07",
    b"\x18",
    b"\x1a",
    b"\x7f",
    b"\x9c",
    b"\x9b",
    b"\x90",
    b"\xc2\x9b",
    b"\xe2\x86\x92",
    b"\xe2\x86",
    b"\n",
    b"\x00",
    b"\x08",
    b"abc",
    b"1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17",
];

fn random_stream(rng: &mut Rng) -> Vec<u8> {
    let pieces = 1 + rng.below(60);
    let mut out = Vec::new();
    for _ in 0..pieces {
        if rng.below(8) == 0 {
            out.push(rng.next() as u8);
        } else {
            out.extend_from_slice(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        }
    }
    out
}

#[test]
fn agrees_with_vte_on_every_boundary() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut seen = std::collections::HashMap::<&str, usize>::new();
    for case in 0..20_000 {
        let seed = rng.0;
        let stream = random_stream(&mut rng);
        let cuts: Vec<usize> = (0..rng.below(6))
            .map(|_| rng.below(stream.len() + 1))
            .collect();
        let want = vte_events(&stream);
        assert_eq!(
            scanner_events(&stream, &cuts),
            want,
            "case {case} seed {seed:#x} cuts {cuts:?} stream {stream:?}"
        );
        for event in &want {
            for kind in [
                "CSI",
                "ESC",
                "DCS",
                "OSC",
                "ign=true",
                "cancelled=true",
                "[63, 36]",
            ] {
                if event.contains(kind) {
                    *seen.entry(kind).or_default() += 1;
                }
            }
        }
    }
    // The stream generator must reach every kind of event, or the
    // comparison above proves little.
    for kind in [
        "CSI",
        "ESC",
        "DCS",
        "OSC",
        "ign=true",
        "cancelled=true",
        "[63, 36]",
    ] {
        assert!(
            seen.get(kind).copied().unwrap_or(0) > 50,
            "{kind}: {seen:?}"
        );
    }
}

/// Whether a vte event is a plain CSI (parameters only, no subparameter,
/// private marker or intermediate) whose final byte is not in `finals`.
fn unreported_plain_csi(event: &str, finals: &[u8]) -> bool {
    let Some((_, head)) = event.split_once(" CSI ") else {
        return false;
    };
    let Some((groups, rest)) = head.split_once(" ints=[] ign=") else {
        return false;
    };
    let single = groups.split("],[").all(|g| !g.contains(','));
    let last = rest.bytes().last().unwrap_or(0);
    single && !finals.contains(&last)
}

#[test]
fn a_filtered_scanner_skips_only_plain_csis_it_was_not_asked_for() {
    const FINALS: &[u8] = b"nrt";
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut skipped = 0;
    for case in 0..20_000 {
        let seed = rng.0;
        let stream = random_stream(&mut rng);
        let cuts: Vec<usize> = (0..rng.below(6))
            .map(|_| rng.below(stream.len() + 1))
            .collect();
        let all = vte_events(&stream);
        let got = scanner_events_with(SeqScanner::reporting_plain(FINALS), &stream, &cuts);
        // What it reports is what vte sees, in order, at the same offsets;
        // what it leaves out is a plain CSI it was not asked for.
        let mut rest = got.iter().peekable();
        for event in &all {
            if rest.peek() == Some(&event) {
                rest.next();
            } else {
                assert!(
                    unreported_plain_csi(event, FINALS),
                    "case {case} seed {seed:#x} cuts {cuts:?}: left out {event} of {stream:?}"
                );
                skipped += 1;
            }
        }
        assert!(
            rest.peek().is_none(),
            "case {case} seed {seed:#x}: reported {:?}, which vte never saw in {stream:?}",
            rest.collect::<Vec<_>>()
        );
    }
    assert!(skipped > 1000, "the fast path was hardly taken: {skipped}");
}

#[test]
fn agrees_on_hand_written_edge_cases() {
    let cases: &[&[u8]] = &[
        // DECRQSS, with each terminator and a cancel.
        b"\x1bP$qm\x1b\\",
        b"\x1bP$q\"p\x9c",
        b"\x1bP$qr\x18after",
        // ESC inside an OSC or DCS string ends it there.
        b"\x1b]0;ti\x1b[1mtle\x07",
        b"\x1bP1$qm\x1b[31m",
        // Too many parameters and intermediates.
        b"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17;18;19;20;21;22;23;24;25;26;27;28;29;30;31;32;33;34m",
        b"\x1b[1$!'p",
        b"\x1b[38:2::1:2:3m\x1b[?1;2$p\x1b[1?p",
        // 8-bit introducers are text to vte, even as UTF-8 C1.
        b"\x9b1;1*y\xc2\x9b5n",
        // UTF-8 cut by ESC.
        b"\xe2\x86\x1b[5n",
    ];
    for stream in cases {
        for cut in 0..=stream.len() {
            assert_eq!(
                scanner_events(stream, &[cut]),
                vte_events(stream),
                "stream {stream:?} cut at {cut}"
            );
        }
    }
}

#[test]
fn params_group_subparameters() {
    let mut scanner = SeqScanner::default();
    let mut seen = Vec::new();
    scanner.scan(b"\x1b[4:3;;58:5:200m", |_, seq| {
        if let Seq::Csi(h) = seq {
            seen = h.params.groups().map(<[u16]>::to_vec).collect();
            assert_eq!(h.params.or(1, 7), 7);
        }
    });
    assert_eq!(seen, vec![vec![4, 3], vec![0], vec![58, 5, 200]]);
}

/// What the scanner reports for `bytes` fed in pieces of `piece` bytes:
/// (kind, payload length or None when cut).
fn long_strings(bytes: &[u8], piece: usize) -> Vec<(&'static str, Option<usize>)> {
    let mut scanner = SeqScanner::default();
    let mut out = Vec::new();
    for chunk in bytes.chunks(piece) {
        scanner.scan(chunk, |_, seq| match seq {
            Seq::Osc(p) => out.push(("osc", p.map(<[u8]>::len))),
            Seq::Apc(p) => out.push(("apc", p.map(<[u8]>::len))),
            Seq::Dcs { payload, .. } => out.push(("dcs", payload.map(<[u8]>::len))),
            _ => {}
        });
    }
    out
}

#[test]
fn pictures_may_be_longer_than_other_strings() {
    let big = "A".repeat(3 * MAX_STRING);
    let iterm = format!("\x1b]1337;File=inline=1:{big}\x07");
    let kitty = format!("\x1b_Ga=T;{big}\x1b\\");
    let sixel = format!("\x1bP0;1;0q{big}\x1b\\");
    let other_osc = format!("\x1b]2;{big}\x07");
    let other_apc = format!("\x1b_X{big}\x1b\\");
    let decrqss = format!("\x1bP$q{big}\x1b\\");
    for piece in [1, 7, 4096, usize::MAX] {
        let bytes = [&iterm, &kitty, &sixel, &other_osc, &other_apc, &decrqss]
            .map(String::as_str)
            .concat();
        assert_eq!(
            long_strings(bytes.as_bytes(), piece.min(bytes.len())),
            [
                ("osc", Some(big.len() + 19)),
                ("apc", Some(big.len() + 5)),
                ("dcs", Some(big.len())),
                ("osc", None),
                ("apc", None),
                ("dcs", None),
            ],
            "pieces of {piece}"
        );
    }
}
