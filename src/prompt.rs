//! Interactive prompts behind a small trait: dialoguer on a terminal, a script in tests.
//! Prompts draw on stderr, so stdout stays the command's result; all they draw goes through
//! [`terminal_safe`], as everything else megg prints on a terminal does.

use std::collections::VecDeque;

use crate::error::Error;
use crate::error::Result;
use crate::render::terminal_safe;

pub trait Prompter {
    /// Asks to pick one of `items`, `default` preselected. `Ok(None)` when the user cancels
    /// (Esc).
    fn select(&mut self, question: &str, items: &[String], default: usize)
    -> Result<Option<usize>>;
    /// Asks for a line of text. `Ok(None)` when cancelled.
    fn input(&mut self, question: &str) -> Result<Option<String>>;
    /// Shows text (e.g. the file being viewed) before the next question.
    fn show(&mut self, text: &str);
    /// Shows a `warning:` line before the next question.
    fn warn(&mut self, message: &str);
}

/// Whether prompts colour what they draw; `megg` sets it as it does for its own
/// `warning:` / `error:` labels (`--color`, `NO_COLOR`).
pub fn set_color(on: bool) {
    dialoguer::console::set_colors_enabled_stderr(on);
}

/// The terminal prompter.
pub struct Terminal {
    term: dialoguer::console::Term,
}

impl Terminal {
    /// A prompter on stderr. Ctrl-C from here on restores the cursor and exits 130 with
    /// nothing changed: nothing is written before the user has answered.
    pub fn new() -> Self {
        let _ = ctrlc::set_handler(|| {
            let _ = dialoguer::console::Term::stderr().show_cursor();
            std::process::exit(130);
        });
        Self {
            term: dialoguer::console::Term::stderr(),
        }
    }
}

impl Default for Terminal {
    fn default() -> Self {
        Self::new()
    }
}

fn prompt_error(e: dialoguer::Error) -> Error {
    let dialoguer::Error::IO(io) = e;
    if io.kind() == std::io::ErrorKind::Interrupted {
        Error::interrupted()
    } else {
        Error::user(format!("prompt failed: {io}"))
    }
}

impl Prompter for Terminal {
    fn select(
        &mut self,
        question: &str,
        items: &[String],
        default: usize,
    ) -> Result<Option<usize>> {
        let theme = dialoguer::theme::ColorfulTheme::default();
        let items: Vec<_> = items.iter().map(|i| terminal_safe(i)).collect();
        let picked = dialoguer::Select::with_theme(&theme)
            .with_prompt(terminal_safe(question))
            .items(&items)
            .default(default)
            .interact_on_opt(&self.term)
            .map_err(prompt_error);
        let _ = self.term.show_cursor();
        picked
    }

    fn input(&mut self, question: &str) -> Result<Option<String>> {
        let theme = dialoguer::theme::ColorfulTheme::default();
        let text: String = dialoguer::Input::with_theme(&theme)
            .with_prompt(terminal_safe(question))
            .allow_empty(true)
            .interact_text_on(&self.term)
            .map_err(prompt_error)?;
        Ok((!text.trim().is_empty()).then(|| text.trim().to_string()))
    }

    fn show(&mut self, text: &str) {
        let _ = self.term.write_line(&terminal_safe(text));
    }

    fn warn(&mut self, message: &str) {
        let label = dialoguer::console::style("warning:")
            .for_stderr()
            .yellow()
            .bold();
        let _ = self
            .term
            .write_line(&format!("{label} {}", terminal_safe(message)));
    }
}

/// A prompter that answers from a script, for tests. Each answer is an item label to pick
/// (matched by prefix), `"<esc>"` to cancel, or the text for an input.
#[derive(Debug, Default)]
pub struct Scripted {
    answers: VecDeque<String>,
    /// Every question asked and text shown, in order.
    pub transcript: Vec<String>,
}

impl Scripted {
    pub fn new(answers: &[&str]) -> Self {
        Self {
            answers: answers.iter().map(|s| s.to_string()).collect(),
            transcript: Vec::new(),
        }
    }

    fn next_answer(&mut self) -> Result<String> {
        self.answers
            .pop_front()
            .ok_or_else(|| Error::user("script ran out of answers"))
    }
}

impl Prompter for Scripted {
    fn select(
        &mut self,
        question: &str,
        items: &[String],
        default: usize,
    ) -> Result<Option<usize>> {
        self.transcript.push(format!(
            "? {question} [{}] default={}",
            items.join(" | "),
            items.get(default).map_or("", String::as_str)
        ));
        let answer = self.next_answer()?;
        if answer == "<esc>" {
            return Ok(None);
        }
        items
            .iter()
            .position(|i| i.starts_with(&answer))
            .map(Some)
            .ok_or_else(|| Error::user(format!("no item '{answer}' in {items:?}")))
    }

    fn input(&mut self, question: &str) -> Result<Option<String>> {
        self.transcript.push(format!("? {question}"));
        let answer = self.next_answer()?;
        Ok((answer != "<esc>").then_some(answer))
    }

    fn show(&mut self, text: &str) {
        self.transcript.push(text.to_string());
    }

    fn warn(&mut self, message: &str) {
        self.transcript.push(format!("warning: {message}"));
    }
}
