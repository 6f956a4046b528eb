//! An Anthropic response's content blocks as the API sent them, rebuilt
//! from the stream: what goes back, as-is, after a `pause_turn`. The
//! API paused a long turn of its own tools (web search, code execution)
//! and carries on only when the paused content comes back unchanged,
//! server tool blocks and all, which koi's own history does not keep.

use serde_json::Value;

/// One streamed piece of a block, by its delta type.
pub(crate) enum Piece<'a> {
    Text(&'a str),
    Thinking(&'a str),
    Signature(&'a str),
    Input(&'a str),
    Citation(&'a Value),
}

/// One block: its start object, and the input JSON still streaming.
struct Streaming {
    index: usize,
    block: Value,
    partial_input: String,
}

/// The blocks of one response in the order they started.
#[derive(Default)]
pub(crate) struct ContentLog {
    blocks: Vec<Streaming>,
}

impl ContentLog {
    /// True before any block started.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// A block started (`content_block_start`'s `content_block`).
    pub fn start(&mut self, index: usize, block: Value) {
        self.blocks.push(Streaming {
            index,
            block,
            partial_input: String::new(),
        });
    }

    /// A piece of the block at `index` streamed.
    pub fn delta(&mut self, index: usize, piece: Piece<'_>) {
        let Some(b) = self.blocks.iter_mut().rev().find(|b| b.index == index) else {
            return;
        };
        match piece {
            Piece::Text(t) => append(&mut b.block, "text", t),
            Piece::Thinking(t) => append(&mut b.block, "thinking", t),
            Piece::Signature(t) => append(&mut b.block, "signature", t),
            Piece::Input(t) => b.partial_input.push_str(t),
            Piece::Citation(c) => {
                let Some(obj) = b.block.as_object_mut() else {
                    return;
                };
                let list = obj
                    .entry("citations")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if !list.is_array() {
                    *list = Value::Array(Vec::new());
                }
                if let Value::Array(list) = list {
                    list.push(c.clone());
                }
            }
        }
    }

    /// The content array, every streamed input parsed into its block (an
    /// input that does not parse stays as it started).
    pub fn finish(self) -> Value {
        Value::Array(
            self.blocks
                .into_iter()
                .map(|mut b| {
                    if !b.partial_input.trim().is_empty() {
                        if let (Ok(input), Some(obj)) = (
                            serde_json::from_str::<Value>(&b.partial_input),
                            b.block.as_object_mut(),
                        ) {
                            obj.insert("input".into(), input);
                        }
                    }
                    b.block
                })
                .collect(),
        )
    }
}

/// Appends `piece` to the string member `key` of `block`.
fn append(block: &mut Value, key: &str, piece: &str) {
    let Some(obj) = block.as_object_mut() else {
        return;
    };
    match obj.get_mut(key) {
        Some(Value::String(s)) => s.push_str(piece),
        _ => {
            obj.insert(key.into(), Value::String(piece.into()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rebuilds_blocks_in_order_with_their_streamed_parts() {
        let mut log = ContentLog::default();
        log.start(0, json!({"type":"text","text":""}));
        log.delta(0, Piece::Text("Let me "));
        log.start(
            1,
            json!({"type":"server_tool_use","id":"s1","name":"web_search","input":{}}),
        );
        log.delta(1, Piece::Input("{\"query\":"));
        log.delta(1, Piece::Input("\"rust\"}"));
        log.delta(0, Piece::Text("look."));
        log.delta(0, Piece::Citation(&json!({"url":"u"})));
        log.delta(7, Piece::Text("nowhere"));
        log.start(
            2,
            json!({"type":"web_search_tool_result","tool_use_id":"s1","content":[]}),
        );
        assert_eq!(
            log.finish(),
            json!([
                {"type":"text","text":"Let me look.","citations":[{"url":"u"}]},
                {"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"rust"}},
                {"type":"web_search_tool_result","tool_use_id":"s1","content":[]}
            ])
        );
    }
}
