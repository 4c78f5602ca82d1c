"""Processes that attn starts: a pool of workers that render specs or write a large document's
parts side by side (pool.py), and one task bounded in time and memory (bounded.py). Every one
is ended with the command, whatever ends it."""
