"""teamtui.tmux: one pane per teammate, through libtmux. Imports no Textual."""
