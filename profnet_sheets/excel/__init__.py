"""Excel front end: PROFNET_* formulas (classic xlwings UDFs), search macros, cell conversions."""
