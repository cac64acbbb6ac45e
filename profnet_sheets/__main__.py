"""`python -m profnet_sheets` runs the command line."""

from profnet_sheets.launch import main

main()
