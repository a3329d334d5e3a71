"""Modal and full screens of the dashboard."""
