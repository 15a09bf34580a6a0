"""ChatDev: its own log, in the 2025 form MAD's runs use and in the 2023 form.

An entry starts ``[YYYY-DD-MM HH:MM:SS LEVEL] ...`` (ChatDev writes the day before the month; the
step's ``time`` is ISO) and runs to the next such line.

2025 form:

- ``<Role>: **<A><-><B> on : <Phase>, turn <n>**``: a turn of ``<Role>``, addressed to the other of
  the pair; ``phase`` and ``turn`` say which. ``<Role>: **[Start Chat]**``: the phase's opening
  message, from the user role to the assistant role the phase set up.
- ``System: **[chatting]**`` and ``System: **[RolePlaying]**`` (the phase's parameter table, which
  names its roles and phase), ``**[Seminar Conclusion]**``, ``**[Update Codes]**``, ``**[Software
  Info]**``, ``**[Execute Detail]**``, ``**[Test Reports]**`` and the other ``**[...]**`` entries:
  steps with no agent (``event`` names them). ``**[Preprocessing]**`` holds ``**task_prompt**``:
  the record's ``task``.
- Left out and counted: ``flask app.py did not start for online log`` (after every entry), ``HTTP
  Request:`` lines, ``**[OpenAI_Usage_Info Receive]**`` token counts, DEBUG lines.

2023 form: ``AI Assistant (<Role>) sys message:`` / ``AI User (<Role>) sys message:`` (the phase's two
roles; steps with no agent), ``PhaseType: PhaseType.X`` (the ``phase`` of the steps that follow),
``Task prompt:`` (the ``task``, repeated per phase), ``AI User (<Role>):`` (the phase's opening
message), ``[n] AI Assistant (<Role>):`` / ``[n] AI User (<Role>):`` (turn n, addressed to the other
role), ``[n] AI ... terminated the chat.`` (a step with no agent); ``[OpenAI_Usage_Info]`` is left out.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from .common import LogSplit, body_text, system_step

NAMES = ("chatdev",)

ENTRY = re.compile(r"\[(?P<year>\d{4})-(?P<day>\d\d)-(?P<month>\d\d) (?P<clock>\d\d:\d\d:\d\d) (?P<level>[A-Z]+)\] (?P<rest>.*)")
TURN = re.compile(r"(?P<role>[^:*]+): \*\*(?P<a>.+?)<->(?P<b>.+?) on : (?P<phase>.+?), turn (?P<turn>\d+)\*\*")
START_CHAT = re.compile(r"(?P<role>[^:*]+): \*\*\[Start Chat\]\*\*")
SYSTEM_TABLE = re.compile(r"System: \*\*\[(?P<event>[^\]]+)\]\*\*")
MARKED = re.compile(r"\*\*\[(?P<event>[^\]]+)\]\*\*:?")
TABLE_ROW = re.compile(r"\| \*\*(?P<key>\w+)\*\* \| (?P<value>.*) \|")
OLD_SYS = re.compile(r"AI (?P<side>Assistant|User) \((?P<role>[^()]+)\) sys message:")
OLD_TURN = re.compile(r"\[(?P<turn>\d+)\] AI (?P<side>Assistant|User) \((?P<role>[^()]+)\):")
OLD_OPENING = re.compile(r"AI User \((?P<role>[^()]+)\):")
OLD_END = re.compile(r"\[(?P<turn>\d+)\] AI (?P<side>Assistant|User) \((?P<role>[^()]+)\) terminated the chat\.")
LEFT_OUT = {"flask app.py did not start for online log": "'flask app.py did not start' line(s)"}


def split(text: str) -> Optional[LogSplit]:
    entries = _entries(text)
    rests = [match["rest"] for match, _ in entries]
    if any(TURN.fullmatch(rest) or START_CHAT.fullmatch(rest) for rest in rests):
        return _new_form(entries)
    if any(OLD_TURN.fullmatch(rest) or OLD_SYS.fullmatch(rest) for rest in rests):
        return _old_form(entries)
    return None


def _entries(text: str) -> List[Tuple[re.Match, List[str]]]:
    entries: List[Tuple[re.Match, List[str]]] = []
    for line in text.split("\n"):
        match = ENTRY.fullmatch(line.rstrip("\r"))
        if match:
            entries.append((match, []))
        elif entries:
            entries[-1][1].append(line)
    return entries


def _time(match: re.Match) -> str:
    return f"{match['year']}-{match['month']}-{match['day']}T{match['clock']}"


def _left_out(result: LogSplit, match: re.Match) -> bool:
    """Bookkeeping entries, counted and left out."""
    rest = match["rest"]
    if rest in LEFT_OUT:
        result.left_out[LEFT_OUT[rest]] += 1
    elif rest.startswith("HTTP Request:"):
        result.left_out["HTTP request line(s)"] += 1
    elif rest.startswith("**[OpenAI_Usage_Info") or rest.startswith("[OpenAI_Usage_Info"):
        result.left_out["token count(s)"] += 1
    elif match["level"] == "DEBUG":
        result.left_out["DEBUG line(s)"] += 1
    else:
        return False
    return True


def _new_form(entries) -> LogSplit:
    result = LogSplit(layout="ChatDev log (2025 form)", steps=[])
    pair: Dict[str, Optional[str]] = {"assistant": None, "user": None, "phase": None}
    for match, lines in entries:
        if _left_out(result, match):
            continue
        rest, body, when = match["rest"], body_text(lines), _time(match)
        turn, start, table, marked = (TURN.fullmatch(rest), START_CHAT.fullmatch(rest),
                                      SYSTEM_TABLE.fullmatch(rest), MARKED.fullmatch(rest))
        if turn:
            role = turn["role"].strip()
            step = {"agent": role, "time": when, "phase": turn["phase"], "turn": int(turn["turn"]), "content": body}
            other = _other(role, turn["a"].strip(), turn["b"].strip())
            if other:
                step["to"] = other
        elif start:
            role = start["role"].strip()
            step = {"agent": role, "time": when, "event": "start chat", "content": body}
            other = _other(role, pair["assistant"], pair["user"])
            if other:
                step["to"] = other
            if pair["phase"]:
                step["phase"] = pair["phase"]
        elif table:
            rows = {row["key"]: row["value"].strip() for row in map(TABLE_ROW.fullmatch, lines) if row}
            pair.update({"assistant": rows.get("assistant_role_name", pair["assistant"]),
                         "user": rows.get("user_role_name", pair["user"]),
                         "phase": rows.get("phase_name", pair["phase"])})
            step = system_step(table["event"], body, time=when, phase=rows.get("phase_name"))
        elif marked:
            step = system_step(marked["event"], body, time=when)
            if marked["event"] == "Preprocessing":
                task = re.search(r"^\*\*task_prompt\*\*: (.*)$", body, re.MULTILINE)
                if task:
                    result.context.setdefault("task", task.group(1).strip())
        else:
            step = system_step("log", body_text([rest] + lines), time=when)
        if match["level"] == "ERROR":
            step["error"] = body_text([rest] + lines)
        result.steps.append(step)
    return result


def _other(role: str, first: Optional[str], second: Optional[str]) -> Optional[str]:
    """The one of the pair that is not ``role`` (None when ``role`` is not in the pair)."""
    if role == first and second:
        return second
    if role == second and first:
        return first
    return None


def _old_form(entries) -> LogSplit:
    result = LogSplit(layout="ChatDev log (2023 form)", steps=[])
    roles: Dict[str, Optional[str]] = {"Assistant": None, "User": None}
    phase: Optional[str] = None
    for match, lines in entries:
        if _left_out(result, match):
            continue
        rest, body, when = match["rest"], body_text(lines), _time(match)
        sys, turn, end, opening = (OLD_SYS.fullmatch(rest), OLD_TURN.fullmatch(rest), OLD_END.fullmatch(rest),
                                   OLD_OPENING.fullmatch(rest))
        if rest.startswith("PhaseType:"):
            phase = rest.split(":", 1)[1].strip().removeprefix("PhaseType.")
            continue
        if rest == "Task prompt:":
            result.context.setdefault("task", body)
            continue
        if sys:
            roles[sys["side"]] = sys["role"]
            step = system_step("sys message", body, time=when, phase=phase, for_role=sys["role"])
        elif end:
            step = system_step("terminated", rest, time=when, phase=phase, for_role=end["role"])
        elif turn:
            step = {"agent": turn["role"], "time": when, "turn": int(turn["turn"]), "content": body}
            other = _other(turn["role"], roles["Assistant"], roles["User"])
            if other:
                step["to"] = other
            if phase:
                step["phase"] = phase
        elif opening:
            step = {"agent": opening["role"], "time": when, "event": "phase prompt", "content": body}
            other = _other(opening["role"], roles["Assistant"], roles["User"])
            if other:
                step["to"] = other
            if phase:
                step["phase"] = phase
        else:
            step = system_step("log", body_text([rest] + lines), time=when, phase=phase)
        if match["level"] == "ERROR":
            step["error"] = body_text([rest] + lines)
        result.steps.append(step)
    return result
