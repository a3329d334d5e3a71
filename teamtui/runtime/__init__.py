"""teamtui.runtime: the lead. Spawns teammates, assigns tasks, recovers crashes, shuts down. Imports no Textual."""
