# Sourced by scripts that test against the local stack (fuzz.sh, browser.sh): starts
# target/debug/local-stack on a free port with a table of its own and its own token issuer,
# waits until it answers, and stops it when the script exits. Its stream failure files are its own
# too, under $work/failures.
#
#   start_stack DDB_ENDPOINT LOG_FILE NAME    -> sets port, table, work (the issuer is $work/issuer)

start_stack() {
    local endpoint=$1 log=$2 name=$3
    work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    table="$name-$(date +%s)-$$"
    mkdir -p "$(dirname "$log")"
    AWS_ENDPOINT_URL_DYNAMODB=$endpoint target/debug/local-stack \
        --port "$port" --table "$table" --issuer-dir "$work/issuer" --failures-dir "$work/failures" \
        --param CursorSigningKey=$name-cursor-signing-key-0123456789abcdef >"$log" 2>&1 &
    stack=$!
    trap 'kill $stack 2>/dev/null; wait $stack 2>/dev/null; rm -rf "$work"' EXIT
    # Ready once it answers HTTP: it listens before it has created its tables, and a caller may
    # write to them at once (the browser lane's seed once met a table not created yet).
    for _ in $(seq 300); do
        if curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$port/_local/streams"; then return 0; fi
        kill -0 $stack 2>/dev/null || { cat "$log" >&2; echo "$name: the local stack stopped" >&2; exit 1; }
        sleep 0.1
    done
    echo "$name: the local stack did not listen on port $port" >&2
    exit 1
}
