"""MetaGPT: its loguru action lines, or its agent communication log.

- Log lines (MAD's ProgramDev runs): ``2025-01-17 11:40:27.872 | INFO     | where - Alice(SimpleCoder):
  to do SimpleWriteCode(...)`` starts a step of ``agent`` Alice (``agent_role`` SimpleCoder, ``time``)
  whose text runs to the next log line (the code the action wrote). A log line naming no speaker
  starts a step with no agent; text before the first log line is one such step.
- Communication log (MAD's MMLU runs): ``=== MetaGPT Agent Communication Log - Started at ... ===``,
  then blocks that a line of dashes ends: ``[ts] FROM: <sender> TO: {<recipients>}`` with ``ACTION:``
  and ``CONTENT:`` (a step of the sender, addressed to its one recipient; ``<all>`` is a broadcast),
  or ``[ts] NEW MESSAGES:`` with ``<Role>: text`` messages, one step each. A block's role lines are
  told from text that merely ends in a colon by the roles the log names (the first line of each
  ``NEW MESSAGES`` block, the senders). The ``=== ... ===`` lines frame the log and are no step.
"""

from __future__ import annotations

import ast
import re
from typing import List, Optional

from .common import LogSplit, body_text, system_step

NAMES = ("metagpt",)

LOG_LINE = re.compile(
    r"(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) \| (?P<level>[A-Z]+)\s*\| (?P<where>\S+) - "
    r"(?:(?P<name>[^\s()|:]+)\((?P<role>[^()\n]*)\): )?(?P<text>.*)")
"""One MetaGPT (loguru) log line; a speaker's line names ``Name(Role):`` after the location."""
BLOCK = re.compile(r"\[(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] (?:FROM: (?P<sender>.+?) TO: (?P<to>.*)|NEW MESSAGES:)")
FRAME = re.compile(r"===.*===")
BLOCK_END = re.compile(r"-{20,}")


def split(text: str) -> Optional[LogSplit]:
    lines = text.split("\n")
    if any(BLOCK.fullmatch(line.rstrip("\r")) for line in lines):
        return _communication_log(lines)
    return _log_lines(lines)


def _log_lines(lines: List[str]) -> Optional[LogSplit]:
    steps: List[dict] = []
    gathered: List[str] = []
    for line in lines:
        match = LOG_LINE.fullmatch(line.rstrip("\r"))
        if match is None:
            gathered.append(line)
            continue
        _close(steps, gathered)
        step = {"time": match["time"]}
        if match["name"]:
            step.update({"agent": match["name"], "agent_role": match["role"]})
        if match["level"] == "ERROR":
            step["error"] = match["text"]
        steps.append(step)
        gathered = [match["text"]]
    _close(steps, gathered)
    if not any("agent" in step for step in steps):
        return None
    return LogSplit(layout="MetaGPT log lines", steps=steps)


def _close(steps: List[dict], gathered: List[str]) -> None:
    """The text gathered so far ends the open step (or, before any log line, is a step of its own)."""
    text = body_text(gathered)
    if not steps:
        if text.strip():
            steps.append(system_step("log", text))
        return
    steps[-1]["content"] = text


def _communication_log(lines: List[str]) -> LogSplit:
    blocks: List[tuple] = []  # (match, lines)
    stray: List[tuple] = []   # (position among blocks, lines) of text outside any block
    current = None
    outside: List[str] = []
    split = LogSplit(layout="MetaGPT communication log", steps=[])
    for line in lines:
        bare = line.rstrip("\r")
        match = BLOCK.fullmatch(bare)
        if match:
            if outside and body_text(outside):
                stray.append((len(blocks), outside))
            outside = []
            current = (match, [])
            blocks.append(current)
        elif current is not None and BLOCK_END.fullmatch(bare):
            current = None
        elif current is not None:
            current[1].append(line)
        elif FRAME.fullmatch(bare.strip()):
            split.left_out["log frame line(s)"] += 1
        else:
            outside.append(line)
    if outside and body_text(outside):
        stray.append((len(blocks), outside))
    roles = _roles(blocks)
    strays = dict((position, text) for position, text in stray)
    for position, (match, block_lines) in enumerate(blocks):
        if position in strays:
            split.steps.append(system_step("log", body_text(strays[position])))
        split.steps.extend(_block_steps(match, block_lines, roles))
    if len(blocks) in strays:
        split.steps.append(system_step("log", body_text(strays[len(blocks)])))
    return split


def _roles(blocks: List[tuple]) -> set:
    """The speakers the log names: each NEW MESSAGES block's first ``Role:`` line, every sender."""
    roles = set()
    for match, block_lines in blocks:
        if match["sender"]:
            roles.add(match["sender"].strip())
            continue
        first = next((line for line in block_lines if line.strip()), "")
        head = re.match(r"(\w[\w .-]*?):(?: |$)", first)
        if head:
            roles.add(head.group(1))
    return roles


def _block_steps(match, block_lines: List[str], roles: set) -> List[dict]:
    if match["sender"]:
        return [_sent(match, block_lines)]
    steps: List[dict] = []
    for line in block_lines:
        head = re.match(r"(\w[\w .-]*?):(?: |$)(.*)", line.rstrip("\r"))
        if head and head.group(1) in roles:
            steps.append({"agent": head.group(1), "time": match["time"], "lines": [head.group(2)]})
        elif steps:
            steps[-1]["lines"].append(line)
        elif line.strip():
            steps.append({"time": match["time"], "event": "new messages", "lines": [line]})
    for step in steps:
        step["content"] = body_text(step.pop("lines"))
    return steps


def _sent(match, block_lines: List[str]) -> dict:
    """A ``FROM: ... TO: ...`` block: its sender's step, addressed to its one named recipient."""
    step = {"agent": match["sender"].strip(), "time": match["time"]}
    recipients = _recipients(match["to"])
    named = [name for name in recipients if name != "<all>"]
    if len(named) == 1 and len(recipients) == 1:
        step["to"] = named[0]
    else:
        step["recipients"] = recipients
    content: List[str] = []
    reading_content = False
    for line in block_lines:
        bare = line.rstrip("\r")
        if not reading_content and bare.startswith("ACTION:"):
            step["action_name"] = bare[len("ACTION:"):].strip()
        elif not reading_content and bare.startswith("CONTENT:"):
            reading_content = True
            rest = bare[len("CONTENT:"):]
            if rest.strip():
                content.append(rest.strip())
        else:
            content.append(line)
    step["content"] = body_text(content)
    return step


def _recipients(text: str) -> List[str]:
    """``{'<all>'}`` (a Python set, as MetaGPT prints ``send_to``) as a sorted list of names."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return [text.strip()]
    if isinstance(value, (set, list, tuple, frozenset)):
        return sorted(str(name) for name in value)
    return [str(value)]
