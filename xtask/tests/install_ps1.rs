//! install.ps1 (SPEC §15.1) is run by `irm … | iex` in Windows PowerShell 5.1 or PowerShell 7.
//! No PowerShell installs on this machine, so these tests read it: a lint keeps it to what 5.1
//! parses and runs, and the rest pin the order of what it does (the sum checked before anything
//! is unpacked, a running megg.exe moved aside before it is replaced, PATH written to the
//! user's key only). The wine suite runs the zip it installs; the release workflow runs the
//! script itself on windows-latest and windows-11-arm.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// install.ps1 with LF line ends (a Windows checkout may have CRLF, which PowerShell reads alike).
fn script() -> String {
    std::fs::read_to_string(root().join("install.ps1"))
        .expect("install.ps1 at the repo root")
        .replace("\r\n", "\n")
}

/// The code of a PowerShell script: comments removed and every string's text blanked (its
/// quotes kept), line breaks kept, so what is searched is code only. Errs on a comment or
/// string left open.
fn code(text: &str) -> Result<String, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // A `#` starts a comment only where a token can start.
    let token_start = |out: &str| {
        out.chars()
            .last()
            .is_none_or(|c| c.is_whitespace() || ";({}|,=".contains(c))
    };
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while let Some(&c) = chars.get(i) {
        if at(i, "<#") {
            let end = (i + 2..chars.len())
                .find(|&j| at(j, "#>"))
                .ok_or("a <# comment is never closed")?;
            out.extend(chars[i..end].iter().filter(|c| **c == '\n'));
            i = end + 2;
        } else if c == '#' && token_start(&out) {
            while chars.get(i).is_some_and(|c| *c != '\n') {
                i += 1;
            }
        } else if (c == '@') && matches!(chars.get(i + 1), Some('\'' | '"')) {
            let quote = chars[i + 1];
            let close = format!("\n{quote}@");
            let end = (i + 2..chars.len())
                .find(|&j| at(j, &close))
                .ok_or("a here-string is never closed")?;
            out.push_str(&format!("@{quote}"));
            out.extend(chars[i..end].iter().filter(|c| **c == '\n'));
            out.push_str(&format!("\n{quote}@"));
            i = end + 3;
        } else if c == '\'' || c == '"' {
            // '' and "" are the quote itself; in "…" a backtick escapes the next character.
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => {
                        return Err(format!(
                            "a string opened on line {} is never closed",
                            line_of(text, i)
                        ));
                    }
                    Some('`') if c == '"' => j += 2,
                    Some(&q) if q == c && chars.get(j + 1) == Some(&c) => j += 2,
                    Some(&q) if q == c => break,
                    Some('\n') => {
                        out.push('\n');
                        j += 1;
                    }
                    Some(_) => j += 1,
                }
            }
            out.push(c);
            out.push(c);
            i = j + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Ok(out)
}

fn line_of(text: &str, char_index: usize) -> usize {
    text.chars().take(char_index).filter(|c| *c == '\n').count() + 1
}

/// What Windows PowerShell 5.1 lacks or does differently, found in `code`: each (line, why).
fn lint(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let forbidden: &[(&str, &str)] = &[
        ("&&", "`&&` is PowerShell 7's; 5.1 cannot parse it"),
        ("||", "`||` is PowerShell 7's; 5.1 cannot parse it"),
        ("??", "`??` (null coalescing) is PowerShell 7's"),
        ("?.", "`?.` (null-conditional) is PowerShell 7.1's"),
        ("?[", "`?[` (null-conditional) is PowerShell 7.1's"),
        ("-Parallel", "ForEach-Object -Parallel is PowerShell 7's"),
        ("-SkipCertificateCheck", "a PowerShell 7 web parameter"),
        ("-SkipHttpErrorCheck", "a PowerShell 7 web parameter"),
        ("-Resume", "a PowerShell 7 web parameter"),
        (
            "-AsHashtable",
            "ConvertFrom-Json -AsHashtable is PowerShell 6's",
        ),
        (
            "-AdditionalChildPath",
            "Join-Path's extra paths are PowerShell 6's",
        ),
        ("utf8NoBOM", "utf8NoBOM is PowerShell 6's"),
        ("$IsWindows", "$IsWindows is not set in 5.1"),
        ("$IsLinux", "$IsLinux is not set in 5.1"),
        ("$IsMacOS", "$IsMacOS is not set in 5.1"),
        ("$IsCoreCLR", "$IsCoreCLR is not set in 5.1"),
    ];
    for (n, line) in code.lines().enumerate() {
        for (token, why) in forbidden {
            if line.to_lowercase().contains(&token.to_lowercase()) {
                found.push((n + 1, (*why).to_owned()));
            }
        }
        // The rest of `?`: a ternary (7) or Where-Object's alias, which hides what runs.
        if !line.contains("??")
            && !line.contains("?.")
            && !line.contains("?[")
            && line.contains('?')
        {
            found.push((
                n + 1,
                "`?`: a ternary is PowerShell 7's; spell Where-Object out".to_owned(),
            ));
        }
    }
    let mut stack = Vec::new();
    for (n, line) in code.lines().enumerate() {
        for c in line.chars() {
            match c {
                '(' | '{' | '[' => stack.push((c, n + 1)),
                ')' | '}' | ']' => {
                    let open = match c {
                        ')' => '(',
                        '}' => '{',
                        _ => '[',
                    };
                    match stack.pop() {
                        Some((o, _)) if o == open => {}
                        _ => found.push((n + 1, format!("`{c}` closes nothing open"))),
                    }
                }
                _ => {}
            }
        }
    }
    for (c, n) in stack {
        found.push((n, format!("`{c}` is never closed")));
    }
    found
}

#[test]
fn the_lint_finds_what_powershell_5_1_cannot_run() {
    let bad = "$a = f && g\nif ($x) { $y ?? 1 }\n$z = $c ? 1 : 2\n$n = $o?.Name\n(\n";
    let found = lint(&code(bad).unwrap());
    let lines: Vec<usize> = found.iter().map(|(n, _)| *n).collect();
    assert_eq!(lines, [1, 2, 3, 4, 5], "{found:?}");
    // Inside strings and comments they are text.
    let fine = "# a && b\n<# c || d\n #>\n$s = 'it''s ?? && || (' + \"a `\" ?\"\n$h = @'\n?? (\n'@\nf # x ?\n";
    assert_eq!(lint(&code(fine).unwrap()), []);
    assert!(code("'open").is_err() && code("<# open").is_err());
}

#[test]
fn install_ps1_is_ascii_and_uses_nothing_powershell_5_1_lacks() {
    let text = script();
    // Windows PowerShell reads a file with no BOM in the ANSI code page, and `irm` of a file
    // GitHub serves as octet-stream decodes it as Latin-1: only ASCII reads the same every way.
    let bad: Vec<(usize, char)> = text
        .chars()
        .enumerate()
        .filter(|(_, c)| !c.is_ascii())
        .map(|(i, c)| (line_of(&text, i), c))
        .collect();
    assert!(bad.is_empty(), "non-ASCII in install.ps1: {bad:?}");
    let code = code(&text).unwrap();
    let found = lint(&code);
    assert!(
        found.is_empty(),
        "install.ps1 needs PowerShell 7 here: {found:?}"
    );
}

/// Under `irm | iex` the script runs in the user's own session: `exit` would close their
/// window, and a script cut short by the network must run nothing. Everything is one script
/// block, invoked by its last line; `exit` only when it was run as a file.
#[test]
fn install_ps1_is_one_script_block_and_exits_only_when_run_as_a_file() {
    let code = code(&script()).unwrap();
    let lines: Vec<&str> = code
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.first(), Some(&"& {"), "{lines:?}");
    assert_eq!(lines.last(), Some(&"}"));
    let exits: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            l.split(|c: char| !c.is_alphanumeric())
                .any(|w| w.eq_ignore_ascii_case("exit"))
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(exits.len(), 1, "{exits:?}");
    assert_eq!(lines[exits[0]], "exit 1");
    assert_eq!(lines[exits[0] - 1], "if ($PSCommandPath) {");
}

/// Where `needle` first is in `code`, failing with its name when it is not there.
fn position(code: &str, needle: &str) -> usize {
    code.find(needle)
        .unwrap_or_else(|| panic!("install.ps1 has no `{needle}`"))
}

#[test]
fn install_ps1_checks_the_sum_before_unpacking_and_compares_hex_in_one_case() {
    let code = code(&script()).unwrap();
    let sums = position(&code, "$found = Find-Archive $sums");
    let hash = position(&code, "Get-FileHash -LiteralPath $zip -Algorithm SHA256");
    let compare = position(&code, "if ($actual -ne $expected) {");
    let unpack = position(&code, "Expand-Archive");
    assert!(sums < hash && hash < compare && compare < unpack);
    // Both sides lower-cased: SHA256SUMS may say it in either case, Get-FileHash says upper.
    assert!(code.contains(").Hash.ToLowerInvariant()"));
    assert!(code.contains("$Matches[1].ToLowerInvariant()"));
    // Nothing is written to the install directory before that.
    let install = position(&code, "Install-Binary $");
    assert!(compare < install);
    // The temporary directory goes whatever happens.
    let cleanup = unpack + position(&code[unpack..], "} finally {");
    let removed = position(
        &code[cleanup..],
        "Remove-Item -LiteralPath $tmp -Recurse -Force",
    );
    assert!(code[cleanup..cleanup + removed].trim() == "} finally {");
}

#[test]
fn install_ps1_moves_a_running_megg_exe_aside_before_replacing_it() {
    let code = code(&script()).unwrap();
    let aside = position(&code, "[IO.File]::Move($exe, $aside)");
    let replace = position(&code, "[IO.File]::Move($staged, $exe)");
    let back = position(&code, "[IO.File]::Move($aside, $exe)");
    assert!(
        aside < replace && replace < back,
        "moved aside, replaced, put back on failure"
    );
}

#[test]
fn install_ps1_installs_for_the_user_without_elevation() {
    let code = code(&script()).unwrap();
    for (needle, why) in [
        ("RunAs", "asks for elevation"),
        ("LocalMachine", "writes the machine's settings"),
        ("Start-Process", "starts an elevated or detached process"),
    ] {
        assert!(!code.contains(needle), "install.ps1 {why}: {needle}");
    }
    // PATH is the user's (HKCU), its %VARIABLES% kept as they were written.
    assert!(code.contains("[Microsoft.Win32.Registry]::CurrentUser.CreateSubKey("));
    assert!(code.contains("[Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames"));
    let text = script();
    for setting in [
        "MEGG_INSTALL_DIR",
        "MEGG_INSTALL_BASE",
        "MEGG_VERSION",
        "MEGG_NO_MODIFY_PATH",
    ] {
        assert!(text.contains(&format!("$env:{setting}")), "{setting}");
    }
    assert!(text.contains("Join-Path $env:LOCALAPPDATA 'Programs\\megg'"));
}

/// The release repository is named once, in Cargo.toml (SPEC §15): install.ps1 downloads from
/// it, and README and docs/install.md show the line that runs it.
#[test]
fn install_ps1_follows_cargo_toml_s_repository_and_the_docs_show_its_line() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let repository = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = "))
        .unwrap()
        .trim_matches('"');
    let text = script();
    assert!(
        text.contains(&format!("$RepoUrl = '{repository}'")),
        "install.ps1's release is not {repository}"
    );
    let line = format!("irm {repository}/releases/latest/download/install.ps1 | iex");
    assert!(
        text.contains(&format!("#   {line}\n")),
        "install.ps1's header"
    );
    for doc in ["README.md", "docs/install.md"] {
        let doc_text = std::fs::read_to_string(root().join(doc)).unwrap();
        assert!(doc_text.contains(&line), "{doc} does not show `{line}`");
    }
}
