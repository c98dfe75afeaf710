# Sourced by scripts that test against the local stack (fuzz.sh, browser.sh): starts
# target/debug/local-stack on a port the system picks, with a table of its own and its own token
# issuer, waits until it serves (it writes its port to a file then), and stops it when the script
# exits. Its stream failure files are its own
# too, under $work/failures.
#
#   start_stack DDB_ENDPOINT LOG_FILE NAME    -> sets port, table, work (the issuer is $work/issuer)

start_stack() {
    local endpoint=$1 log=$2 name=$3
    work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
    table="$name-$(date +%s)-$$"
    mkdir -p "$(dirname "$log")"
    AWS_ENDPOINT_URL_DYNAMODB=$endpoint target/debug/local-stack \
        --port 0 --port-file "$work/port" --table "$table" --issuer-dir "$work/issuer" \
        --failures-dir "$work/failures" \
        --param CursorSigningKey=$name-cursor-signing-key-0123456789abcdef >"$log" 2>&1 &
    stack=$!
    trap 'kill $stack 2>/dev/null; wait $stack 2>/dev/null; rm -rf "$work"' EXIT
    # Ready once it serves, its tables made (a caller may write to them at once): it writes the
    # port it listens on then. A port chosen here could be taken before the stack binds it.
    for _ in $(seq 1200); do
        if [ -s "$work/port" ]; then port=$(cat "$work/port"); return 0; fi
        kill -0 $stack 2>/dev/null || { cat "$log" >&2; echo "$name: the local stack stopped" >&2; exit 1; }
        sleep 0.1
    done
    echo "$name: the local stack did not serve within two minutes" >&2
    exit 1
}
