"""Labels in and out of the trace tools users already run (Phoenix, Langfuse).

:mod:`.labels` turns a task's saved answers (and gold, and judgments) into tool-neutral labels,
each on a trace or on the span of a step; :mod:`.phoenix` reads a Phoenix project's spans into a
task and writes the labels back as span and trace annotations; :mod:`.langfuse` writes them as
Langfuse scores through Potato's write-back queue. :mod:`.http` is their standard-library HTTP.
"""
