//! `make token SUB=<id> [GROUPS=staff]`: prints an access token of the local issuer for `SUB` on
//! stdout, and nothing else, so that `curl -H "authorization: Bearer $(make -s token SUB=123)"`
//! works. The token carries the scope the template's routes require and lives an hour.

use std::process::ExitCode;

use local_stack::jwt::Issuer;
use sam_template::Template;

const USAGE: &str = "usage: token --sub ID [--groups a,b] [--issuer-dir .local/issuer]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(token) => {
            println!("{token}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("token: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<String, String> {
    let (mut sub, mut groups, mut dir) = (None, None, None);
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let slot = match flag.as_str() {
            "--sub" => &mut sub,
            "--groups" => &mut groups,
            "--issuer-dir" => &mut dir,
            f if f.starts_with('-') => return Err(format!("unknown flag {f}")),
            _ => return Err(format!("unexpected argument {flag:?}")),
        };
        if slot.is_some() {
            // Which one counts would be a guess (the tools refuse it too).
            return Err(format!("{flag} given twice"));
        }
        // A flag where the value should be is a missing value, not a value.
        let value = args.next().filter(|v| !v.starts_with("--"));
        *slot = Some(value.ok_or_else(|| format!("{flag} needs a value"))?);
    }
    let sub = sub.filter(|s| !s.is_empty()).ok_or("--sub is required")?;
    let groups = groups.unwrap_or_default();
    let dir = dir.unwrap_or_else(|| ".local/issuer".to_owned());
    let groups: Vec<&str> = groups.split([',', ' ']).filter(|g| !g.is_empty()).collect();
    let template = Template::workspace().map_err(|e| e.to_string())?;
    let scope = template
        .api_auth
        .as_ref()
        .and_then(|a| a.scopes.first().cloned())
        .unwrap_or_default();
    let issuer = Issuer::open(dir.as_ref()).map_err(|e| e.to_string())?;
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    Ok(issuer.access_token(&sub, &groups, &scope, now))
}
