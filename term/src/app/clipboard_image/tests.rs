//! koi reading the clipboard from a real X server (Xvfb), whose owner is
//! the test's own [`FakeOwner`]: INCR by the book, and owners that break it.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use koi_testkit::window::Xvfb;

use super::fake_owner::{FakeOwner, Plan};
use super::{read_png, PasteError, MAX_IMAGE_BYTES, OWNER_WAIT, TRANSFER_WAIT};

/// Past this koi is hung: every wait of its own is shorter.
const HANG: Duration = Duration::from_secs(20);

/// A real PNG of noise, so that it does not compress: some 300 KB.
fn noise_png() -> Vec<u8> {
    let (width, height) = (320u32, 320u32);
    let mut seed = 0x2545_f491_u32;
    let pixels: Vec<u8> = (0..width * height * 3)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed.to_le_bytes()[0]
        })
        .collect();
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&pixels)
        .unwrap();
    png
}

/// koi's read of the clipboard and how long it took; fails the test
/// when koi hangs.
fn koi_reads(x: &Xvfb) -> (Result<Option<Vec<u8>>, PasteError>, Duration) {
    let display = x.display.clone();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let png = read_png(Some(&display));
        let _ = tx.send((png, started.elapsed()));
    });
    rx.recv_timeout(HANG)
        .expect("koi hung reading the clipboard")
}

#[test]
fn an_incr_transfer_arrives_byte_for_byte() {
    let png = noise_png();
    assert!(png.len() > 250_000, "{}", png.len());
    // 64 KiB as ICCCM owners commonly send, and a size that splits the
    // PNG unevenly.
    for chunk in [64 * 1024, 40_001] {
        let x = Xvfb::start();
        let owner = FakeOwner::start(&x.display, png.clone(), Plan::incr(chunk));
        let (read, _) = koi_reads(&x);
        let served = owner.finish();
        assert!(served.ended, "koi read up to the end marker");
        assert_eq!(served.chunks, png.len().div_ceil(chunk));
        let got = read.unwrap().expect("an image");
        assert_eq!(got.len(), png.len());
        assert!(got == png, "the bytes differ");
    }
}

#[test]
fn an_owner_that_stops_mid_transfer_is_given_up_on() {
    let x = Xvfb::start();
    let plan = Plan {
        stop_after: Some(2),
        ..Plan::incr(64 * 1024)
    };
    let owner = FakeOwner::start(&x.display, noise_png(), plan);
    let (read, took) = koi_reads(&x);
    assert_eq!(owner.finish().chunks, 2);
    assert!(matches!(read, Err(PasteError::Stalled)), "{read:?}");
    // The kind says why koi stopped; a wait cut short would show here
    // (being slow only lengthens it, so there is no upper bound to flake).
    assert!(took >= OWNER_WAIT, "{took:?}");
}

#[test]
fn chunks_of_another_type_are_refused() {
    let x = Xvfb::start();
    let plan = Plan {
        chunk_type: "UTF8_STRING",
        ..Plan::incr(64 * 1024)
    };
    let owner = FakeOwner::start(&x.display, noise_png(), plan);
    let (read, _) = koi_reads(&x);
    // koi refuses the first; the owner may answer its deletion with one
    // more before it sees koi gone, but never gets to the end.
    let served = owner.finish();
    assert!(served.chunks >= 1 && !served.ended, "{served:?}");
    assert!(matches!(read, Err(PasteError::ChunkType(_))), "{read:?}");
}

#[test]
fn other_property_changes_do_not_stretch_the_wait() {
    // Every change to koi's window wakes koi; none of them is a chunk.
    let x = Xvfb::start();
    let plan = Plan {
        distract: true,
        ..Plan::incr(64 * 1024)
    };
    let owner = FakeOwner::start(&x.display, noise_png(), plan);
    let (read, _) = koi_reads(&x);
    owner.finish();
    // Stretched by the distractions, the wait would never end: the HANG
    // guard in `koi_reads` would fail the test instead.
    assert!(matches!(read, Err(PasteError::Stalled)), "{read:?}");
}

#[test]
fn an_owner_trickling_chunks_is_cut_off() {
    // Each chunk just inside the wait between chunks, never finishing.
    let x = Xvfb::start();
    let plan = Plan {
        pause: OWNER_WAIT / 2,
        ..Plan::incr(16)
    };
    let owner = FakeOwner::start(&x.display, noise_png(), plan);
    let (read, took) = koi_reads(&x);
    assert!(owner.finish().chunks > 2);
    assert!(matches!(read, Err(PasteError::TooSlow)), "{read:?}");
    assert!(took >= TRANSFER_WAIT, "{took:?}");
}

#[test]
fn an_announced_size_over_the_cap_is_refused_at_once() {
    let x = Xvfb::start();
    let plan = Plan {
        announce: u32::try_from(MAX_IMAGE_BYTES + 1).unwrap(),
        ..Plan::incr(64 * 1024)
    };
    let owner = FakeOwner::start(&x.display, noise_png(), plan);
    let (read, _) = koi_reads(&x);
    // Refused from the announcement: koi never asked for a chunk.
    assert_eq!(owner.finish().chunks, 0);
    assert!(matches!(read, Err(PasteError::TooLarge)), "{read:?}");
}
