// The peers' handlers called in-process, one event a line: for `lab/bench/python/parity.py --peer
// node`, which compares their answers with the Rust functions' as it does the Python peers'.
//
//   node lab/bench/node/invoke.mjs   reads `{"handler": "c3", "event": {...}}` lines on stdin and
//                                writes each handler's result (or `{"error": "..."}`) as a line.
//
// The environment is the handlers' (TABLE_NAME, ORDER_STATUS_SHARDS, CURSOR_SIGNING_KEY, AWS_*).

import readline from "node:readline";

const handlers = {};
for await (const line of readline.createInterface({ input: process.stdin })) {
  const { handler, event } = JSON.parse(line);
  let out;
  try {
    handlers[handler] ??= (await import(`./${handler}.mjs`)).handler;
    out = await handlers[handler](event, {});
  } catch (e) {
    out = { error: String(e?.stack ?? e) };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
