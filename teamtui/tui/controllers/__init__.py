"""Flows that outlive a key press (a graceful shutdown): they report progress as messages."""
