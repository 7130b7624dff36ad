//! `megg doctor`'s report for people.

use crate::wire::doctor::Report;

/// One line per check, its fix under a failed one, and the verdict.
pub fn text(report: &Report) -> String {
    let mut text = String::new();
    for c in &report.checks {
        text.push_str(&format!(
            "{} {:<12} {}\n",
            if c.ok { "ok  " } else { "FAIL" },
            c.name,
            c.detail
        ));
        if let Some(fix) = &c.fix {
            text.push_str(&format!("     {:<12} fix: {fix}\n", ""));
        }
    }
    text.push_str(if report.ok {
        "megg is healthy\n"
    } else {
        "megg needs fixing (see above)\n"
    });
    text
}
