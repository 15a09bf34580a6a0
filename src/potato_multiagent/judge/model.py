"""The judge's model: one of Potato's AI endpoints, configured as Potato configures them.

A Potato config's ``ai_support`` block (``enabled``, ``endpoint_type``, ``ai_config``: ``model``,
``api_key``, ``base_url``, ``max_tokens``, ``temperature``, ``timeout``) names the endpoint; the
judge builds it with Potato's ``AIEndpointFactory`` and asks through ``query_with_usage``, so every
provider Potato speaks (OpenAI or any OpenAI-compatible server through ``base_url``, vLLM, Ollama,
Anthropic, Gemini, OpenRouter, ...) works, with the token counts the provider reports.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Mapping, Optional

DEFAULT_TIMEOUT = 300
"""Seconds per call unless ``ai_config.timeout`` says otherwise (Potato's 30 s is short for a whole run)."""


class ModelError(Exception):
    """The endpoint could not be built or a call failed (the message says which and why)."""


@dataclass(frozen=True)
class Reply:
    text: str
    input_tokens: Optional[int]
    output_tokens: Optional[int]
    seconds: float


def estimate_tokens(text: str) -> int:
    """A rough token count (four characters a token) for the context check; no tokenizer is
    installed for this, and the check needs an order of magnitude, not a count."""
    return math.ceil(len(text) / 4)


class Model:
    """An endpoint plus what the judgments file records about it."""

    def __init__(self, ai_support: Mapping[str, Any]):
        from potato.ai.ai_endpoint import AIEndpointError, AIEndpointFactory

        if not isinstance(ai_support, Mapping) or not ai_support.get("endpoint_type"):
            raise ModelError("ai_support: endpoint_type is missing (openai, vllm, ollama, anthropic, ...); "
                             "give --endpoint-type or an ai_support block (--ai-config)")
        ai_config = dict(ai_support.get("ai_config") or {})
        ai_config.setdefault("timeout", DEFAULT_TIMEOUT)
        block = {**dict(ai_support), "enabled": True, "ai_config": ai_config}
        try:
            self.endpoint = AIEndpointFactory.create_endpoint({"ai_support": block})
        except AIEndpointError as error:
            raise ModelError(f"ai_support: {error}") from None
        self.endpoint_type = str(block["endpoint_type"])
        self.name = str(self.endpoint.model)
        self.max_tokens = int(self.endpoint.max_tokens or 0)

    def ask(self, prompt: str, output_format: Any = None) -> Reply:
        """One call; :class:`ModelError` when the endpoint fails (network, HTTP status, empty answer)."""
        from potato.ai.ai_endpoint import AIEndpointError

        started = time.monotonic()
        try:
            answer, usage = self.endpoint.query_with_usage(prompt, output_format)
        except AIEndpointError as error:
            raise ModelError(str(error)) from None
        usage = usage or {}
        return Reply(reply_text(answer), usage.get("input_tokens"), usage.get("output_tokens"),
                     time.monotonic() - started)


def reply_text(answer: Any) -> str:
    """The model's answer as text, whatever the endpoint returned.

    Potato's vLLM and Ollama endpoints hand back their own parse of the text (a dict; a free-text
    answer as ``{"response": text}``), OpenAI and Anthropic the text itself.
    """
    if isinstance(answer, str):
        return answer
    if isinstance(answer, dict) and set(answer) == {"response"} and isinstance(answer["response"], str):
        return answer["response"]
    import json

    return json.dumps(answer, ensure_ascii=False)
