"""Where code runs apart from the command's process: worker pools, the Dask executor, confinement, scratch folders,
and the ledger of interpreter-wide state every unit is checked against."""
