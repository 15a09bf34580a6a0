"""Labels in and out of the trace tools users already run (Phoenix; Langfuse).

:mod:`.labels` turns a task's saved values into tool-neutral labels, each on a trace or on the
span of a step; :mod:`.phoenix` reads a Phoenix project's spans into a task and writes the labels
back as span and trace annotations.
"""
