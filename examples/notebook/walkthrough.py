"""A worked example of the notebook API, cell by cell (run it as a script or paste the cells).

    python examples/notebook/walkthrough.py

The task in ``task/`` holds three AutoGen runs converted with ``potato-multiagent convert`` and
two annotators' failure attributions; ``task/gold.jsonl`` is the example's ground truth.
"""

from pathlib import Path

import pandas as pd

from potato_multiagent import load_task

HERE = Path(__file__).resolve().parent
pd.set_option("display.width", 120)
pd.set_option("display.max_colwidth", 40)

# %% Open the task through its Potato config: records, derivations and graphs come from the same
# code the widgets and `potato-multiagent export` use.
task = load_task(HERE / "task" / "config.yaml")
records = task.records()
print(f"{len(records)} runs:", ", ".join(records))

# %% One run as the derivation sees it: agents, handoffs (explicit HandoffMessage events and
# speaker changes) and tool calls with their parsed arguments.
run = task.derive("flight-desk-01")
print("agents:", run.agents)
for handoff in run.handoffs:
    kind = "explicit" if handoff["explicit"] else "implicit"
    print(f"handoff #{handoff['step'] + 1}: {handoff['from']} -> {handoff['to']} ({kind})")
for call in run.tool_calls:
    print(f"call at #{call['step'] + 1} by {call['agent']}: {call['tool']}({call['arguments']})")

# %% The interaction graph is a networkx DiGraph: edges carry how often control passed and where.
graph = task.graph("flight-desk-01")
for source, target, data in graph.edges(data=True):
    print(f"edge {source} -> {target}: {data['count']} time(s) at steps {[s + 1 for s in data['steps']]}")

# %% The annotations: one row per attribution, joined with the decisive step's agent and text
# (the same rows `potato-multiagent export` writes).
attributions = task.annotations("attribution")
print(attributions[["instance_id", "user", "responsible_agent", "decisive_step_number", "step_text"]]
      .to_string(index=False))

# %% Agreement between the annotators, and accuracy against the gold file (Who&When's measures):
# every figure says how many items and annotators stand behind it.
figures = task.agreement(gold=HERE / "task" / "gold.jsonl")
figures["annotator"] = figures["annotator"].fillna("(pooled)")
print(figures[["measure", "annotator", "value", "items", "annotators"]].round(3).to_string(index=False))

# %% Anything to fix before a paper? Invalid saved values are left out of both tables above.
print(f"{len(task.invalid())} invalid value(s)")
