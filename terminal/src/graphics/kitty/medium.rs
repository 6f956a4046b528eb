//! Reading picture data from a file, a temporary file or POSIX shared
//! memory (`t=f`, `t=t`, `t=s`).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use super::command::Command;
use super::MAX_DATA_SIZE;
use crate::graphics::decode::DecodeError;

/// kitty refuses longer names.
const MAX_NAME: usize = 2048;

/// A temporary file is deleted after reading only when its name says it
/// was made for this protocol, so a mistaken path never deletes a file.
const TEMP_MARKER: &str = "tty-graphics-protocol";

/// Where POSIX shared memory objects live on Linux.
const SHM_DIR: &str = "/dev/shm";

/// Reads the bytes the command points at (`payload` is the path or the
/// shared memory object's name), deleting temporary files and shared
/// memory afterwards as kitty does.
pub(super) fn read(cmd: &Command, payload: &[u8]) -> Result<Vec<u8>, DecodeError> {
    if payload.len() > MAX_NAME {
        return Err(DecodeError::new("EINVAL", "Filename too long"));
    }
    let name = String::from_utf8_lossy(payload).into_owned();
    let path = if cmd.medium == b's' {
        PathBuf::from(SHM_DIR).join(name.trim_start_matches('/'))
    } else {
        PathBuf::from(&name)
    };
    let result = read_file(&path, cmd);
    let remove = match cmd.medium {
        b't' => name.contains(TEMP_MARKER),
        b's' => true,
        _ => false,
    };
    if remove {
        if let Err(e) = std::fs::remove_file(&path) {
            log::debug!("kitty graphics: could not remove {}: {e}", path.display());
        }
    }
    result
}

fn errno_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    };
    format!("[{}] {}", e.raw_os_error().unwrap_or(0), text)
}

fn read_file(path: &std::path::Path, cmd: &Command) -> Result<Vec<u8>, DecodeError> {
    let open_error = |e: std::io::Error| {
        DecodeError::new(
            "EBADF",
            format!(
                "Failed to open file for graphics transmission with error: {}",
                errno_text(&e)
            ),
        )
    };
    let mut file = File::open(path).map_err(open_error)?;
    let meta = file.metadata().map_err(open_error)?;
    if !meta.is_file() {
        // FIFOs, devices and directories could block or never end.
        return Err(DecodeError::new(
            "EBADF",
            "Failed to map image file: not a regular file",
        ));
    }
    let offset = u64::from(cmd.data_offset);
    let available = meta.len().saturating_sub(offset);
    let wanted = if cmd.data_size != 0 {
        u64::from(cmd.data_size).min(available)
    } else {
        available
    };
    if wanted > MAX_DATA_SIZE as u64 {
        return Err(DecodeError::new("EFBIG", "Too much data"));
    }
    let map_error = |e: std::io::Error| {
        DecodeError::new(
            "EBADF",
            format!(
                "Failed to map image file at offset: {offset} with size: {wanted} with error: {}",
                errno_text(&e)
            ),
        )
    };
    file.seek(SeekFrom::Start(offset)).map_err(map_error)?;
    let mut data = Vec::with_capacity(wanted as usize);
    file.take(wanted)
        .read_to_end(&mut data)
        .map_err(map_error)?;
    Ok(data)
}
