//! `make workbench`: writes the table's NoSQL Workbench data model (tools/src/workbench.rs) to
//! workbench/single-table-design.json, from the seeds loaded into a throwaway table of DynamoDB
//! Local (AWS_ENDPOINT_URL_DYNAMODB).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = tools::workbench::generate().await?;
    let path = sam_template::workspace_root().join(tools::workbench::PATH);
    std::fs::write(&path, serde_json::to_string_pretty(&model)? + "\n")?;
    let items = model["DataModel"][0]["TableData"]
        .as_array()
        .map_or(0, Vec::len);
    println!("wrote {} ({items} items)", path.display());
    Ok(())
}
