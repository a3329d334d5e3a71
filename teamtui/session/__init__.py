"""Team sessions: one watched team as one object (team.py), and the controllers that act on it
(shutdown.py, lead_asked.py). Above protocol, runtime and tmux; below the UI, which knows none
of a team's files, only its session. No Textual here."""
