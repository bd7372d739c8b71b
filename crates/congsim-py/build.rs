//! Bakes the commit congsim is built from into the module (`_core.BUILD_COMMIT`, read from the
//! `CONGSIM_BUILD_COMMIT` variable set here) and into `congsim-native --version` (congsim-cli
//! runs this script too): `git rev-parse --short HEAD` when the build runs in congsim's own git
//! checkout, "unknown" otherwise (a wheel built from an sdist, no git).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The trimmed standard output of `git <args>` run in `dir`, if it succeeded and said something.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    if text.is_empty() {
        None
    } else {
        Some(text.to_owned())
    }
}

/// The short hash of HEAD, if `crate_dir` is in congsim's own checkout (an unpacked sdist that
/// sits inside some other repository is not). Asks Cargo to run this script again when HEAD
/// moves (a commit, a checkout), and not otherwise: the module is then relinked once.
fn commit(crate_dir: &Path) -> Option<String> {
    let top = PathBuf::from(git(crate_dir, &["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != crate_dir.join("../..").canonicalize().ok()? {
        return None;
    }
    // HEAD itself, its reflog (every move of HEAD appends to it), and the current branch's ref,
    // loose or packed. Only files that exist: Cargo reruns a script on every build for a
    // missing one.
    let mut watched = vec![
        "HEAD".to_owned(),
        "logs/HEAD".to_owned(),
        "packed-refs".to_owned(),
    ];
    watched.extend(git(crate_dir, &["symbolic-ref", "-q", "HEAD"]));
    for name in &watched {
        if let Some(path) = git(crate_dir, &["rev-parse", "--git-path", name]) {
            let path = crate_dir.join(path);
            if path.is_file() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    git(crate_dir, &["rev-parse", "--short", "HEAD"])
}

fn main() {
    let crate_dir = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("Cargo sets CARGO_MANIFEST_DIR"),
    );
    // This script by its own path: congsim-cli runs it from congsim-py's folder, and a path
    // relative to the package (`build.rs`) would name a file congsim-cli does not have, which
    // makes Cargo run the script, and rebuild the binary, on every build.
    let script = crate_dir.join("../congsim-py/build.rs");
    println!("cargo:rerun-if-changed={}", script.display());
    let commit = commit(&crate_dir).unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=CONGSIM_BUILD_COMMIT={commit}");
}
