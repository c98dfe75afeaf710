//! The contract is real only if the tools its users use can read it: openapi-python-client (from
//! PyPI, in `.venv/`, as `make test` installs it) generates a client from `openapi.yaml` at test
//! time, and `tests/client/journey.py` drives one customer's journey through it against a local
//! stack: a product on sale, a customer, a cart line, an order, the order read back.

use std::path::Path;

use tokio::process::Command;

use crate::stack::start_stack;

/// The generator's settings: enums as `Literal`s (`CertType` lists `completion` and `Completion`,
/// one Python name for both otherwise), no formatter run after generating (offline, and quicker).
const CONFIG: &str = "literal_enums: true\npost_hooks: []\n";

async fn run(program: &Path, args: &[&str]) -> String {
    assert!(
        program.is_file(),
        "{} is missing: make test installs it (pip, into .venv/)",
        program.display()
    );
    let out = Command::new(program)
        .args(args)
        .output()
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{} {args:?}:\n{text}",
        program.display()
    );
    text
}

#[tokio::test]
async fn a_client_generated_from_openapi_yaml_drives_a_journey() {
    let root = sam_template::workspace_root();
    let venv = root.join(".venv/bin");
    let dir = std::env::temp_dir().join(format!(
        "generated-client-{}",
        ulid::Ulid::new().to_string().to_lowercase()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.yaml");
    std::fs::write(&config, CONFIG).unwrap();
    let package = dir.join("journey_client");
    let generated = run(
        &venv.join("openapi-python-client"),
        &[
            "generate",
            "--path",
            &root.join("openapi.yaml").to_string_lossy(),
            "--output-path",
            &package.to_string_lossy(),
            "--meta",
            "none",
            "--config",
            &config.to_string_lossy(),
        ],
    )
    .await;
    // The generator skips what it cannot read with a warning; the whole document must be read.
    assert!(
        !generated.to_lowercase().contains("warning") && !generated.contains("Unable"),
        "the generator could not read all of openapi.yaml:\n{generated}"
    );

    let stack = start_stack().await;
    let customer = format!("journey-{}", ulid::Ulid::new().to_string().to_lowercase());
    let token = |bearer: String| bearer.trim_start_matches("Bearer ").to_owned();
    let journey = run(
        &venv.join("python"),
        &[
            &root.join("tests/client/journey.py").to_string_lossy(),
            &dir.to_string_lossy(),
            &format!("http://127.0.0.1:{}", stack.port),
            &token(stack.bearer(&customer, &[])),
            &token(stack.bearer("staff-1", &["staff"])),
            &customer,
            "424242",
        ],
    )
    .await;
    assert!(journey.contains("journey: ok"), "{journey}");
    let _ = std::fs::remove_dir_all(&dir);
}
