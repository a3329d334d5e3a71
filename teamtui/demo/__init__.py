"""The built-in demo team: simulated teammates (real processes on the teammate API, no LLM)."""
