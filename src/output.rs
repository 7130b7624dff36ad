//! `Output`: what a command produced, in both renderings.

/// What a command produced: stdout text, warnings for stderr (text mode), an exit code —
/// and both renderings of its result, so the MCP server gets the JSON document and the human
/// text from one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    pub stdout: String,
    pub warnings: Vec<String>,
    pub code: u8,
    /// The `--json` document.
    pub document: Option<serde_json::Value>,
    /// The human text.
    pub text: Option<String>,
    /// Byte ranges of `stdout` shown highlighted on a terminal (a search's matching words).
    pub marks: Vec<std::ops::Range<usize>>,
}

impl Output {
    pub fn text(stdout: impl Into<String>) -> Self {
        Self {
            stdout: stdout.into(),
            ..Self::default()
        }
    }

    /// A JSON document (pretty, newline-terminated).
    pub fn json(value: &impl serde::Serialize) -> Self {
        let document = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        let mut s = serde_json::to_string_pretty(&document).unwrap_or_else(|_| "null".into());
        s.push('\n');
        Self {
            document: Some(document),
            ..Self::text(s)
        }
    }

    /// Both renderings of a result; stdout is the JSON document when `json`, else the text
    /// (with the warnings for stderr: a JSON document carries its own).
    pub fn pick(
        json: bool,
        value: &impl serde::Serialize,
        text: String,
        warnings: Vec<String>,
    ) -> Self {
        let mut out = Self::json(value);
        if !json {
            out.stdout = text.clone();
            out.warnings = warnings;
        }
        out.text = Some(text);
        out
    }

    /// Highlights `marks` (byte ranges of the text) when the text is what stdout shows.
    pub fn with_marks(mut self, marks: Vec<std::ops::Range<usize>>) -> Self {
        if self.text.as_ref() == Some(&self.stdout) {
            self.marks = marks;
        }
        self
    }

    pub fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }
}
