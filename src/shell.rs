//! Shell syntax, where megg builds a command line: the hooks it installs run megg by its path,
//! and the hints it prints are commands to paste. Never used to pass text an agent wrote.

/// `s` as one POSIX shell word: unquoted when it is made of safe characters, else in single
/// quotes. Used wherever megg prints a command for a person or an agent to run.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:=@,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(shell_quote("/a/b.md"), "/a/b.md");
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
