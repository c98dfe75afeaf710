"""A minimal AWS Lambda Runtime API client, doing what Lambda's managed Python runtime does:

  1. init: import the module named by `_HANDLER` (`c1.handler`: function `handler` of module
     `c1`, from this folder or `LAMBDA_TASK_ROOT`); a failure is reported to
     POST /2018-06-01/runtime/init/error and the process exits;
  2. loop: GET /2018-06-01/runtime/invocation/next (a long poll; the headers carry the request
     id and the deadline), call handler(event, context), POST the JSON result to
     .../invocation/{id}/response, or {errorType, errorMessage} to .../invocation/{id}/error
     when the handler raises.

One persistent HTTP/1.1 connection (http.client) to `AWS_LAMBDA_RUNTIME_API` (host:port) is
kept for the life of the process. Run: `python3 runtime.py` with those variables set.
"""

import http.client
import importlib
import json
import os
import sys
import time
import traceback

API = "/2018-06-01/runtime"


class Context:
    """The handler's `context`, with the attributes a Lambda handler can rely on."""

    def __init__(self, request_id, deadline_ms, arn):
        self.aws_request_id = request_id
        self.invoked_function_arn = arn
        self._deadline_ms = deadline_ms
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "")
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME", "")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME", "")
        self.identity = self.client_context = None

    def get_remaining_time_in_millis(self):
        return max(self._deadline_ms - int(time.time() * 1000), 0)


class RuntimeApi:
    def __init__(self, address):
        host, _, port = address.rpartition(":")
        self.host, self.port = host, int(port)
        self.conn = http.client.HTTPConnection(self.host, self.port)

    def request(self, method, path, body=None, headers=None):
        """One request on the kept connection (reopened once if the server closed it)."""
        for attempt in (1, 2):
            try:
                self.conn.request(method, API + path, body=body, headers=headers or {})
                response = self.conn.getresponse()
                return response.status, response.headers, response.read()
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                if attempt == 2:
                    raise
                self.conn = http.client.HTTPConnection(self.host, self.port)

    def post_json(self, path, value, headers=None):
        body = json.dumps(value, separators=(",", ":")).encode("utf-8")
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        return self.request("POST", path, body, h)


def error_body(e):
    return {
        "errorType": type(e).__name__,
        "errorMessage": str(e),
        "stackTrace": traceback.format_tb(e.__traceback__),
    }


def load_handler(name):
    module, _, function = name.rpartition(".")
    if not module:
        raise ValueError(f"Bad handler {name!r}: give MODULE.FUNCTION")
    handler = getattr(importlib.import_module(module.replace("/", ".")), function)
    if not callable(handler):
        raise TypeError(f"{name} is not a function")
    return handler


def main():
    api = RuntimeApi(os.environ["AWS_LAMBDA_RUNTIME_API"])
    sys.path.insert(0, os.environ.get("LAMBDA_TASK_ROOT") or os.path.dirname(os.path.abspath(__file__)))
    try:
        handler = load_handler(os.environ["_HANDLER"])  # init: imports, clients, configuration
    except Exception as e:  # noqa: BLE001 -- every init failure is reported, as Lambda does
        traceback.print_exc()
        kind = ("Runtime.ImportModuleError" if isinstance(e, ImportError)
                else "Runtime.UserCodeSyntaxError" if isinstance(e, SyntaxError)
                else "Runtime.HandlerNotFound" if isinstance(e, AttributeError)
                else "Runtime.Unknown")
        api.post_json("/init/error", error_body(e), {"Lambda-Runtime-Function-Error-Type": kind})
        sys.exit(1)

    while True:
        status, headers, body = api.request("GET", "/invocation/next")
        if status != 200:  # e.g. 410 Gone: the instance is retired
            print(f"runtime API answered {status} to next: stopping", file=sys.stderr)
            return
        request_id = headers["Lambda-Runtime-Aws-Request-Id"]
        if "Lambda-Runtime-Trace-Id" in headers:
            os.environ["_X_AMZN_TRACE_ID"] = headers["Lambda-Runtime-Trace-Id"]
        context = Context(
            request_id,
            int(headers.get("Lambda-Runtime-Deadline-Ms", "0")),
            headers.get("Lambda-Runtime-Invoked-Function-Arn", ""),
        )
        try:
            result = handler(json.loads(body), context)
        except Exception as e:  # noqa: BLE001 -- the handler's failure is the invocation's
            traceback.print_exc()
            api.post_json(f"/invocation/{request_id}/error", error_body(e),
                          {"Lambda-Runtime-Function-Error-Type": "Unhandled"})
            continue
        try:
            api.post_json(f"/invocation/{request_id}/response", result)
        except (TypeError, ValueError) as e:  # not JSON-serialisable, as Lambda's MarshalError
            api.post_json(f"/invocation/{request_id}/error",
                          {"errorType": "Runtime.MarshalError", "errorMessage": str(e)},
                          {"Lambda-Runtime-Function-Error-Type": "Runtime.MarshalError"})


if __name__ == "__main__":
    main()
