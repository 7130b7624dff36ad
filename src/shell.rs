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

/// `s` as one PowerShell verbatim string: always in single quotes, each `'` doubled — nothing
/// inside expands (`$`, backticks, `;` and spaces are plain characters). The Windows hooks run a
/// path this way: `& 'C:\Program Files\megg\megg.exe' context --json` (SPEC §15.1).
///
/// PowerShell also takes the typographic quotes (U+2018, U+2019, U+201A, U+201B) as single
/// quotes: each is doubled too, so a path holding one stays one string.
pub fn powershell_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if is_powershell_single_quote(c) {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// The characters PowerShell reads as a single quote.
pub fn is_powershell_single_quote(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}')
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

    #[test]
    fn powershell_strings_are_verbatim_with_quotes_doubled() {
        assert_eq!(
            powershell_quote(r"C:\Program Files\megg\megg.exe"),
            r"'C:\Program Files\megg\megg.exe'"
        );
        assert_eq!(
            powershell_quote(r"C:\it's\megg.exe"),
            r"'C:\it''s\megg.exe'"
        );
        assert_eq!(powershell_quote("$env:X `n; a"), "'$env:X `n; a'");
        assert_eq!(powershell_quote("a\u{2019}b"), "'a\u{2019}\u{2019}b'");
        assert_eq!(powershell_quote(""), "''");
    }
}
