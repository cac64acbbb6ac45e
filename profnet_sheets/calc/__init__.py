"""The PROFNET_* formulas in LibreOffice Calc: an add-in over the same logic as Excel's."""
