"""The program under test: drivers, and the modules a driver exercises, read once as source."""
