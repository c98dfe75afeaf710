//! `make workbench`: writes the table's NoSQL Workbench data model (lab/tools/src/workbench.rs) to
//! lab/workbench/single-table-design.json, from the seeds loaded into a throwaway table of DynamoDB
//! Local (AWS_ENDPOINT_URL_DYNAMODB). It takes no flags (`tools::flags::WORKBENCH`).

use tools::{flags, target};

#[tokio::main]
async fn main() {
    target::exit_on_error(workbench().await);
}

async fn workbench() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    flags::WORKBENCH.parse(&args)?;
    let model = tools::workbench::generate().await?;
    let path = sam_template::workspace_root().join(tools::workbench::PATH);
    std::fs::write(&path, serde_json::to_string_pretty(&model)? + "\n")?;
    let items = model["DataModel"][0]["TableData"]
        .as_array()
        .map_or(0, Vec::len);
    println!("wrote {} ({items} items)", path.display());
    Ok(())
}
