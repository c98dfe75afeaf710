// A minimal AWS Lambda Runtime API client, the loop Lambda's managed Node.js runtime runs:
//
//   node runtime.mjs   with AWS_LAMBDA_RUNTIME_API=host:port and _HANDLER=c1.handler
//
// 1. init: import the handler's module (`c1.handler` = the export `handler` of ./c1.mjs, found
//    in LAMBDA_TASK_ROOT, else next to this file); module-level code (the DynamoDB client, the
//    ElectroDB entities, settings) runs here, as in Lambda's init phase. A failure is reported to
//    POST /runtime/init/error and the process exits.
// 2. loop: GET /runtime/invocation/next (a long poll: it answers when there is an event), call
//    `await handler(event, context)`, POST its JSON result to /runtime/invocation/{id}/response,
//    or `{errorType, errorMessage, stackTrace}` to /runtime/invocation/{id}/error if it threw.
//
// One keep-alive connection is reused for every request, as the managed runtime does.

import http from "node:http";
import path from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const api = process.env.AWS_LAMBDA_RUNTIME_API;
const [host, port] = api ? [api.slice(0, api.lastIndexOf(":")), Number(api.slice(api.lastIndexOf(":") + 1))] : [];
const BASE = "/2018-06-01/runtime";
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request to the Runtime API: `{ status, headers, body }` (body as text). */
function request(method, urlPath, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      {
        host, port, method, agent,
        path: BASE + urlPath,
        headers: payload ? { "content-type": "application/json", "content-length": payload.length, ...headers } : headers,
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** An error as the managed runtime reports it. */
function errorBody(err) {
  const e = err instanceof Error ? err : new Error(String(err));
  return JSON.stringify({
    errorType: e.name || "Error",
    errorMessage: e.message,
    stackTrace: typeof e.stack === "string" ? e.stack.split("\n").slice(1).map((l) => l.trim()) : [],
  });
}

async function postError(urlPath, err) {
  console.error(err);
  const type = err && typeof err.name === "string" && err.name.startsWith("Runtime.") ? err.name : "Unhandled";
  await request("POST", urlPath, errorBody(err), { "lambda-runtime-function-error-type": type });
}

/** `_HANDLER` = `<module>.<export>`: the module resolved like Lambda's (`.mjs`, then `.js`). */
async function loadHandler() {
  const spec = process.env._HANDLER;
  if (!spec || !spec.includes(".")) throw Object.assign(new Error(`Bad handler ${spec}`), { name: "Runtime.MalformedHandlerName" });
  const dot = spec.lastIndexOf(".");
  const root = process.env.LAMBDA_TASK_ROOT || path.dirname(fileURLToPath(import.meta.url));
  const base = path.resolve(root, spec.slice(0, dot));
  const file = [".mjs", ".js", ".cjs"].map((ext) => base + ext).find(existsSync);
  if (!file) throw Object.assign(new Error(`Cannot find module '${spec.slice(0, dot)}'`), { name: "Runtime.ImportModuleError" });
  const module = await import(pathToFileURL(file).href);
  const handler = module[spec.slice(dot + 1)];
  if (typeof handler !== "function") {
    throw Object.assign(new Error(`${spec} is undefined or not exported`), { name: "Runtime.HandlerNotFound" });
  }
  return handler;
}

/** The `context` argument (the fields handlers use). */
function contextOf(headers) {
  const deadline = Number(headers["lambda-runtime-deadline-ms"]);
  const env = process.env;
  return {
    awsRequestId: headers["lambda-runtime-aws-request-id"],
    invokedFunctionArn: headers["lambda-runtime-invoked-function-arn"],
    functionName: env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
    clientContext: headers["lambda-runtime-client-context"] ? JSON.parse(headers["lambda-runtime-client-context"]) : undefined,
    identity: headers["lambda-runtime-cognito-identity"] ? JSON.parse(headers["lambda-runtime-cognito-identity"]) : undefined,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
}

async function main() {
  if (!api) throw new Error("AWS_LAMBDA_RUNTIME_API is not set");
  let handler;
  try {
    handler = await loadHandler();
  } catch (err) {
    await postError("/init/error", err);
    process.exit(1);
  }
  for (;;) {
    const next = await request("GET", "/invocation/next");
    if (next.status !== 200) throw new Error(`GET /invocation/next answered ${next.status}`);
    const id = next.headers["lambda-runtime-aws-request-id"];
    // The X-Ray trace header of this invocation, where the SDK looks for it.
    if (next.headers["lambda-runtime-trace-id"]) process.env._X_AMZN_TRACE_ID = next.headers["lambda-runtime-trace-id"];
    else delete process.env._X_AMZN_TRACE_ID;
    let response;
    try {
      const result = await handler(JSON.parse(next.body), contextOf(next.headers));
      response = JSON.stringify(result === undefined ? null : result);
    } catch (err) {
      await postError(`/invocation/${id}/error`, err);
      continue;
    }
    await request("POST", `/invocation/${id}/response`, response);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
