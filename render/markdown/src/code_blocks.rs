//! The fenced code blocks of an answer, for "insert the last code block".

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

/// A fenced code block of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// The fence's language (first word of the info string; may be empty).
    pub lang: String,
    /// The code, lines joined by `\n`, no trailing newline.
    pub code: String,
}

/// The fenced code blocks of `src`, in order (an unclosed last block
/// counts, so it can be inserted while it still streams).
pub fn code_blocks(src: &str) -> Vec<CodeBlock> {
    let mut out = Vec::new();
    let mut open: Option<CodeBlock> = None;
    for event in Parser::new_ext(src, crate::layout::options()) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let lang = info.split_whitespace().next().unwrap_or("").to_string();
                open = Some(CodeBlock {
                    lang,
                    code: String::new(),
                });
            }
            Event::Text(text) => {
                if let Some(block) = &mut open {
                    block.code.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(mut block) = open.take() {
                    if block.code.ends_with('\n') {
                        block.code.pop();
                    }
                    out.push(block);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_are_extracted_even_unclosed() {
        let src = "a\n```sh\nls -la\necho hi\n```\nb\n~~~\nstreaming";
        assert_eq!(
            code_blocks(src),
            [
                CodeBlock {
                    lang: "sh".into(),
                    code: "ls -la\necho hi".into()
                },
                CodeBlock {
                    lang: String::new(),
                    code: "streaming".into()
                },
            ]
        );
    }
}
