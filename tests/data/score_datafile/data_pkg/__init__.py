"""A package whose tests read a data file that one of its functions can delete."""
