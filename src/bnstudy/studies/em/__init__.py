"""Reed & Mengshoel (BMAW 2014): EM trials, mini-ADAPT, Tables 3-4, the claims and the figures."""
