//! `megg doctor`'s report for people.

use crate::wire::doctor::Report;

/// The width of the names' column at its narrowest: the names of Claude Code's checks.
const NAME_WIDTH: usize = 12;

/// One line per check, its fix under it, and the verdict. The names' column is as wide as
/// the longest name (`copilot capture`), so every detail starts in the same column.
pub fn text(report: &Report) -> String {
    let width = report
        .checks
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(NAME_WIDTH);
    let mut text = String::new();
    for c in &report.checks {
        text.push_str(&format!(
            "{} {:<width$} {}\n",
            if c.ok { "ok  " } else { "FAIL" },
            c.name,
            c.detail
        ));
        if let Some(fix) = &c.fix {
            text.push_str(&format!("     {:<width$} fix: {fix}\n", ""));
        }
    }
    text.push_str(if report.ok {
        "megg is healthy\n"
    } else {
        "megg needs fixing (see above)\n"
    });
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megg::doctor::Check;

    /// A name longer than the column (`copilot capture`) widens it for every line, so the
    /// details and the fixes still start in one column.
    #[test]
    fn long_names_keep_the_columns() {
        let check = |name, ok, fix: Option<&str>| Check {
            name,
            ok,
            detail: "d".into(),
            fix: fix.map(str::to_string),
        };
        let checks = [
            check("hook", true, None),
            check("copilot capture", false, Some("f")),
        ];
        let text = text(&Report::from(&checks[..]));
        let starts: Vec<usize> = text
            .lines()
            .filter(|l| l.ends_with(" d") || l.ends_with("fix: f"))
            .map(|l| {
                l.find(" d")
                    .or_else(|| l.find("fix:").map(|i| i - 1))
                    .unwrap()
            })
            .collect();
        assert_eq!(starts.len(), 3, "{text}");
        assert!(starts.iter().all(|&s| s == starts[0]), "{text}");
    }
}
