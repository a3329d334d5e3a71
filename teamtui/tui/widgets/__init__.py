"""The dashboard's panels. Each renders from TeamState; none opens a file."""
