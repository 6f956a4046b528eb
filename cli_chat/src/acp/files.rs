//! koi's file tools through the client (`fs/read_text_file`,
//! `fs/write_text_file`) when it offers them: reads see the editor's
//! unsaved buffers and writes land in them. What the client does not
//! offer, or cannot answer, falls back to the disk.

use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ai_tools::EditorFiles;
use serde::Serialize;

use super::rpc::Peer;
use super::wire::{FsCapabilities, ReadTextFileParams, ReadTextFileResult};

/// How long a file request waits for the client: an editor answers from
/// memory in milliseconds; one that does not answer in this long is stuck,
/// and the tool goes on without it.
const FS_TIMEOUT: Duration = Duration::from_secs(30);

/// `fs/write_text_file` params.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WriteTextFileParams<'a> {
    session_id: &'a str,
    path: &'a Path,
    content: &'a str,
}

/// One session's files as its client holds them.
pub struct ClientFiles {
    peer: Arc<Peer>,
    /// The session's id, known once its conversation exists.
    session: Arc<OnceLock<String>>,
    caps: FsCapabilities,
}

impl std::fmt::Debug for ClientFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientFiles")
            .field("session", &self.session.get())
            .field("caps", &self.caps)
            .finish_non_exhaustive()
    }
}

impl ClientFiles {
    /// Files through `peer` for the session whose id `session` will hold,
    /// as far as `caps` offers.
    pub fn new(peer: Arc<Peer>, session: Arc<OnceLock<String>>, caps: FsCapabilities) -> Self {
        ClientFiles {
            peer,
            session,
            caps,
        }
    }
}

impl EditorFiles for ClientFiles {
    fn read(&self, path: &Path) -> Option<String> {
        if !self.caps.read_text_file {
            return None;
        }
        let params = ReadTextFileParams {
            session_id: self.session.get()?,
            path,
        };
        let answer = self
            .peer
            .request("fs/read_text_file", &params)
            .recv_timeout(FS_TIMEOUT)
            .ok()?
            .ok()?;
        serde_json::from_value::<ReadTextFileResult>(answer)
            .ok()
            .map(|r| r.content)
    }

    fn write(&self, path: &Path, text: &str) -> Option<Result<(), String>> {
        if !self.caps.write_text_file {
            return None;
        }
        let params = WriteTextFileParams {
            session_id: self.session.get()?,
            path,
            content: text,
        };
        let rx = self.peer.request("fs/write_text_file", &params);
        Some(match rx.recv_timeout(FS_TIMEOUT) {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.message),
            Err(_) => Err("the client did not answer".into()),
        })
    }
}
