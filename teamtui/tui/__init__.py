"""The Textual dashboard. Import `teamtui.tui.app.TeamTUI` lazily: Textual is heavy."""
