//! koi and k together: `k` typed in koi's shell, conversations passed
//! between the overlay and `k`, context chips and Ctrl+Y between the panel
//! and the shell, and `k`'s approval on the terminal while its stdin is a
//! pipe. Real Xvfb, real shells, real PTYs, the strict fake model on
//! loopback; every test asserts on the requests it causes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod chips;
mod common;
mod ctrl_y;
mod overlay_from_k;
mod piped_approval;
mod resume;
