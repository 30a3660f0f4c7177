"""LSBN: ROPART statistics, the global-vs-LSBN comparison tables and the claims."""
