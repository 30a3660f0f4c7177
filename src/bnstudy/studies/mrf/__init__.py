"""Liu & Page (NIPS 2013): simulation and Senate runners, the tables, the claims and the figures."""
