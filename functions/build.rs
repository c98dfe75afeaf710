//! The build script of every context crate (`build = "../build.rs"`): the crate's list of
//! functions, derived from its binaries. Each `src/bin/<name>.rs` is one line naming the module it
//! serves, and the macro it calls says what the module is:
//!
//! - `api::main!(<context>::<module>);`: an API function (`FUNCTION` and `handle`);
//! - `stream_handler::main!(<context>::<module>);`: a stream consumer (`CONSUMER` and `handle`).
//!
//! It writes `$OUT_DIR/functions.rs`, a macro the crate's `lib.rs` includes and calls:
//! `api::functions![..]` and `stream_handler::consumers![..]` of those modules, in the binaries'
//! order (by name). A binary it cannot read fails the build, naming the file and the line it wants.

use std::path::Path;

/// The two kinds of binary, by the macro that serves them, and the list each goes into.
const KINDS: [(&str, &str); 2] = [
    ("api::main!", "api::functions!"),
    ("stream_handler::main!", "stream_handler::consumers!"),
];

fn main() {
    // A binary added, removed or changed changes the list; nothing else does.
    println!("cargo::rerun-if-changed=src/bin");
    let context = std::env::var("CARGO_PKG_NAME").expect("cargo sets CARGO_PKG_NAME");
    let context = context.replace('-', "_");
    let bin = Path::new("src/bin");
    let mut names: Vec<String> = std::fs::read_dir(bin)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", bin.display())))
        .map(|entry| entry.expect("an entry of src/bin").file_name())
        .filter_map(|name| Some(name.to_str()?.strip_suffix(".rs")?.to_owned()))
        .collect();
    names.sort();
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let shown = Path::new("functions").join(Path::new(&dir).file_name().unwrap_or_default());
    let mut lists: [Vec<String>; 2] = Default::default();
    for name in &names {
        let path = bin.join(format!("{name}.rs"));
        let source = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
        let path = shown.join(&path);
        let own = name.replace('-', "_");
        match served(&source, &context) {
            Some((kind, module)) if module == own => lists[kind].push(module),
            Some((_, module)) => fail(&format!(
                "{}: serves {context}::{module}, but a binary serves the module of its own name, \
                 {context}::{own} (the binary's name is the function's)",
                path.display(),
            )),
            None => fail(&format!(
                "{}: a Lambda binary is one line, `api::main!({context}::{own});` for an API \
                 function or `stream_handler::main!({context}::{own});` for a stream consumer, \
                 where src/{own}.rs is the module it serves (comments aside, nothing else)",
                path.display(),
            )),
        }
    }
    let mut calls = String::new();
    for ((_, list), modules) in KINDS.iter().zip(&lists) {
        if !modules.is_empty() {
            calls.push_str(&format!("{list}[{}];\n", modules.join(", ")));
        }
    }
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("functions.rs");
    // A macro rather than the calls themselves: modules declared in an included file would be
    // looked for beside it, in OUT_DIR; called from lib.rs, they are found in src/.
    let text = format!(
        "// Written by functions/build.rs from src/bin/*.rs.\n\
         macro_rules! modules_of_the_binaries {{\n    () => {{\n{calls}    }};\n}}\n"
    );
    std::fs::write(&out, text).unwrap_or_else(|e| fail(&format!("{}: {e}", out.display())));
}

/// The kind (an index into [`KINDS`]) and module of a binary whose code, comments aside, is
/// exactly one `<macro>(<context>::<module>);`.
fn served(source: &str, context: &str) -> Option<(usize, String)> {
    let code: String = source
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with("//"))
        .collect::<Vec<_>>()
        .concat()
        .split_whitespace()
        .collect();
    KINDS.iter().enumerate().find_map(|(kind, (call, _))| {
        let path = code
            .strip_prefix(call)?
            .strip_prefix('(')?
            .strip_suffix(");")?;
        let module = path.strip_prefix(context)?.strip_prefix("::")?;
        let is_ident = module.starts_with(|c: char| c.is_ascii_lowercase())
            && module
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        is_ident.then(|| (kind, module.to_owned()))
    })
}

/// Fails the build with `message` (cargo shows it as the error).
fn fail(message: &str) -> ! {
    println!("cargo::error={message}");
    std::process::exit(0)
}
