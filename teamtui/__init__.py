"""teamtui: a terminal control room for AI agent teams."""

__version__ = "0.1.0"
