//! The local stack is for the developer's machine alone: DynamoDB Local (as
//! `scripts/dynamodb-local.sh` starts it) and the stack's HTTP listener answer on 127.0.0.1 and
//! refuse a connection to any other address of the machine.

use std::{
    io::ErrorKind,
    net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr},
    time::Duration,
};

use tokio::net::TcpStream;

use crate::stack::start_stack;

/// The machine's own addresses other than loopback (and IPv6 link-local ones, which need a
/// scope to reach), from the kernel's tables: IPv4 from `/proc/net/fib_trie` (each local address
/// followed by a `/32 host LOCAL` line), IPv6 from `/proc/net/if_inet6` (32 hex digits first).
fn own_addresses() -> Vec<IpAddr> {
    let trie = std::fs::read_to_string("/proc/net/fib_trie").expect("/proc/net/fib_trie (Linux)");
    let lines: Vec<&str> = trie.lines().collect();
    let v4 = lines
        .windows(2)
        .filter(|w| w[1].trim() == "/32 host LOCAL")
        .filter_map(|w| {
            w[0].trim()
                .trim_start_matches(['|', '+', '-', ' '])
                .parse()
                .ok()
        })
        .filter(|ip: &Ipv4Addr| !ip.is_loopback())
        .map(IpAddr::V4);
    let inet6 = std::fs::read_to_string("/proc/net/if_inet6").unwrap_or_default();
    let v6 = inet6
        .lines()
        .filter_map(|l| u128::from_str_radix(l.split_whitespace().next()?, 16).ok())
        .map(Ipv6Addr::from)
        .filter(|ip| !ip.is_loopback() && !ip.is_unicast_link_local())
        .map(IpAddr::V6);
    let mut found: Vec<IpAddr> = v4.chain(v6).collect();
    found.sort();
    found.dedup();
    found
}

/// Whether a TCP connection to `address` is refused (nothing listens there).
async fn refused(address: SocketAddr) -> bool {
    match tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(address)).await {
        Ok(Err(e)) => e.kind() == ErrorKind::ConnectionRefused,
        Ok(Ok(_)) => false,
        Err(_) => panic!("{address}: neither accepted nor refused within 5 s"),
    }
}

/// `port` answers on loopback and on none of the machine's other addresses.
async fn loopback_only(what: &str, port: u16) {
    let loopback = SocketAddr::from(([127, 0, 0, 1], port));
    assert!(
        TcpStream::connect(loopback).await.is_ok(),
        "{what} does not answer on {loopback}"
    );
    let others = own_addresses();
    assert!(
        !others.is_empty(),
        "this machine has no address but loopback: nothing to check"
    );
    for ip in others {
        let address = SocketAddr::new(ip, port);
        assert!(
            refused(address).await,
            "{what} answers on {address}: anyone who can reach this machine can use it"
        );
    }
}

#[tokio::test]
async fn dynamodb_local_and_the_stack_answer_on_loopback_only() {
    loopback_only("DynamoDB Local", devkit::endpoint_port()).await;
    let stack = start_stack().await;
    loopback_only("the local stack", stack.port).await;
}
