"""Professional-network data in Excel and Jupyter."""
