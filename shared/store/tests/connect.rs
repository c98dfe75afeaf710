//! A function opens its DynamoDB connection during init (`store::sdk::connect`): one connection,
//! which its first request then reuses rather than opening its own (the TLS handshake is paid in
//! init, not by the first caller). Counted at a TCP proxy in front of DynamoDB Local.

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use tokio::net::{TcpListener, TcpStream};

/// A proxy to DynamoDB Local counting the connections it accepts; its endpoint and the count.
async fn counting_proxy() -> (String, Arc<AtomicUsize>) {
    let upstream = devkit::endpoint().trim_start_matches("http://").to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let upstream = upstream.clone();
            tokio::spawn(async move {
                if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    (endpoint, count)
}

#[tokio::test]
async fn the_connection_opened_at_init_is_the_one_the_first_request_uses() {
    let name = devkit::test_table_name("connect", "init");
    devkit::create_workspace_table(&devkit::client(), &name)
        .await
        .unwrap();
    let (endpoint, connections) = counting_proxy().await;
    let table = store::Table::new(devkit::client_at(&endpoint), name);
    store::sdk::connect(&table).await;
    assert_eq!(connections.load(Ordering::SeqCst), 1, "connected at init");
    let key = keys::derived::daily_stats(
        keys::Date::parse_iso("2026-01-01").unwrap(),
        keys::Shard::new(0, 1).unwrap(),
    );
    assert!(!table.exists(&key).await.unwrap());
    assert!(!table.exists(&key).await.unwrap());
    assert_eq!(
        connections.load(Ordering::SeqCst),
        1,
        "the requests reused the connection opened at init"
    );
}
