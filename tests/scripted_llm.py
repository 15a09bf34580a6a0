"""A local OpenAI-compatible chat server on 127.0.0.1 that answers from a script.

``ScriptedLLM(answer)`` starts it; ``answer(prompt, request)`` returns the reply text, or a
``Status(code)`` for an HTTP error, or blocks (to stand for a model still thinking while the test
interrupts the client). Every request is kept (``requests``), and the usage it reports is the
prompt's and reply's length in characters divided by four, so token figures are checkable.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List


@dataclass(frozen=True)
class Status:
    code: int


class ScriptedLLM:
    def __init__(self, answer: Callable[[str, dict], object]):
        self.answer = answer
        self.requests: List[dict] = []
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):  # Potato's vLLM endpoint probes /health
                self._send(200, {"status": "ok"})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
                server.requests.append({"path": self.path, "prompt": prompt, "body": body})
                reply = server.answer(prompt, body)
                if isinstance(reply, Status):
                    self._send(reply.code, {"error": {"message": "scripted failure", "type": "server_error"}})
                    return
                text = str(reply)
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(text) // 4,
                              "total_tokens": len(prompt) // 4 + len(text) // 4}})

            def _send(self, code, payload):
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def prompts(self) -> List[str]:
        return [request["prompt"] for request in self.requests]

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
