//! `make token`, through the real binary: a flag it does not know, a stray word or a flag whose
//! value is missing is refused with the usage (exit 2), and no issuer key is made for it.

use std::process::Command;

#[test]
fn the_token_command_refuses_what_it_does_not_take_and_makes_no_key() {
    let dir = std::env::temp_dir().join(format!("token-usage-{}", std::process::id()));
    let dir_arg = dir.to_string_lossy().into_owned();
    let cases: [(&[&str], &str); 5] = [
        (
            &["--sub", "123", "--grups", "staff"],
            "unknown flag --grups",
        ),
        (&["--sub", "123", "staff"], "unexpected argument \"staff\""),
        // A flag where the value should be: not a token for the subject "--groups".
        (&["--sub", "--groups", "staff"], "--sub needs a value"),
        (&["--groups", "staff", "--sub"], "--sub needs a value"),
        // Which subject would it be? Not the last one silently.
        (&["--sub", "ann", "--sub", "bob"], "--sub given twice"),
    ];
    for (args, said) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_token"))
            .args(args)
            .args(["--issuer-dir", &dir_arg])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {said:?} in {err}");
        assert!(err.contains("usage: token"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: no token");
        assert!(!dir.exists(), "{args:?}: no issuer key made");
    }
}
