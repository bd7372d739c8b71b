//! `congsim-native --version` names the version and the commit it was built from, as the
//! Python command does.

use std::process::Command;

#[test]
fn the_version_names_the_commit() {
    let out = Command::new(env!("CARGO_BIN_EXE_congsim-native"))
        .arg("--version")
        .output()
        .expect("the runner starts");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let expected = format!("congsim-native {} (", env!("CARGO_PKG_VERSION"));
    assert!(text.starts_with(&expected), "{text}");
    let commit = text
        .trim_end()
        .strip_prefix(&expected)
        .and_then(|rest| rest.strip_suffix(')'))
        .expect("the commit in parentheses");
    assert!(
        commit == "unknown" || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{commit}"
    );
}
