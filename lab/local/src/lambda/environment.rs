//! A function's environment as CloudFormation would resolve the template's values.

use std::{collections::BTreeMap, path::Path};

use sam_template::{EnvValue, Function, Template};

use crate::account;

/// The value of every template parameter: `--param` first, then the parameter's `Default`.
/// Fails on a `--param` the template does not declare (most likely a typo).
pub fn parameter_values(
    template: &Template,
    given: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, Option<String>>, String> {
    if let Some(unknown) = given
        .keys()
        .find(|k| !template.parameters.iter().any(|p| &p.name == *k))
    {
        let known: Vec<_> = template
            .parameters
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        return Err(format!(
            "--param {unknown}: the template has no such parameter (it has: {})",
            known.join(", ")
        ));
    }
    Ok(template
        .parameters
        .iter()
        .map(|p| {
            let value = given.get(&p.name).cloned().or_else(|| p.default.clone());
            (p.name.clone(), value)
        })
        .collect())
}

/// The function's template environment with `!Ref`s resolved: the table to `table_name`, a
/// parameter to its value (an error if it has none), pseudo parameters to local values. Other
/// resources and other intrinsics cannot be resolved locally: they are left out with a warning.
pub fn resolve(
    function: &Function,
    template: &Template,
    table_name: &str,
    parameters: &BTreeMap<String, Option<String>>,
    failures_dir: &Path,
) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (name, value) in &function.environment {
        let resolved = match value {
            EnvValue::Literal(s) => s.clone(),
            EnvValue::Ref(target) if template.tables.iter().any(|t| t.logical_id == *target) => {
                sam_template::local_table_name(table_name, target)
            }
            EnvValue::Ref(target) if parameters.contains_key(target) => match &parameters[target] {
                Some(v) => v.clone(),
                None => {
                    return Err(format!(
                        "{}: {name} needs parameter {target}, which has no value and no Default: \
                         pass --param {target}=VALUE",
                        function.name()
                    ));
                }
            },
            // A stream mapping's on-failure queue: the handler sends poison records there (SQS in
            // AWS); locally they land in the same JSON-lines file as the mapping's own.
            EnvValue::Ref(target) if is_failure_destination(template, target) => {
                let path = std::env::current_dir()
                    .unwrap_or_default()
                    .join(failures_dir)
                    .join(format!("{target}.jsonl"));
                format!("file://{}", path.display())
            }
            EnvValue::Ref(target) => match target.as_str() {
                "AWS::Region" => account::REGION.to_owned(),
                "AWS::AccountId" => account::ACCOUNT_ID.to_owned(),
                "AWS::StackName" => account::STACK_NAME.to_owned(),
                _ => {
                    eprintln!(
                        "warning: {}: {name} is !Ref {target}, which the local stack cannot \
                         resolve; it is not set",
                        function.name()
                    );
                    continue;
                }
            },
            EnvValue::Other(yaml) => {
                eprintln!(
                    "warning: {}: {name} is {}, which the local stack cannot resolve; it is not set",
                    function.name(),
                    yaml.trim()
                );
                continue;
            }
        };
        out.push((name.clone(), resolved));
    }
    Ok(out)
}

/// Whether `logical_id` is the on-failure destination of a stream mapping of the template.
fn is_failure_destination(template: &Template, logical_id: &str) -> bool {
    template.functions.iter().any(|f| {
        f.streams
            .iter()
            .any(|m| m.on_failure_destination.as_deref() == Some(logical_id))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = r#"
Parameters:
  Key: { Type: String }
  WithDefault: { Type: String, Default: "d" }
Globals:
  Function:
    Timeout: 5
    Environment:
      Variables:
        TABLE_NAME: !Ref Table
        RUST_LOG: info
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      AttributeDefinitions: [{ AttributeName: PK, AttributeType: S }]
      KeySchema: [{ AttributeName: PK, KeyType: HASH }]
  F:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          KEY: !Ref Key
          OTHER: !Ref WithDefault
          REGION: !Ref AWS::Region
"#;

    #[test]
    fn resolves_table_parameters_and_literals() {
        let t = Template::parse(TEMPLATE).unwrap();
        let given = BTreeMap::from([("Key".to_owned(), "secret".to_owned())]);
        let params = parameter_values(&t, &given).unwrap();
        let env = resolve(&t.functions[0], &t, "local-table", &params, Path::new("f")).unwrap();
        let env: BTreeMap<_, _> = env.into_iter().collect();
        assert_eq!(env["TABLE_NAME"], "local-table");
        assert_eq!(env["RUST_LOG"], "info");
        assert_eq!(env["KEY"], "secret");
        assert_eq!(env["OTHER"], "d");
        assert_eq!(env["REGION"], "us-east-1");
    }

    #[test]
    fn a_parameter_without_value_is_an_error() {
        let t = Template::parse(TEMPLATE).unwrap();
        let params = parameter_values(&t, &BTreeMap::new()).unwrap();
        let err = resolve(&t.functions[0], &t, "x", &params, Path::new("f")).unwrap_err();
        assert!(err.contains("--param Key=VALUE"), "{err}");
    }

    #[test]
    fn an_unknown_parameter_is_an_error() {
        let t = Template::parse(TEMPLATE).unwrap();
        let given = BTreeMap::from([("Kye".to_owned(), "x".to_owned())]);
        assert!(parameter_values(&t, &given).unwrap_err().contains("Kye"));
    }
}
