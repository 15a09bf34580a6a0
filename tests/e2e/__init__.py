"""End-to-end tests. A package so its test modules cannot collide by basename with tests elsewhere
(pytest's default import mode needs unique basenames across folders without __init__.py)."""
